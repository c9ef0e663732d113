// Reducing a broadcast gradient back to an input's shape: sum(dims, keepdim=true) over the broadcast dims,
// then a reshape. Being built from recording ops, it is itself differentiable (create_graph).
#pragma once
#include "core/tensor.h"

namespace tandem::autograd {

// True when `shape` broadcasts to `desired`.
bool is_expandable_to(IntArrayRef shape, IntArrayRef desired);
// Sums `grad` over the dims in which `shape` was broadcast to grad's shape.
Tensor sum_to(const Tensor& grad, IntArrayRef shape);

}  // namespace tandem::autograd
