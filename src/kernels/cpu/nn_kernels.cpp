// CPU kernels of the nn family: im2col/col2im for convolution and the pooling loops. Work is split over
// (channel) or (batch, channel) planes, so every thread writes its own rows.
#include <algorithm>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/optim_kernels.h"
#include "kernels/cpu/rnn_kernels.h"
#include "kernels/kernel_table.h"
#include "kernels/pool_windows.h"

TANDEM_CPU_KERNELS_BEGIN

namespace {

// Rows/planes per task so that each task touches at least ~32k elements: a parallel region costs more than
// the loop below that, and every region is a point where a descheduled thread stalls the others.
int64_t grain_for(int64_t elements_per_item) {
  return std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(elements_per_item, 1));
}

// Planes per task for the per-(n, c)-plane loops (a plane reads h*w inputs and visits oh*ow windows).
int64_t plane_grain(const Window2d& g) { return grain_for(std::max(g.h * g.w, g.oh * g.ow * g.kh * g.kw)); }

template <typename Fn>
void dispatch_floating(DType d, Fn&& fn) {
  dispatch_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) fn(tag);
  });
}

// cols has rows (c, ky, kx) and columns (n, oy, ox).
void im2col(const Tensor& cols, const Tensor& input, const Window2d& g) {
  dispatch_floating(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = input.data<T>();
    T* out = cols.data<T>();
    const int64_t l = g.oh * g.ow, ncols = g.n * l, rows = g.c * g.kh * g.kw;
    parallel_for(0, rows, grain_for(ncols), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t c = r / (g.kh * g.kw), ky = (r / g.kw) % g.kh, kx = r % g.kw;
        T* row = out + r * ncols;
        for (int64_t n = 0; n < g.n; ++n) {
          const T* plane = in + (n * g.c + c) * g.h * g.w;
          for (int64_t oy = 0; oy < g.oh; ++oy) {
            const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
            T* dst = row + n * l + oy * g.ow;
            if (iy < 0 || iy >= g.h) {
              std::fill(dst, dst + g.ow, T(0.0f));
              continue;
            }
            const T* src = plane + iy * g.w;
            for (int64_t ox = 0; ox < g.ow; ++ox) {
              const int64_t ix = ox * g.sw - g.pw + kx * g.dw;
              dst[ox] = (ix >= 0 && ix < g.w) ? src[ix] : T(0.0f);
            }
          }
        }
      }
    });
  });
}

// Each (n, c) plane of grad_input gathers from its own kh*kw rows of cols, so planes run in parallel.
void col2im(const Tensor& grad_input, const Tensor& cols, const Window2d& g) {
  dispatch_floating(cols.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = opmath_t<T>;
    const T* in = cols.data<T>();
    T* out = grad_input.data<T>();
    const int64_t l = g.oh * g.ow, ncols = g.n * l, hw = g.h * g.w;
    parallel_for(0, g.n * g.c, plane_grain(g), [&](int64_t p0, int64_t p1) {
      std::vector<Acc> acc(hw);
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t n = p / g.c, c = p % g.c;
        std::fill(acc.begin(), acc.end(), Acc(0));
        for (int64_t ky = 0; ky < g.kh; ++ky)
          for (int64_t kx = 0; kx < g.kw; ++kx) {
            const T* row = in + ((c * g.kh + ky) * g.kw + kx) * ncols + n * l;
            for (int64_t oy = 0; oy < g.oh; ++oy) {
              const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
              if (iy < 0 || iy >= g.h) continue;
              for (int64_t ox = 0; ox < g.ow; ++ox) {
                const int64_t ix = ox * g.sw - g.pw + kx * g.dw;
                if (ix >= 0 && ix < g.w) acc[iy * g.w + ix] += static_cast<Acc>(row[oy * g.ow + ox]);
              }
            }
          }
        T* dst = out + p * hw;
        for (int64_t i = 0; i < hw; ++i) dst[i] = static_cast<T>(acc[i]);
      }
    });
  });
}

void max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input, const Window2d& g) {
  dispatch_floating(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = input.data<T>();
    T* o = out.data<T>();
    int64_t* idx = indices.data<int64_t>();
    parallel_for(0, g.n * g.c, plane_grain(g), [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const T* plane = in + p * g.h * g.w;
        for (int64_t oy = 0; oy < g.oh; ++oy)
          for (int64_t ox = 0; ox < g.ow; ++ox) {
            const WindowMax<T> best = max_in_window(plane, g, oy, ox);
            const int64_t at = (p * g.oh + oy) * g.ow + ox;
            o[at] = static_cast<T>(best.value);
            idx[at] = best.index;
          }
      }
    });
  });
}

