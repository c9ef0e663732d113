// Layer normalisation on CUDA: the nn family's layer_norm slots (contract in kernels/nn_kernels.h; the CPU
// kernel in kernels/cpu/norm_kernels.cpp is the reference), running the per-element math shared with it
// (kernels/norm_functors.h). A block per row: its threads sum the row (twice: the mean, then the squared
// deviations from it) through warp shuffles and shared memory, then write it. The backward pass is a block
// per row for the input gradient and a thread per column, walking every row, for the weight and bias
// gradients (neighbouring threads read neighbouring columns, so the loads coalesce; no atomics, so the sums'
// order is fixed).
#include <cstdint>

#include "kernels/cuda/block_sum.cuh"
#include "kernels/cuda/flat_launch.cuh"
#include "kernels/cuda/nn_parts.h"
#include "kernels/nn_kernels.h"
#include "kernels/norm_functors.h"

namespace tandem::cuda {

namespace {

template <typename T>
__device__ __forceinline__ opmath_t<T> value_or(const T* p, int64_t i, opmath_t<T> absent) {
  return p ? static_cast<opmath_t<T>>(p[i]) : absent;
}

// Rows are block-uniform, so every thread reaches the barriers in block_sum.
template <typename T>
__global__ void layer_norm_rows(T* __restrict__ out, opmath_t<T>* __restrict__ mean,
                                opmath_t<T>* __restrict__ rstd, const T* __restrict__ in,
                                const T* __restrict__ weight, const T* __restrict__ bias, int64_t rows,
                                int64_t n, opmath_t<T> eps) {
  using A = opmath_t<T>;
  __shared__ A scratch[kRowThreads / kWarp];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* x = in + row * n;
    A s = 0;
    for (int64_t k = threadIdx.x; k < n; k += kRowThreads) s += static_cast<A>(x[k]);
    const A m = block_sum(s, scratch) / static_cast<A>(n);
    A q = 0;
    for (int64_t k = threadIdx.x; k < n; k += kRowThreads) {
      const A d = static_cast<A>(x[k]) - m;
      q += d * d;
    }
    const A rs = LayerNormMath<A>::rstd(block_sum(q, scratch) / static_cast<A>(n), eps);
    if (threadIdx.x == 0) mean[row] = m, rstd[row] = rs;
    for (int64_t k = threadIdx.x; k < n; k += kRowThreads)
      out[row * n + k] =
          static_cast<T>(LayerNormMath<A>::affine(LayerNormMath<A>::normalized(static_cast<A>(x[k]), m, rs),
                                                  value_or(weight, k, A(1)), value_or(bias, k, A(0))));
  }
}

template <typename T>
__global__ void layer_norm_input_grad(T* __restrict__ grad_in, const T* __restrict__ grad_out,
                                      const T* __restrict__ in, const opmath_t<T>* __restrict__ mean,
                                      const opmath_t<T>* __restrict__ rstd, const T* __restrict__ weight,
                                      int64_t rows, int64_t n) {
  using A = opmath_t<T>;
  __shared__ A scratch[kRowThreads / kWarp];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* x = in + row * n;
    const T* dy = grad_out + row * n;
    const A m = mean[row], rs = rstd[row];
    A sg = 0, sgx = 0;
    for (int64_t k = threadIdx.x; k < n; k += kRowThreads) {
      const A g = static_cast<A>(dy[k]) * value_or(weight, k, A(1));
      sg += g;
      sgx += g * LayerNormMath<A>::normalized(static_cast<A>(x[k]), m, rs);
    }
    const A mean_g = block_sum(sg, scratch) / static_cast<A>(n);
    const A mean_gx = block_sum(sgx, scratch) / static_cast<A>(n);
    for (int64_t k = threadIdx.x; k < n; k += kRowThreads)
      grad_in[row * n + k] = static_cast<T>(LayerNormMath<A>::input_grad(
          static_cast<A>(dy[k]) * value_or(weight, k, A(1)),
          LayerNormMath<A>::normalized(static_cast<A>(x[k]), m, rs), rs, mean_g, mean_gx));
  }
}

// grad_weight (grad_bias) may be null: not asked for.
template <typename T>
__global__ void layer_norm_affine_grads(T* __restrict__ grad_weight, T* __restrict__ grad_bias,
                                        const T* __restrict__ grad_out, const T* __restrict__ in,
                                        const opmath_t<T>* __restrict__ mean,
                                        const opmath_t<T>* __restrict__ rstd, int64_t rows, int64_t n) {
  using A = opmath_t<T>;
  for (int64_t k = flat_begin(); k < n; k += flat_stride()) {
    A gw = 0, gb = 0;
    for (int64_t row = 0; row < rows; ++row) {
      const A dy = static_cast<A>(grad_out[row * n + k]);
      gw += dy * LayerNormMath<A>::normalized(static_cast<A>(in[row * n + k]), mean[row], rstd[row]);
      gb += dy;
    }
    if (grad_weight) grad_weight[k] = static_cast<T>(gw);
    if (grad_bias) grad_bias[k] = static_cast<T>(gb);
  }
}

template <typename T>
T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

unsigned row_blocks(int64_t rows) {
  return static_cast<unsigned>(rows < 1 ? 1 : rows < kMaxFlatBlocks ? rows : kMaxFlatBlocks);
}

void layer_norm(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& input,
                const Tensor& weight, const Tensor& bias, double eps) {
  const int64_t rows = input.sizes()[0], n = input.sizes()[1];
  if (rows == 0) return;
  DeviceGuard guard(input.device());
  cudaStream_t stream = current_stream(input.device());
  dispatch_floating(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    layer_norm_rows<T><<<row_blocks(rows), kRowThreads, 0, stream>>>(
        out.data<T>(), mean.data<A>(), rstd.data<A>(), input.data<T>(), data_or_null<T>(weight),
        data_or_null<T>(bias), rows, n, static_cast<A>(eps));
    TANDEM_CUDA_CHECK_LAUNCH();
  });
}

void layer_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                         const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& rstd,
                         const Tensor& weight) {
  const int64_t rows = input.sizes()[0], n = input.sizes()[1];
  DeviceGuard guard(input.device());
  cudaStream_t stream = current_stream(input.device());
  dispatch_floating(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = opmath_t<T>;
    if (grad_input.defined() && rows > 0) {
      layer_norm_input_grad<T><<<row_blocks(rows), kRowThreads, 0, stream>>>(
          grad_input.data<T>(), grad_out.data<T>(), input.data<T>(), mean.data<A>(), rstd.data<A>(),
          data_or_null<T>(weight), rows, n);
      TANDEM_CUDA_CHECK_LAUNCH();
    }
    if ((grad_weight.defined() || grad_bias.defined()) && n > 0) {
      layer_norm_affine_grads<T><<<flat_blocks(n), kFlatBlock, 0, stream>>>(
          data_or_null<T>(grad_weight), data_or_null<T>(grad_bias), grad_out.data<T>(), input.data<T>(),
          mean.data<A>(), rstd.data<A>(), rows, n);
      TANDEM_CUDA_CHECK_LAUNCH();
    }
  });
}

}  // namespace

void register_norm_kernels(NnKernels& k) {
  k.layer_norm = &layer_norm;
  k.layer_norm_backward = &layer_norm_backward;
}

}  // namespace tandem::cuda
