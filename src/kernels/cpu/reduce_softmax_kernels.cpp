// CPU softmax and log_softmax of a contiguous tensor seen as [outer, n, inner] (see reduce_kernels.h). A row
// takes three passes (max, sum of exp, write) over data a thread just touched, instead of the five full
// passes and three temporaries of the composite amax/sub/exp/sum/div.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/half_blocks.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/reduce_fold.h"
#include "kernels/cpu/simd.h"

TANDEM_CPU_KERNELS_BEGIN

namespace {

// exp in the accumulation type of x - max <= 0 (NaN where the row's max is NaN or -inf): the vectorisable
// float exp of nonpositive arguments for float (and 16-bit floats), libm for double.
template <typename A>
TANDEM_INLINE A exp_acc(A x) {
  if constexpr (std::is_same_v<A, float>)
    return x != x ? x : vector_exp_nonpositivef(x);
  else
    return std::exp(x);
}

// Folds over a contiguous row of the accumulation type in explicit vectors of the capability's width,
// kVectorBytes (four accumulators): a plain loop would stay scalar, since without -ffast-math the compiler
// may not reorder a float fold. (Vectors wider than the registers are split into scalars, not into two
// registers: that kept the AVX2 build's folds scalar when this was a fixed 64.)

// e[k] = exp(x[k] - m) for k < n: plain elementwise loops the compiler vectorises, flattened so the
// branch-free exp is inlined whatever the inlining heuristics decide (as unary_strip in loops.h). Without
// restrict (or the in-place form) GCC kept the loop scalar.
template <typename A>
[[gnu::noinline, gnu::flatten]] void exp_shifted(const A* __restrict x, int64_t n, A m, A* __restrict e) {
  for (int64_t k = 0; k < n; ++k) e[k] = exp_acc(x[k] - m);
}
template <typename A>
[[gnu::noinline, gnu::flatten]] void exp_shifted_in_place(A* e, int64_t n, A m) {
  for (int64_t k = 0; k < n; ++k) e[k] = exp_acc(e[k] - m);
}

template <typename A>
A row_max(const A* x, int64_t n) {
  using Vec = vec_t<A, kVectorBytes>;
  constexpr int64_t W = kVectorBytes / sizeof(A);
  const A lowest = -std::numeric_limits<A>::infinity();
  Vec m0 = vsplat<kVectorBytes>(lowest), m1 = m0, m2 = m0, m3 = m0;
  int64_t i = 0;
  // x > m ? x : m is one max instruction; a NaN never wins it but reaches every output through the sum.
  for (; i + 4 * W <= n; i += 4 * W) {
    Vec x0 = vload<kVectorBytes>(x + i), x1 = vload<kVectorBytes>(x + i + W),
        x2 = vload<kVectorBytes>(x + i + 2 * W), x3 = vload<kVectorBytes>(x + i + 3 * W);
    m0 = x0 > m0 ? x0 : m0, m1 = x1 > m1 ? x1 : m1, m2 = x2 > m2 ? x2 : m2, m3 = x3 > m3 ? x3 : m3;
  }
  m0 = m1 > m0 ? m1 : m0, m2 = m3 > m2 ? m3 : m2, m0 = m2 > m0 ? m2 : m0;
  A m = lowest;
  for (int64_t j = 0; j < W; ++j) m = std::max(m, static_cast<A>(m0[j]));
  for (; i < n; ++i) m = std::max(m, x[i]);
  return m;
}

// Sum of exp(x - m) over a contiguous row, writing each exp to e (which may be x itself). Exps are computed
// a block at a time by a vectorisable elementwise loop, then summed in vectors.
template <typename A>
A row_sum_exp(const A* x, int64_t n, A m, A* e) {
  using Vec = vec_t<A, kVectorBytes>;
  constexpr int64_t W = kVectorBytes / sizeof(A), kBlock = 16 * W;
  Vec s0{}, s1{};
  A s = 0;
  for (int64_t i = 0; i < n; i += kBlock) {
    int64_t len = std::min(kBlock, n - i);
    if (x == e)
      exp_shifted_in_place(e + i, len, m);
    else
      exp_shifted(x + i, len, m, e + i);
    int64_t k = 0;
    for (; k + 2 * W <= len; k += 2 * W)
      s0 += vload<kVectorBytes>(e + i + k), s1 += vload<kVectorBytes>(e + i + k + W);
    for (; k < len; ++k) s += e[i + k];
  }
  s0 += s1;
  for (int64_t j = 0; j < W; ++j) s += s0[j];
  return s;
}

// A row of stride 1 (inner == 1): one exp per element. The exps go to the output (rescaled there, or
// overwritten by log_softmax's result); a 16-bit row is first widened into `buf` (n floats), which then
// holds its exps, so the output is rounded once.
template <typename T, bool LogSpace>
void softmax_row(T* out, const T* in, int64_t n, opmath_t<T>* buf) {
  using A = opmath_t<T>;
  const A* x;
  if constexpr (std::is_same_v<T, A>) {
    x = in;
  } else if constexpr (kHalfFloat<T>) {
    widen_halves(in, buf, n);
    x = buf;
  } else {
    for (int64_t i = 0; i < n; ++i) buf[i] = static_cast<A>(in[i]);
    x = buf;
  }
  A m = row_max(x, n);
  if constexpr (LogSpace) {
    A* e = buf;
    if constexpr (std::is_same_v<T, A>) e = out;
    const A sum = row_sum_exp(x, n, m, e);
    // PyTorch's CPU kernel keeps a 16-bit row's sum of exps and its log in the row's type: both round to T
    // (a fifth of a float16 row's results move by an ulp otherwise). Its other layouts do not round.
    const auto in_t = [](A v) { return std::is_same_v<T, A> ? v : static_cast<A>(convert<T>(v)); };
    const A log_s = in_t(std::log(in_t(sum)));
    for (int64_t i = 0; i < n; ++i) out[i] = convert<T>((static_cast<A>(in[i]) - m) - log_s);
  } else if constexpr (std::is_same_v<T, A>) {
    A inv = A(1) / row_sum_exp(x, n, m, out);
    for (int64_t i = 0; i < n; ++i) out[i] *= inv;
  } else {
    A inv = A(1) / row_sum_exp(x, n, m, buf);
    for (int64_t i = 0; i < n; ++i) buf[i] *= inv;
    if constexpr (kHalfFloat<T>)
      narrow_to_halves(buf, out, n);
    else
      for (int64_t i = 0; i < n; ++i) out[i] = convert<T>(buf[i]);
  }
}

// Softmax over the middle dim of one [n, inner] slab, for columns [j0, j0 + w) at once: every pass walks
// whole rows of w contiguous columns, vectorised across the columns.
constexpr int64_t kColumnTile = 64;

template <typename T, bool LogSpace>
void softmax_columns(T* out, const T* in, int64_t n, int64_t inner, int64_t j0, int64_t w) {
  using A = opmath_t<T>;
  A m[kColumnTile], s[kColumnTile];
  std::fill(m, m + w, -std::numeric_limits<A>::infinity());
  std::fill(s, s + w, A(0));
  for (int64_t r = 0; r < n; ++r) {
    const T* x = in + r * inner + j0;
    for (int64_t j = 0; j < w; ++j) {
      A v = static_cast<A>(x[j]);
      m[j] = v > m[j] ? v : m[j];
    }
  }
  constexpr bool kStoreExp = std::is_same_v<T, A>;  // the exps go to the output, rescaled in place
  for (int64_t r = 0; r < n; ++r) {
    const T* x = in + r * inner + j0;
    T* y = out + r * inner + j0;
    for (int64_t j = 0; j < w; ++j) {
      A e = exp_acc(static_cast<A>(x[j]) - m[j]);
      if constexpr (kStoreExp && !LogSpace) y[j] = e;
      s[j] += e;
    }
  }
  for (int64_t j = 0; j < w; ++j) s[j] = LogSpace ? std::log(s[j]) : A(1) / s[j];
  for (int64_t r = 0; r < n; ++r) {
    const T* x = in + r * inner + j0;
    T* y = out + r * inner + j0;
    if constexpr (LogSpace)
      for (int64_t j = 0; j < w; ++j) y[j] = convert<T>((static_cast<A>(x[j]) - m[j]) - s[j]);
    else if constexpr (kStoreExp)
      for (int64_t j = 0; j < w; ++j) y[j] *= s[j];
    else
      for (int64_t j = 0; j < w; ++j) y[j] = convert<T>(exp_acc(static_cast<A>(x[j]) - m[j]) * s[j]);
  }
}

template <typename T, bool LogSpace>
void run_softmax(T* dst, const T* src, int64_t outer, int64_t n, int64_t inner) {
  // An exp costs about as much as ten additions: weigh rows accordingly when splitting work.
  constexpr int64_t kCostPerElement = 8;
  if (inner == 1) {
    constexpr bool kNeedsBuffer = !std::is_same_v<T, opmath_t<T>>;
    parallel_over_outputs(outer, n * kCostPerElement, [&](int64_t b, int64_t e) {
      std::vector<opmath_t<T>> buf(kNeedsBuffer ? static_cast<size_t>(n) : 0);
      for (int64_t o = b; o < e; ++o) softmax_row<T, LogSpace>(dst + o * n, src + o * n, n, buf.data());
    });
    return;
  }
  int64_t tiles = (inner + kColumnTile - 1) / kColumnTile;
  parallel_over_outputs(outer * tiles, n * kColumnTile * kCostPerElement, [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      int64_t o = u / tiles, j0 = (u % tiles) * kColumnTile;
      softmax_columns<T, LogSpace>(dst + o * n * inner, src + o * n * inner, n, inner, j0,
                                   std::min(kColumnTile, inner - j0));
    }
  });
}

}  // namespace

void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log_space) {
  int64_t outer = 1, n = 1, inner = 1;
  for (int64_t d = 0; d < in.dim(); ++d) (d < dim ? outer : d == dim ? n : inner) *= in.sizes()[d];
  dispatch_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      if (log_space)
        run_softmax<T, true>(out.data<T>(), in.data<T>(), outer, n, inner);
      else
        run_softmax<T, false>(out.data<T>(), in.data<T>(), outer, n, inner);
    }
  });
}

TANDEM_CPU_KERNELS_END
