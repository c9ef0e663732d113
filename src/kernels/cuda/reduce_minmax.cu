// CUDA max and min folds (amax/amin and max()/min() without dim), NaN-propagating.
#include "kernels/cuda/reduce_entry.h"
#include "kernels/cuda/reduce_launch.cuh"
#include "kernels/cuda/reduce_policies.cuh"

namespace tandem::cuda {

void fold_max_min(ReduceOp op, const Tensor& out, const Tensor& in, int64_t n_reduced) {
  StridedOffsets kept, red;
  reduce_offsets(in, n_reduced, kept, red);
  const int64_t n_out = out.numel(), n_red = out.numel() ? in.numel() / out.numel() : 0;
  dispatch_dtype_with_uint(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (op == ReduceOp::Max)
      run_reduce(MaxMinPolicy<T, true>{out.data<T>()}, in.data<T>(), kept, red, n_out, n_red, in.device());
    else
      run_reduce(MaxMinPolicy<T, false>{out.data<T>()}, in.data<T>(), kept, red, n_out, n_red, in.device());
  });
}

}  // namespace tandem::cuda
