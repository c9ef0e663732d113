// View ops: new geometry over the same storage, never a copy (reshape/flatten copy only when they must).
#pragma once
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace tandem {

// What the view ops return: `view` (made by make_view from `base`) as a view of base (as_view_of), marked
// with how it was made: under no_grad or inference_mode, or later from a view that was
// (autograd::check_no_grad_view_write then refuses in-place writes through it, as PyTorch does). `op` is
// PyTorch's name for the op in that message ("Slice", "Select", "View", ...).
Tensor view_made_by(const char* op, Tensor view, const Tensor& base);

Tensor view(const Tensor& x, IntArrayRef shape);  // one -1 allowed
Tensor reshape(const Tensor& x, IntArrayRef shape);
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor permute(const Tensor& x, IntArrayRef dims);
Tensor transpose(const Tensor& x, int64_t d0, int64_t d1);
Tensor t(const Tensor& x);         // 2-D transpose (0-D and 1-D returned as is)
Tensor matrix_T(const Tensor& x);  // .T: all dims reversed
Tensor mT(const Tensor& x);        // last two dims swapped
Tensor squeeze(const Tensor& x);
Tensor squeeze(const Tensor& x, IntArrayRef dims);
Tensor unsqueeze(const Tensor& x, int64_t dim);
Tensor expand(const Tensor& x, IntArrayRef shape);  // -1 keeps a size
Tensor broadcast_to(const Tensor& x, IntArrayRef shape);
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& x, int64_t dim, int64_t index);
// Python slice semantics already resolved: start in [0, size], step > 0.
Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t stop, int64_t step);
// x[start:stop:step] on a valid dim, bounds as Python gives them: negative ones count from the end and
// out-of-range ones are clipped (Tensor.__getitem__'s slices; step must still be > 0).
Tensor python_slice(const Tensor& x, int64_t dim, int64_t start, int64_t stop, int64_t step);
std::vector<Tensor> unbind(const Tensor& x, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& x, IntArrayRef sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0);
Tensor alias(const Tensor& x);  // a new tensor object over the same memory (detach's geometry)
// x's bytes read as another dtype (Tensor.view(dtype)); a different element size rescales the last dim.
// Never differentiable, as in PyTorch.
Tensor view_dtype(const Tensor& x, DType dtype);
// The shape with a -1 replaced, after checking the element count matches.
DimVector infer_size(IntArrayRef shape, int64_t numel);

}  // namespace tandem
