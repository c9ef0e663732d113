// max_pool2d and its backward on CUDA. The forward runs the CPU's per-window math (pool_windows.h), one
// thread per output; the backward gathers: each input element sums the gradients of the outputs whose index
// points at it, in increasing output order as the CPU does.
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "kernels/cuda/flat_launch.cuh"
#include "kernels/cuda/nn_parts.h"
#include "kernels/pool_windows.h"

namespace tandem::cuda {

namespace {

template <typename T>
__global__ void max_pool2d_kernel(T* __restrict__ out, int64_t* __restrict__ indices,
                                  const T* __restrict__ input, Window2d g, int64_t total) {
  for (int64_t i = flat_begin(); i < total; i += flat_stride()) {
    const int64_t ox = i % g.ow, oy = (i / g.ow) % g.oh, plane = i / (g.ow * g.oh);
    const WindowMax<T> best = max_in_window(input + plane * g.h * g.w, g, oy, ox);
    out[i] = static_cast<T>(best.value);
    indices[i] = best.index;
  }
}

template <typename T>
__global__ void max_pool2d_backward_kernel(T* __restrict__ grad_input, const T* __restrict__ grad_out,
                                           const int64_t* __restrict__ indices, Window2d g, int64_t total) {
  using Acc = opmath_t<T>;
  for (int64_t i = flat_begin(); i < total; i += flat_stride()) {
    const int64_t ix = i % g.w, iy = (i / g.w) % g.h, plane = i / (g.w * g.h);
    const int64_t at = iy * g.w + ix;
    const OutputRange rows = outputs_reaching(iy, g.sh, g.ph, (g.kh - 1) * g.dh + 1, g.oh);
    const OutputRange cols = outputs_reaching(ix, g.sw, g.pw, (g.kw - 1) * g.dw + 1, g.ow);
    const int64_t* idx = indices + plane * g.oh * g.ow;
    const T* go = grad_out + plane * g.oh * g.ow;
    Acc acc = 0;
    for (int64_t oy = rows.first; oy <= rows.last; ++oy)
      for (int64_t ox = cols.first; ox <= cols.last; ++ox)
        if (idx[oy * g.ow + ox] == at) acc += static_cast<Acc>(go[oy * g.ow + ox]);
    grad_input[i] = static_cast<T>(acc);
  }
}

void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input, const Window2d& g) {
  const int64_t total = out.numel();
  launch_flat_floating(out, [&](auto tag, unsigned blocks, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    max_pool2d_kernel<T><<<blocks, kFlatBlock, 0, stream>>>(out.data<T>(), indices.data<int64_t>(),
                                                            input.data<T>(), g, total);
  });
}

void max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices,
                         const Window2d& g) {
  const int64_t total = grad_input.numel();
  launch_flat_floating(grad_input, [&](auto tag, unsigned blocks, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    max_pool2d_backward_kernel<T><<<blocks, kFlatBlock, 0, stream>>>(grad_input.data<T>(), grad_out.data<T>(),
                                                                     indices.data<int64_t>(), g, total);
  });
}

}  // namespace

void register_max_pool_kernels(NnKernels& k) {
  k.max_pool2d = &max_pool2d;
  k.max_pool2d_backward = &max_pool2d_backward;
}

}  // namespace tandem::cuda
