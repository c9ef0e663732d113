// Helpers shared by the indexing front ends to build an IndexPlan (kernels/index_kernels.h): index tensors
// normalised to checked int64, and plan coalescing.
#pragma once
#include "core/tensor.h"
#include "kernels/index_kernels.h"

namespace tandem {

// `index` as a contiguous int64 tensor (int32 converted). TypeErrors/IndexErrors are the caller's job.
Tensor contiguous_int64(const Tensor& index);
// Smallest and largest entry of a contiguous int64 index; false when it is empty.
bool index_min_max(const Tensor& index64, int64_t& lo, int64_t& hi);
// False (and the offending value in `bad`) when some entry lies outside [-size, size), or outside [0, size)
// when negative entries are not allowed.
bool index_in_range(const Tensor& index64, int64_t size, bool allow_negative, int64_t& bad);
// Merges dims that every operand walks contiguously and drops size-1 dims, so kernels see long rows.
void coalesce(IndexPlan& plan);
// 0-d tensors act as 1-element vectors in the gather/scatter family (as in PyTorch).
Tensor at_least_1d(const Tensor& t);
// x as 1-D (a view when possible); 0-d gives [1].
Tensor flattened(const Tensor& x);
// Runs the plan on the device of `t` (which owns the memory the plan points at).
void run_gather(const Tensor& t, const IndexPlan& plan);
void run_put(const Tensor& t, const IndexPlan& plan, bool accumulate);

}  // namespace tandem
