// CUDA sum, mean and prod.
#include "kernels/cuda/reduce_entry.h"
#include "kernels/cuda/reduce_launch.cuh"
#include "kernels/cuda/reduce_policies.cuh"

namespace tandem::cuda {

void fold_sum_prod(ReduceOp op, const Tensor& out, const Tensor& in, int64_t n_reduced) {
  StridedOffsets kept, red;
  reduce_offsets(in, n_reduced, kept, red);
  const int64_t n_out = out.numel(), n_red = out.numel() ? in.numel() / out.numel() : 0;
  dispatch_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = in.data<T>();
    sum_out_t<T>* dst = out.data<sum_out_t<T>>();
    if (op == ReduceOp::Prod) {
      run_reduce(ProdPolicy<T>{dst}, src, kept, red, n_out, n_red, in.device());
    } else {
      // Mean scales by 1/count as the CPU does (front ends only send it floating inputs); Sum by 1.
      using acc_t = sum_acc_t<T>;
      acc_t scale = acc_t(1);
      if constexpr (is_floating_type_v<T>)
        if (op == ReduceOp::Mean)
          scale = acc_t(1) / static_cast<acc_t>(n_red);  // NaN for empty, as on the CPU
      run_reduce(SumPolicy<T>{dst, scale}, src, kept, red, n_out, n_red, in.device());
    }
  });
}

}  // namespace tandem::cuda
