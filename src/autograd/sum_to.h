// Reducing a broadcast gradient back to an input's shape. A stop-gap built from existing public ops
// (permute + reshape + a matrix-vector product with ones) until the reductions family lands: then
// sum_to becomes x.sum(dims, keepdim) (see docs/autograd.md). Being built from recording ops, it is
// itself differentiable (create_graph).
#pragma once
#include "core/tensor.h"

namespace tandem::autograd {

// True when `shape` broadcasts to `desired`.
bool is_expandable_to(IntArrayRef shape, IntArrayRef desired);
// Sums `grad` over the dims in which `shape` was broadcast to grad's shape.
Tensor sum_to(const Tensor& grad, IntArrayRef shape);

}  // namespace tandem::autograd
