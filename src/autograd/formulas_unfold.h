// The recording entry point of Tensor.unfold (ops/unfold.h) and its gradient (formulas_unfold.cpp).
#pragma once
#include "core/tensor.h"

namespace tandem::autograd {

Tensor record_unfold(const Tensor& x, int64_t dim, int64_t size, int64_t step, const Tensor& out);
// unfold's gradient: each window's gradient added back at the elements it covers, into zeros of `sizes`
// (differentiable itself: index_add records its own node).
Tensor unfold_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t size, int64_t step);

}  // namespace tandem::autograd
