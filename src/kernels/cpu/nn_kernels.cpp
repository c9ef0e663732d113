// CPU kernels of the nn family: im2col/col2im for convolution and the pooling loops. Work is split over
// (channel) or (batch, channel) planes, so every thread writes its own rows.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/norm_kernels.h"
#include "kernels/cpu/optim_kernels.h"
#include "kernels/cpu/rnn_kernels.h"
#include "kernels/floating_dispatch.h"
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

// The outputs o in [0, out) whose input position o * stride + offset lies in [0, size): one contiguous run,
// so the copy and accumulate loops below have no per-element bounds test (and vectorise at stride 1).
struct Span {
  int64_t lo, hi;
};
Span inside(int64_t out, int64_t size, int64_t stride, int64_t offset) {
  const int64_t lo = std::min(out, offset >= 0 ? int64_t{0} : (stride - 1 - offset) / stride);
  const int64_t hi = size - 1 - offset < 0 ? int64_t{0} : (size - 1 - offset) / stride + 1;
  return {lo, std::clamp(hi, lo, out)};
}

// At stride 2 and dilation 1, kernel columns kx and kx + 1 read the even and odd elements of one input run:
// reading it once and splitting it into the two rows is one contiguous (vectorised) pass instead of two
// strided gathers (the gathers took 15% of a ConvTranspose2d(k4, s2) training step). Rows r (kx) and r + 1.
template <typename T>
void im2col_row_pair(T* __restrict row0, T* __restrict row1, const T* in, const Window2d& g, int64_t c,
                     int64_t ky, int64_t kx) {
  const int64_t l = g.oh * g.ow;
  const int64_t y_off = ky * g.dh - g.ph, x_off = kx - g.pw;
  const Span ys = inside(g.oh, g.h, g.sh, y_off);
  const Span x0 = inside(g.ow, g.w, 2, x_off), x1 = inside(g.ow, g.w, 2, x_off + 1);
  const int64_t lo = std::max(x0.lo, x1.lo), hi = std::max(lo, std::min(x0.hi, x1.hi));
  for (int64_t n = 0; n < g.n; ++n) {
    const T* plane = in + (n * g.c + c) * g.h * g.w;
    T* d0 = row0 + n * l;
    T* d1 = row1 + n * l;
    std::fill(d0, d0 + ys.lo * g.ow, T(0.0f));
    std::fill(d1, d1 + ys.lo * g.ow, T(0.0f));
    for (int64_t oy = ys.lo; oy < ys.hi; ++oy) {
      T* a = d0 + oy * g.ow;
      T* b = d1 + oy * g.ow;
      const T* src = plane + (oy * g.sh + y_off) * g.w + x_off;
      std::fill(a, a + g.ow, T(0.0f));
      std::fill(b, b + g.ow, T(0.0f));
      for (int64_t ox = x0.lo; ox < std::min(lo, x0.hi); ++ox) a[ox] = src[2 * ox];
      for (int64_t ox = x1.lo; ox < std::min(lo, x1.hi); ++ox) b[ox] = src[2 * ox + 1];
      for (int64_t ox = lo; ox < hi; ++ox) {
        a[ox] = src[2 * ox];
        b[ox] = src[2 * ox + 1];
      }
      for (int64_t ox = std::max(hi, x0.lo); ox < x0.hi; ++ox) a[ox] = src[2 * ox];
      for (int64_t ox = std::max(hi, x1.lo); ox < x1.hi; ++ox) b[ox] = src[2 * ox + 1];
    }
    std::fill(d0 + ys.hi * g.ow, d0 + l, T(0.0f));
    std::fill(d1 + ys.hi * g.ow, d1 + l, T(0.0f));
  }
}

// cols has rows (c, ky, kx) and columns (n, oy, ox). Padding columns of a row are the same for every (n, oy),
// so each output row is zeros, a copied run, zeros.
void im2col(const Tensor& cols, const Tensor& input, const Window2d& g) {
  dispatch_floating(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = input.data<T>();
    T* out = cols.data<T>();
    const int64_t l = g.oh * g.ow, ncols = g.n * l, rows = g.c * g.kh * g.kw;
    const bool pairs = g.sw == 2 && g.dw == 1 && g.kw > 1;
    parallel_for(0, rows, grain_for(ncols), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t c = r / (g.kh * g.kw), ky = (r / g.kw) % g.kh, kx = r % g.kw;
        if (pairs && kx % 2 == 0 && kx + 1 < g.kw && r + 1 < r1) {
          im2col_row_pair(out + r * ncols, out + (r + 1) * ncols, in, g, c, ky, kx);
          ++r;
          continue;
        }
        const int64_t y_off = ky * g.dh - g.ph, x_off = kx * g.dw - g.pw;
        const Span ys = inside(g.oh, g.h, g.sh, y_off), xs = inside(g.ow, g.w, g.sw, x_off);
        T* row = out + r * ncols;
        for (int64_t n = 0; n < g.n; ++n) {
          const T* plane = in + (n * g.c + c) * g.h * g.w;
          T* dst_n = row + n * l;
          std::fill(dst_n, dst_n + ys.lo * g.ow, T(0.0f));
          for (int64_t oy = ys.lo; oy < ys.hi; ++oy) {
            T* dst = dst_n + oy * g.ow;
            const T* src = plane + (oy * g.sh + y_off) * g.w + x_off;
            std::fill(dst, dst + xs.lo, T(0.0f));
            if (g.sw == 1) {
              std::copy(src + xs.lo, src + xs.hi, dst + xs.lo);
            } else {
              for (int64_t ox = xs.lo; ox < xs.hi; ++ox) dst[ox] = src[ox * g.sw];
            }
            std::fill(dst + xs.hi, dst + g.ow, T(0.0f));
          }
          std::fill(dst_n + ys.hi * g.ow, dst_n + l, T(0.0f));
        }
      }
    });
  });
}

