// How a reduction front end lays out its work: which dims are reduced, the result's shape, and the view of
// the input that kernels expect (kept dims first, reduced dims last).
#pragma once
#include "core/tensor.h"
#include "ops/reduce.h"

namespace tandem {

struct ReducePlan {
  DimVector kept_shape;    // the result without keepdim's size-1 dims (the kernel's contiguous output)
  DimVector result_shape;  // what the user gets (keepdim applied)
  Tensor permuted;         // the input, kept dims first then reduced dims
  int64_t n_reduced = 0;
  int64_t reduced_numel = 1;  // elements folded into each output
  int64_t first_empty_dim = -1;  // a reduced dim of size 0, for the errors of max/min
};

// Checks dims (IndexError out of range, RuntimeError for repeats) and builds the plan.
ReducePlan plan_reduction(const Tensor& x, const OptDims& dims, bool keepdim);
// The contiguous output viewed with the user's shape.
Tensor as_result(const Tensor& out, const ReducePlan& plan);
// x with `dim` moved to the end (a view), for scans and sorts.
Tensor move_dim_last(const Tensor& x, int64_t dim);

}  // namespace tandem
