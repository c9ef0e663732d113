// Batch normalisation on CUDA: the nn family's batch_norm slots (contract in kernels/nn_kernels.h; the CPU
// kernels in kernels/cpu/batch_norm_kernels.cpp are the reference), with the per-element math shared with
// them (kernels/norm_functors.h). The sums take a block per channel: its threads walk the channel's N * S
// values (consecutive threads on consecutive elements of a run, so the loads coalesce) and combine through
// block_sum; no atomics, so the order is fixed. The elementwise pass is a thread per element.
#include <cstdint>

#include "kernels/cuda/block_sum.cuh"
#include "kernels/cuda/flat_launch.cuh"
#include "kernels/cuda/nn_parts.h"
#include "kernels/nn_kernels.h"
#include "kernels/norm_functors.h"

namespace tandem::cuda {

namespace {

// Element j of channel c's values, j in [0, n * s): run j / s, position j % s.
__device__ __forceinline__ int64_t channel_element(int64_t j, int64_t c, int64_t channels, int64_t s) {
  return ((j / s) * channels + c) * s + j % s;
}

// Channels are block-uniform, so every thread reaches the barriers in block_sum.
template <typename T>
__global__ void channel_stats(opmath_t<T>* __restrict__ mean, opmath_t<T>* __restrict__ var,
                              const T* __restrict__ in, int64_t n, int64_t channels, int64_t s) {
  using A = opmath_t<T>;
  __shared__ A scratch[kRowThreads / kWarp];
  const int64_t count = n * s;
  for (int64_t c = blockIdx.x; c < channels; c += gridDim.x) {
    A sum = 0;
    for (int64_t j = threadIdx.x; j < count; j += kRowThreads)
      sum += static_cast<A>(in[channel_element(j, c, channels, s)]);
    const A m = block_sum(sum, scratch) / static_cast<A>(count);
    A squares = 0;
    for (int64_t j = threadIdx.x; j < count; j += kRowThreads) {
      const A d = static_cast<A>(in[channel_element(j, c, channels, s)]) - m;
      squares += d * d;
    }
    const A v = block_sum(squares, scratch) / static_cast<A>(count);
    if (threadIdx.x == 0) mean[c] = m, var[c] = v;
  }
}

template <typename T>
__global__ void channel_grad_sums(opmath_t<T>* __restrict__ sum_dy, opmath_t<T>* __restrict__ sum_dy_xmu,
                                  const T* __restrict__ grad_out, const T* __restrict__ in,
                                  const opmath_t<T>* __restrict__ mean, int64_t n, int64_t channels,
                                  int64_t s) {
  using A = opmath_t<T>;
  __shared__ A scratch[kRowThreads / kWarp];
  const int64_t count = n * s;
  for (int64_t c = blockIdx.x; c < channels; c += gridDim.x) {
    const A m = mean[c];
    A sd = 0, sdx = 0;
    for (int64_t j = threadIdx.x; j < count; j += kRowThreads) {
      const int64_t k = channel_element(j, c, channels, s);
      const A dy = static_cast<A>(grad_out[k]);
      sd += dy;
      sdx += dy * (static_cast<A>(in[k]) - m);
    }
    const A total_dy = block_sum(sd, scratch);
    const A total_dy_xmu = block_sum(sdx, scratch);
    if (threadIdx.x == 0) sum_dy[c] = total_dy, sum_dy_xmu[c] = total_dy_xmu;
  }
}

// out = p a + (q - m) b + d per channel; p (q) null leaves its term out.
template <typename T>
__global__ void channel_combine(T* __restrict__ out, const T* __restrict__ p,
                                const opmath_t<T>* __restrict__ a, const T* __restrict__ q,
                                const opmath_t<T>* __restrict__ m, const opmath_t<T>* __restrict__ b,
                                const opmath_t<T>* __restrict__ d, int64_t numel, int64_t channels,
                                int64_t s) {
  using A = opmath_t<T>;
  for (int64_t k = flat_begin(); k < numel; k += flat_stride()) {
    const int64_t c = (k / s) % channels;
    A v;
    if (p && q)
      v = BatchNormMath<A>::combine(static_cast<A>(p[k]), a[c], static_cast<A>(q[k]), m[c], b[c], d[c]);
    else if (q)
      v = BatchNormMath<A>::centred(static_cast<A>(q[k]), m[c], b[c], d[c]);
    else
      v = BatchNormMath<A>::scaled(static_cast<A>(p[k]), a[c], d[c]);
    out[k] = static_cast<T>(v);
  }
}

unsigned channel_blocks(int64_t channels) {
  return static_cast<unsigned>(channels < 1 ? 1 : channels < kMaxFlatBlocks ? channels : kMaxFlatBlocks);
}

void batch_norm_stats(const Tensor& mean, const Tensor& var, const Tensor& input) {
  const int64_t n = input.sizes()[0], channels = input.sizes()[1], s = input.sizes()[2];
  if (channels == 0) return;
  DeviceGuard guard(input.device());
  cudaStream_t stream = current_stream(input.device());
  dispatch_floating(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    channel_stats<T><<<channel_blocks(channels), kRowThreads, 0, stream>>>(mean.data<A>(), var.data<A>(),
                                                                           input.data<T>(), n, channels, s);
    TANDEM_CUDA_CHECK_LAUNCH();
  });
}

void batch_norm_backward_reduce(const Tensor& sum_dy, const Tensor& sum_dy_xmu, const Tensor& grad_out,
                                const Tensor& input, const Tensor& mean) {
  const int64_t n = input.sizes()[0], channels = input.sizes()[1], s = input.sizes()[2];
  if (channels == 0) return;
  DeviceGuard guard(input.device());
  cudaStream_t stream = current_stream(input.device());
  dispatch_floating(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    channel_grad_sums<T><<<channel_blocks(channels), kRowThreads, 0, stream>>>(
        sum_dy.data<A>(), sum_dy_xmu.data<A>(), grad_out.data<T>(), input.data<T>(), mean.data<A>(), n,
        channels, s);
    TANDEM_CUDA_CHECK_LAUNCH();
  });
}

void batch_norm_elemt(const Tensor& out, const Tensor& p, const Tensor& a, const Tensor& q, const Tensor& m,
                      const Tensor& b, const Tensor& d) {
  const int64_t channels = out.sizes()[1], s = out.sizes()[2];
  if (out.numel() == 0) return;
  DeviceGuard guard(out.device());
  cudaStream_t stream = current_stream(out.device());
  dispatch_floating(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    channel_combine<T><<<flat_blocks(out.numel()), kFlatBlock, 0, stream>>>(
        out.data<T>(), p.defined() ? p.data<T>() : nullptr, p.defined() ? a.data<A>() : nullptr,
        q.defined() ? q.data<T>() : nullptr, q.defined() ? m.data<A>() : nullptr,
        q.defined() ? b.data<A>() : nullptr, d.data<A>(), out.numel(), channels, s);
    TANDEM_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

void register_batch_norm_kernels(NnKernels& k) {
  k.batch_norm_stats = &batch_norm_stats;
  k.batch_norm_backward_reduce = &batch_norm_backward_reduce;
  k.batch_norm_elemt = &batch_norm_elemt;
}

}  // namespace tandem::cuda
