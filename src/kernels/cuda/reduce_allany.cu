// CUDA all and any: bool results (uint8 for uint8 input); NaN counts as true.
#include "kernels/cuda/reduce_entry.h"
#include "kernels/cuda/reduce_launch.cuh"
#include "kernels/cuda/reduce_policies.cuh"

namespace tandem::cuda {

void fold_all_any(ReduceOp op, const Tensor& out, const Tensor& in, int64_t n_reduced) {
  StridedOffsets kept, red;
  reduce_offsets(in, n_reduced, kept, red);
  const int64_t n_out = out.numel(), n_red = out.numel() ? in.numel() / out.numel() : 0;
  dispatch_dtype_with_uint(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using out_t = typename AllAnyPolicy<T, true>::out_t;
    if (op == ReduceOp::All)
      run_reduce(AllAnyPolicy<T, true>{out.data<out_t>()}, in.data<T>(), kept, red, n_out, n_red,
                 in.device());
    else
      run_reduce(AllAnyPolicy<T, false>{out.data<out_t>()}, in.data<T>(), kept, red, n_out, n_red,
                 in.device());
  });
}

}  // namespace tandem::cuda