// acc[(oy*sh + y_off) * w + ox*sw + x_off] += row[oy * ow + ox] over the window's valid outputs.
template <typename Acc, typename T>
void accumulate_window(Acc* __restrict acc, const T* __restrict row, const Window2d& g, int64_t ky,
                       int64_t kx) {
  const int64_t y_off = ky * g.dh - g.ph, x_off = kx * g.dw - g.pw;
  const Span ys = inside(g.oh, g.h, g.sh, y_off), xs = inside(g.ow, g.w, g.sw, x_off);
  for (int64_t oy = ys.lo; oy < ys.hi; ++oy) {
    Acc* dst = acc + (oy * g.sh + y_off) * g.w + x_off;
    const T* src = row + oy * g.ow;
    if (g.sw == 1) {
      for (int64_t ox = xs.lo; ox < xs.hi; ++ox) dst[ox] += static_cast<Acc>(src[ox]);
    } else {
      for (int64_t ox = xs.lo; ox < xs.hi; ++ox) dst[ox * g.sw] += static_cast<Acc>(src[ox]);
    }
  }
}

// At stride 2 and dilation 1, kernel columns kx and kx + 1 fill the even and odd elements of one run: adding
// the two rows interleaved is one contiguous (vectorised) pass instead of two strided ones. Every element
// still gets one entry, so the summation order is unchanged.
template <typename Acc, typename T>
void accumulate_window_pair(Acc* __restrict acc, const T* __restrict row0, const T* __restrict row1,
                            const Window2d& g, int64_t ky, int64_t kx) {
  const int64_t y_off = ky * g.dh - g.ph, x_off = kx - g.pw;
  const Span ys = inside(g.oh, g.h, g.sh, y_off);
  const Span x0 = inside(g.ow, g.w, 2, x_off), x1 = inside(g.ow, g.w, 2, x_off + 1);
  const int64_t lo = std::max(x0.lo, x1.lo), hi = std::max(lo, std::min(x0.hi, x1.hi));
  for (int64_t oy = ys.lo; oy < ys.hi; ++oy) {
    Acc* dst = acc + (oy * g.sh + y_off) * g.w + x_off;
    const T* s0 = row0 + oy * g.ow;
    const T* s1 = row1 + oy * g.ow;
    for (int64_t ox = x0.lo; ox < std::min(lo, x0.hi); ++ox) dst[2 * ox] += static_cast<Acc>(s0[ox]);
    for (int64_t ox = x1.lo; ox < std::min(lo, x1.hi); ++ox) dst[2 * ox + 1] += static_cast<Acc>(s1[ox]);
    for (int64_t ox = lo; ox < hi; ++ox) {
      dst[2 * ox] += static_cast<Acc>(s0[ox]);
      dst[2 * ox + 1] += static_cast<Acc>(s1[ox]);
    }
    for (int64_t ox = std::max(hi, x0.lo); ox < x0.hi; ++ox) dst[2 * ox] += static_cast<Acc>(s0[ox]);
    for (int64_t ox = std::max(hi, x1.lo); ox < x1.hi; ++ox) dst[2 * ox + 1] += static_cast<Acc>(s1[ox]);
  }
}

// Each (n, c) plane of grad_input gathers from its own kh*kw rows of cols, so planes run in parallel. Every
// input element sums its entries in (ky, kx) order, as the CUDA kernel does; float and double planes
// accumulate in place, narrower types in an Acc buffer.
void col2im(const Tensor& grad_input, const Tensor& cols, const Window2d& g) {
  dispatch_floating(cols.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = opmath_t<T>;
    const T* in = cols.data<T>();
    T* out = grad_input.data<T>();
    const int64_t l = g.oh * g.ow, ncols = g.n * l, hw = g.h * g.w;
    parallel_for(0, g.n * g.c, plane_grain(g), [&](int64_t p0, int64_t p1) {
      std::vector<Acc> buffer(std::is_same_v<Acc, T> ? 0 : hw);
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t n = p / g.c, c = p % g.c;
        T* dst = out + p * hw;
        Acc* acc;
        if constexpr (std::is_same_v<Acc, T>)
          acc = dst;
        else
          acc = buffer.data();
        std::fill(acc, acc + hw, Acc(0));
        const bool pairs = g.sw == 2 && g.dw == 1;
        for (int64_t ky = 0; ky < g.kh; ++ky) {
          const T* rows = in + (c * g.kh + ky) * g.kw * ncols + n * l;  // row kx at rows + kx * ncols
          for (int64_t kx = 0; kx < g.kw; ++kx) {
            if (pairs && kx + 1 < g.kw) {
              accumulate_window_pair(acc, rows + kx * ncols, rows + (kx + 1) * ncols, g, ky, kx);
              ++kx;
            } else {
              accumulate_window(acc, rows + kx * ncols, g, ky, kx);
            }
          }
        }
        if constexpr (!std::is_same_v<Acc, T>)
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
  register_norm_kernels(table);
  register_batch_norm_kernels(table);
}

TANDEM_CPU_KERNELS_END
