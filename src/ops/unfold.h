// Tensor.unfold: every window of `size` elements, `step` apart, along one dim, as a view whose new last dim
// runs through a window. Overlapping windows (step < size) share elements, as in PyTorch: an in-place op on
// the whole view reaches a shared element once per window that holds it.
#pragma once
#include "core/tensor.h"

namespace tandem {

Tensor unfold(const Tensor& x, int64_t dim, int64_t size, int64_t step);

}  // namespace tandem
