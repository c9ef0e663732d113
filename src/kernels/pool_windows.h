// The per-window math of pooling, written once for the CPU and CUDA kernels: which input a window covers,
// what an average divides by, and how a max treats NaN and padding.
#pragma once
#include <cstdint>
#include <limits>

#include "core/dtype.h"
#include "core/macros.h"
#include "kernels/nn_kernels.h"

namespace tandem {

// The window of output (oy, ox) clipped to the input: rows [y0, y1), columns [x0, x1), and the divisor.
struct AvgWindow {
  int64_t y0, y1, x0, x1, divisor;
};

TANDEM_HOST_DEVICE TANDEM_INLINE int64_t min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
TANDEM_HOST_DEVICE TANDEM_INLINE int64_t max_i64(int64_t a, int64_t b) { return a < b ? b : a; }

// avg_pool2d: the divisor PyTorch uses counts the padding inside the window when count_include_pad (but
// never the part of a ceil_mode window beyond the padding), and only the real input otherwise.
TANDEM_HOST_DEVICE TANDEM_INLINE AvgWindow avg_window(const Window2d& g, int64_t oy, int64_t ox,
                                                      bool count_include_pad) {
  int64_t y0 = oy * g.sh - g.ph, x0 = ox * g.sw - g.pw;
  int64_t y1 = min_i64(y0 + g.kh, g.h + g.ph), x1 = min_i64(x0 + g.kw, g.w + g.pw);
  const int64_t padded = (y1 - y0) * (x1 - x0);
  y0 = max_i64(y0, 0);
  x0 = max_i64(x0, 0);
  y1 = min_i64(y1, g.h);
  x1 = min_i64(x1, g.w);
  return {y0, y1, x0, x1, count_include_pad ? padded : (y1 - y0) * (x1 - x0)};
}

// Adaptive pooling: output i covers input [floor(i*in/out), ceil((i+1)*in/out)) along each axis.
TANDEM_HOST_DEVICE TANDEM_INLINE int64_t adaptive_start(int64_t i, int64_t out, int64_t in) {
  return (i * in) / out;
}
TANDEM_HOST_DEVICE TANDEM_INLINE int64_t adaptive_end(int64_t i, int64_t out, int64_t in) {
  return ((i + 1) * in + out - 1) / out;
}
TANDEM_HOST_DEVICE TANDEM_INLINE AvgWindow adaptive_window(const Window2d& g, int64_t oy, int64_t ox) {
  const int64_t y0 = adaptive_start(oy, g.oh, g.h), y1 = adaptive_end(oy, g.oh, g.h);
  const int64_t x0 = adaptive_start(ox, g.ow, g.w), x1 = adaptive_end(ox, g.ow, g.w);
  return {y0, y1, x0, x1, (y1 - y0) * (x1 - x0)};
}

// The outputs [first, last] (empty when first > last) among `count` whose window reads input position i,
// for windows with this stride and padding spanning `span` inputs (o covers o*stride - pad ... o*stride -
// pad + span - 1). Backward kernels that gather (each input element sums its own contributions) visit these.
struct OutputRange {
  int64_t first, last;
};
TANDEM_HOST_DEVICE TANDEM_INLINE OutputRange outputs_reaching(int64_t i, int64_t stride, int64_t pad,
                                                              int64_t span, int64_t count) {
  const int64_t lo = i + pad - span + 1;  // o * stride >= lo
  return {lo <= 0 ? 0 : (lo + stride - 1) / stride, min_i64((i + pad) / stride, count - 1)};
}
// The same for adaptive pooling: output o covers [floor(o*in/out), ceil((o+1)*in/out)), so input j is read
// by outputs floor(j*out/in) ... floor(((j+1)*out - 1)/in).
TANDEM_HOST_DEVICE TANDEM_INLINE OutputRange adaptive_outputs_reaching(int64_t j, int64_t out, int64_t in) {
  return {j * out / in, min_i64(((j + 1) * out - 1) / in, out - 1)};
}

// The max over window (oy, ox) of one h x w plane and its flat position there. Padding never wins; the first
// NaN wins and ends the search, as in PyTorch. A window entirely in the padding gives -inf at position -1.
template <typename T>
struct WindowMax {
  opmath_t<T> value;
  int64_t index;
};
template <typename T>
TANDEM_HOST_DEVICE TANDEM_INLINE WindowMax<T> max_in_window(const T* plane, const Window2d& g, int64_t oy,
                                                            int64_t ox) {
  using Acc = opmath_t<T>;
  WindowMax<T> best{-std::numeric_limits<Acc>::infinity(), -1};
  for (int64_t ky = 0; ky < g.kh; ++ky) {
    const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
    if (iy < 0 || iy >= g.h) continue;
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      const int64_t ix = ox * g.sw - g.pw + kx * g.dw;
      if (ix < 0 || ix >= g.w) continue;
      const Acc v = static_cast<Acc>(plane[iy * g.w + ix]);
      const bool nan = v != v;
      if (best.index < 0 || v > best.value || nan) {
        best = {v, iy * g.w + ix};
        if (nan) return best;
      }
    }
  }
  return best;
}

// The mean of one h x w plane over a window, summed row by row in Acc precision.
template <typename T>
TANDEM_HOST_DEVICE TANDEM_INLINE opmath_t<T> mean_in_window(const T* plane, int64_t w, const AvgWindow& win) {
  using Acc = opmath_t<T>;
  Acc s = 0;
  for (int64_t y = win.y0; y < win.y1; ++y)
    for (int64_t x = win.x0; x < win.x1; ++x) s += static_cast<Acc>(plane[y * w + x]);
  return s / static_cast<Acc>(win.divisor);
}

}  // namespace tandem
