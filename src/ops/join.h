// Joining ops: cat and stack.
#pragma once
#include <vector>

#include "core/tensor.h"

namespace tandem {

// Concatenates along dim; dtypes promote as PyTorch's cat does. 1-D empty tensors (shape [0]) are skipped,
// as PyTorch does for legacy reasons.
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
// Joins equally shaped tensors along a new dim.
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
// NumPy's stacking helpers: inputs raised to at least 1/2/3 dims, then joined along columns (dim 1, or 0
// for 1-D inputs) / rows (dim 0) / depth (dim 2).
Tensor hstack(const std::vector<Tensor>& tensors);
Tensor vstack(const std::vector<Tensor>& tensors);
Tensor dstack(const std::vector<Tensor>& tensors);

}  // namespace tandem
