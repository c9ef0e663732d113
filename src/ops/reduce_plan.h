// How a reduction front end lays out its work: which dims are reduced, the result's shape, and the view of
// the input that kernels expect (kept dims first, reduced dims last).
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "ops/reduce.h"

namespace tandem {

struct ReducePlan {
  DimVector kept_shape;    // the result without keepdim's size-1 dims (the kernel's contiguous output)
  DimVector result_shape;  // what the user gets (keepdim applied)
  Tensor permuted;         // the input, kept dims first then reduced dims
  int64_t n_reduced = 0;
  int64_t reduced_numel = 1;  // elements folded into each output
  bool has_empty_dim() const { return first_empty_dim != kNoDim; }
  static constexpr int64_t kNoDim = INT64_MIN;
  int64_t first_empty_dim = kNoDim;  // a reduced dim of size 0 as the user named it, for max/min's errors
};

// Checks dims (IndexError out of range, RuntimeError for repeats) and builds the plan. An explicitly empty
// `dims` reduces every dim, except for all/any, where PyTorch reduces none.
ReducePlan plan_reduction(const Tensor& x, const OptDims& dims, bool keepdim, bool empty_means_all = true);
// The contiguous output viewed with the user's shape.
Tensor as_result(const Tensor& out, const ReducePlan& plan);
// x with `dim` moved to the end (a view), for scans and sorts.
Tensor move_dim_last(const Tensor& x, int64_t dim);

}  // namespace tandem
