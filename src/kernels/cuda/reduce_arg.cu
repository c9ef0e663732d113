// CUDA max/min with indices over the last dim (max(dim), argmax, ...): first index on ties, first NaN wins.
#include <algorithm>

#include "kernels/cuda/reduce_entry.h"
#include "kernels/cuda/reduce_launch.cuh"
#include "kernels/cuda/reduce_policies.cuh"

namespace tandem::cuda {

void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in) {
  StridedOffsets kept, red;
  reduce_offsets(in, std::min<int64_t>(1, in.dim()), kept, red);
  const int64_t n_out = indices.numel(), n_red = in.dim() ? in.sizes()[in.dim() - 1] : 1;
  dispatch_dtype_with_uint(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* vals = values.defined() ? values.data<T>() : nullptr;
    int64_t* idxs = indices.data<int64_t>();
    if (is_max)
      run_reduce(ArgPolicy<T, true>{vals, idxs}, in.data<T>(), kept, red, n_out, n_red, in.device());
    else
      run_reduce(ArgPolicy<T, false>{vals, idxs}, in.data<T>(), kept, red, n_out, n_red, in.device());
  });
}

}  // namespace tandem::cuda
