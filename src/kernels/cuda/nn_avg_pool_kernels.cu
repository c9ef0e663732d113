// avg_pool2d and adaptive_avg_pool2d with their backwards on CUDA. Both are a mean over a window per output
// (pool_windows.h, shared with the CPU), so each kernel is written once over a window rule. The backward
// gathers: each input element sums grad / divisor of the outputs whose window holds it, in the CPU's order.
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "kernels/cuda/flat_launch.cuh"
#include "kernels/cuda/nn_parts.h"
#include "kernels/pool_windows.h"

namespace tandem::cuda {

namespace {

struct AvgRule {
  Window2d g;
  bool count_include_pad;
  __device__ AvgWindow window(int64_t oy, int64_t ox) const {
    return avg_window(g, oy, ox, count_include_pad);
  }
  __device__ OutputRange rows_reaching(int64_t iy) const {
    return outputs_reaching(iy, g.sh, g.ph, g.kh, g.oh);
  }
  __device__ OutputRange cols_reaching(int64_t ix) const {
    return outputs_reaching(ix, g.sw, g.pw, g.kw, g.ow);
  }
};

struct AdaptiveRule {
  Window2d g;
  __device__ AvgWindow window(int64_t oy, int64_t ox) const { return adaptive_window(g, oy, ox); }
  __device__ OutputRange rows_reaching(int64_t iy) const { return adaptive_outputs_reaching(iy, g.oh, g.h); }
  __device__ OutputRange cols_reaching(int64_t ix) const { return adaptive_outputs_reaching(ix, g.ow, g.w); }
};

template <typename T, typename Rule>
__global__ void mean_pool_kernel(T* __restrict__ out, const T* __restrict__ input, Rule rule, int64_t total) {
  const Window2d& g = rule.g;
  for (int64_t i = flat_begin(); i < total; i += flat_stride()) {
    const int64_t ox = i % g.ow, oy = (i / g.ow) % g.oh, plane = i / (g.ow * g.oh);
    out[i] = static_cast<T>(mean_in_window(input + plane * g.h * g.w, g.w, rule.window(oy, ox)));
  }
}

template <typename T, typename Rule>
__global__ void mean_pool_backward_kernel(T* __restrict__ grad_input, const T* __restrict__ grad_out,
                                          Rule rule, int64_t total) {
  using Acc = opmath_t<T>;
  const Window2d& g = rule.g;
  for (int64_t i = flat_begin(); i < total; i += flat_stride()) {
    const int64_t ix = i % g.w, iy = (i / g.w) % g.h, plane = i / (g.w * g.h);
    const OutputRange rows = rule.rows_reaching(iy), cols = rule.cols_reaching(ix);
    const T* go = grad_out + plane * g.oh * g.ow;
    Acc acc = 0;
    for (int64_t oy = rows.first; oy <= rows.last; ++oy)
      for (int64_t ox = cols.first; ox <= cols.last; ++ox) {
        const AvgWindow w = rule.window(oy, ox);
        if (iy >= w.y0 && iy < w.y1 && ix >= w.x0 && ix < w.x1)
          acc += static_cast<Acc>(go[oy * g.ow + ox]) / static_cast<Acc>(w.divisor);
      }
    grad_input[i] = static_cast<T>(acc);
  }
}

template <typename Rule>
void mean_pool(const Tensor& out, const Tensor& input, const Rule& rule) {
  const int64_t total = out.numel();
  launch_flat_floating(out, [&](auto tag, unsigned blocks, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    mean_pool_kernel<T, Rule><<<blocks, kFlatBlock, 0, stream>>>(out.data<T>(), input.data<T>(), rule, total);
  });
}

template <typename Rule>
void mean_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const Rule& rule) {
  const int64_t total = grad_input.numel();
  launch_flat_floating(grad_input, [&](auto tag, unsigned blocks, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    mean_pool_backward_kernel<T, Rule>
        <<<blocks, kFlatBlock, 0, stream>>>(grad_input.data<T>(), grad_out.data<T>(), rule, total);
  });
}

void avg_pool2d(const Tensor& out, const Tensor& input, const Window2d& g, bool count_include_pad) {
  mean_pool(out, input, AvgRule{g, count_include_pad});
}
void avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Window2d& g,
                         bool count_include_pad) {
  mean_pool_backward(grad_input, grad_out, AvgRule{g, count_include_pad});
}
void adaptive_avg_pool2d(const Tensor& out, const Tensor& input, const Window2d& g) {
  mean_pool(out, input, AdaptiveRule{g});
}
void adaptive_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Window2d& g) {
  mean_pool_backward(grad_input, grad_out, AdaptiveRule{g});
}

}  // namespace

void register_avg_pool_kernels(NnKernels& k) {
  k.avg_pool2d = &avg_pool2d;
  k.avg_pool2d_backward = &avg_pool2d_backward;
  k.adaptive_avg_pool2d = &adaptive_avg_pool2d;
  k.adaptive_avg_pool2d_backward = &adaptive_avg_pool2d_backward;
}

}  // namespace tandem::cuda
