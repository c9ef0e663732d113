// im2col and col2im on CUDA, one thread per element written. col2im gathers: each input element sums its own
// column entries in the CPU's order (ky, then kx), so results are deterministic and equal to the CPU's.
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "kernels/cuda/flat_launch.cuh"
#include "kernels/cuda/nn_parts.h"
#include "kernels/nn_kernels.h"

namespace tandem::cuda {

namespace {

// cols[(c, ky, kx), (n, oy, ox)] = input[n, c, oy*sh - ph + ky*dh, ox*sw - pw + kx*dw], 0 outside.
template <typename T>
__global__ void im2col_kernel(T* __restrict__ cols, const T* __restrict__ input, Window2d g, int64_t total) {
  const int64_t l = g.oh * g.ow, ncols = g.n * l;
  for (int64_t i = flat_begin(); i < total; i += flat_stride()) {
    const int64_t r = i / ncols, col = i % ncols;
    const int64_t c = r / (g.kh * g.kw), ky = (r / g.kw) % g.kh, kx = r % g.kw;
    const int64_t n = col / l, oy = (col % l) / g.ow, ox = col % g.ow;
    const int64_t iy = oy * g.sh - g.ph + ky * g.dh, ix = ox * g.sw - g.pw + kx * g.dw;
    const bool inside = iy >= 0 && iy < g.h && ix >= 0 && ix < g.w;
    cols[i] = inside ? input[((n * g.c + c) * g.h + iy) * g.w + ix] : T(0.0f);
  }
}

// grad_input[n, c, iy, ix] = the sum of the column entries im2col copied from there.
template <typename T>
__global__ void col2im_kernel(T* __restrict__ grad_input, const T* __restrict__ cols, Window2d g,
                              int64_t total) {
  using Acc = opmath_t<T>;
  const int64_t l = g.oh * g.ow, ncols = g.n * l;
  for (int64_t i = flat_begin(); i < total; i += flat_stride()) {
    const int64_t ix = i % g.w, iy = (i / g.w) % g.h, c = (i / (g.w * g.h)) % g.c, n = i / (g.w * g.h * g.c);
    Acc acc = 0;
    for (int64_t ky = 0; ky < g.kh; ++ky) {
      const int64_t ty = iy + g.ph - ky * g.dh;  // = oy * sh for the output row that reads iy at ky
      if (ty < 0 || ty % g.sh != 0 || ty / g.sh >= g.oh) continue;
      const int64_t oy = ty / g.sh;
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        const int64_t tx = ix + g.pw - kx * g.dw;
        if (tx < 0 || tx % g.sw != 0 || tx / g.sw >= g.ow) continue;
        const int64_t row = (c * g.kh + ky) * g.kw + kx;
        acc += static_cast<Acc>(cols[row * ncols + n * l + oy * g.ow + tx / g.sw]);
      }
    }
    grad_input[i] = static_cast<T>(acc);
  }
}

void im2col(const Tensor& cols, const Tensor& input, const Window2d& g) {
  const int64_t total = cols.numel();
  launch_flat_floating(cols, [&](auto tag, unsigned blocks, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    im2col_kernel<T><<<blocks, kFlatBlock, 0, stream>>>(cols.data<T>(), input.data<T>(), g, total);
  });
}

void col2im(const Tensor& grad_input, const Tensor& cols, const Window2d& g) {
  const int64_t total = grad_input.numel();
  launch_flat_floating(grad_input, [&](auto tag, unsigned blocks, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    col2im_kernel<T><<<blocks, kFlatBlock, 0, stream>>>(grad_input.data<T>(), cols.data<T>(), g, total);
  });
}

}  // namespace

void register_conv_kernels(NnKernels& k) {
  k.im2col = &im2col;
  k.col2im = &col2im;
}

}  // namespace tandem::cuda