void max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices,
                         const Window2d& g) {
  dispatch_floating(grad_out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = opmath_t<T>;
    const T* go = grad_out.data<T>();
    const int64_t* idx = indices.data<int64_t>();
    T* gi = grad_input.data<T>();
    const int64_t hw = g.h * g.w, ohw = g.oh * g.ow;
    parallel_for(0, g.n * g.c, plane_grain(g), [&](int64_t p0, int64_t p1) {
      std::vector<Acc> acc(hw);
      for (int64_t p = p0; p < p1; ++p) {
        std::fill(acc.begin(), acc.end(), Acc(0));
        for (int64_t i = 0; i < ohw; ++i)
          if (idx[p * ohw + i] >= 0) acc[idx[p * ohw + i]] += static_cast<Acc>(go[p * ohw + i]);
        for (int64_t i = 0; i < hw; ++i) gi[p * hw + i] = static_cast<T>(acc[i]);
      }
    });
  });
}

// Average pooling of either kind is a mean over a window per output pixel; only the window differs, so the
// forward and backward loops are written once over a window function (oy, ox) -> AvgWindow.
template <typename WindowFn>
void mean_over_windows(const Tensor& out, const Tensor& input, const Window2d& g, const WindowFn& window) {
  dispatch_floating(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = input.data<T>();
    T* o = out.data<T>();
    parallel_for(0, g.n * g.c, plane_grain(g), [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p)
        for (int64_t oy = 0; oy < g.oh; ++oy)
          for (int64_t ox = 0; ox < g.ow; ++ox) {
            o[(p * g.oh + oy) * g.ow + ox] =
                static_cast<T>(mean_in_window(in + p * g.h * g.w, g.w, window(oy, ox)));
          }
    });
  });
}

// The adjoint: each output gradient spreads evenly over its window (planes accumulate in Acc precision).
template <typename WindowFn>
void mean_over_windows_backward(const Tensor& grad_input, const Tensor& grad_out, const Window2d& g,
                                const WindowFn& window) {
  dispatch_floating(grad_out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = opmath_t<T>;
    const T* go = grad_out.data<T>();
    T* gi = grad_input.data<T>();
    const int64_t hw = g.h * g.w;
    parallel_for(0, g.n * g.c, plane_grain(g), [&](int64_t p0, int64_t p1) {
      std::vector<Acc> acc(hw);
      for (int64_t p = p0; p < p1; ++p) {
        std::fill(acc.begin(), acc.end(), Acc(0));
        for (int64_t oy = 0; oy < g.oh; ++oy)
          for (int64_t ox = 0; ox < g.ow; ++ox) {
            const AvgWindow w = window(oy, ox);
            const Acc v = static_cast<Acc>(go[(p * g.oh + oy) * g.ow + ox]) / static_cast<Acc>(w.divisor);
            for (int64_t y = w.y0; y < w.y1; ++y)
              for (int64_t x = w.x0; x < w.x1; ++x) acc[y * g.w + x] += v;
          }
        for (int64_t i = 0; i < hw; ++i) gi[p * hw + i] = static_cast<T>(acc[i]);
      }
    });
  });
}

void avg_pool2d(const Tensor& out, const Tensor& input, const Window2d& g, bool count_include_pad) {
  mean_over_windows(out, input, g,
                    [&](int64_t oy, int64_t ox) { return avg_window(g, oy, ox, count_include_pad); });
}
void avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Window2d& g,
                         bool count_include_pad) {
  mean_over_windows_backward(grad_input, grad_out, g, [&](int64_t oy, int64_t ox) {
    return avg_window(g, oy, ox, count_include_pad);
  });
}
void adaptive_avg_pool2d(const Tensor& out, const Tensor& input, const Window2d& g) {
  mean_over_windows(out, input, g, [&](int64_t oy, int64_t ox) { return adaptive_window(g, oy, ox); });
}
void adaptive_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Window2d& g) {
  mean_over_windows_backward(grad_input, grad_out, g,
                             [&](int64_t oy, int64_t ox) { return adaptive_window(g, oy, ox); });
}

}  // namespace

void register_nn_kernels(KernelTable& table) {
  NnKernels& k = table.nn;
  k.im2col = &im2col;
  k.col2im = &col2im;
  k.max_pool2d = &max_pool2d;
  k.max_pool2d_backward = &max_pool2d_backward;
  k.avg_pool2d = &avg_pool2d;
  k.avg_pool2d_backward = &avg_pool2d_backward;
  k.adaptive_avg_pool2d = &adaptive_avg_pool2d;
  k.adaptive_avg_pool2d_backward = &adaptive_avg_pool2d_backward;
  register_optim_kernels(table);
  register_rnn_kernels(table);
}

TANDEM_CPU_KERNELS_END
