// CPU softmax and log_softmax of a contiguous tensor seen as [outer, n, inner] (see reduce_kernels.h). A row
// takes three passes (max, sum of exp, write) over data a thread just touched, instead of the five full
// passes and three temporaries of the composite amax/sub/exp/sum/div.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/reduce_fold.h"

namespace tandem::cpu {

namespace {

// exp in the accumulation type: the vectorisable float exp for float (and 16-bit floats), libm for double.
template <typename A>
TANDEM_INLINE A exp_acc(A x) {
  if constexpr (std::is_same_v<A, float>)
    return vector_expf(x);
  else
    return std::exp(x);
}

// Rows of stride 1 (inner == 1). Folds run in kLanes independent accumulators so they vectorise without
// reordering a single sum.
template <typename T>
void softmax_rows(T* out, const T* in, int64_t n, bool log_space) {
  using A = opmath_t<T>;
  constexpr int64_t kLanes = 64 / sizeof(A);
  A lanes[kLanes];
  std::fill(lanes, lanes + kLanes, -std::numeric_limits<A>::infinity());
  int64_t i = 0;
  // A NaN never wins the max; it reaches every output through the sum instead.
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) {
      A x = static_cast<A>(in[i + j]);
      lanes[j] = x > lanes[j] ? x : lanes[j];
    }
  A m = -std::numeric_limits<A>::infinity();
  for (; i < n; ++i) m = std::max(m, static_cast<A>(in[i]));
  for (A x : lanes) m = std::max(m, x);

  // double stores its (costly) exps and rescales them; float and 16-bit floats recompute the cheap float exp
  // in the last pass instead, so 16-bit outputs are rounded once.
  constexpr bool kStoreExp = std::is_same_v<T, double>;
  std::fill(lanes, lanes + kLanes, A(0));
  for (i = 0; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) {
      A e = exp_acc(static_cast<A>(in[i + j]) - m);
      if constexpr (kStoreExp)
        if (!log_space) out[i + j] = e;
      lanes[j] += e;
    }
  A s = 0;
  for (; i < n; ++i) {
    A e = exp_acc(static_cast<A>(in[i]) - m);
    if constexpr (kStoreExp)
      if (!log_space) out[i] = e;
    s += e;
  }
  for (A x : lanes) s += x;

  if (log_space) {
    A log_s = std::log(s);
    for (i = 0; i < n; ++i) out[i] = convert<T>((static_cast<A>(in[i]) - m) - log_s);
  } else if constexpr (kStoreExp) {
    A inv = A(1) / s;
    for (i = 0; i < n; ++i) out[i] *= inv;
  } else {
    A inv = A(1) / s;
    for (i = 0; i < n; ++i) out[i] = convert<T>(exp_acc(static_cast<A>(in[i]) - m) * inv);
  }
}

// Softmax over the middle dim of one [n, inner] slab, for columns [j0, j0 + w) at once: every pass walks
// whole rows of w contiguous columns, vectorised across the columns.
constexpr int64_t kColumnTile = 64;

template <typename T>
void softmax_columns(T* out, const T* in, int64_t n, int64_t inner, int64_t j0, int64_t w, bool log_space) {
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
  for (int64_t r = 0; r < n; ++r) {
    const T* x = in + r * inner + j0;
    for (int64_t j = 0; j < w; ++j) s[j] += exp_acc(static_cast<A>(x[j]) - m[j]);
  }
  for (int64_t j = 0; j < w; ++j) s[j] = log_space ? std::log(s[j]) : A(1) / s[j];
  for (int64_t r = 0; r < n; ++r) {
    const T* x = in + r * inner + j0;
    T* y = out + r * inner + j0;
    if (log_space)
      for (int64_t j = 0; j < w; ++j) y[j] = convert<T>((static_cast<A>(x[j]) - m[j]) - s[j]);
    else
      for (int64_t j = 0; j < w; ++j) y[j] = convert<T>(exp_acc(static_cast<A>(x[j]) - m[j]) * s[j]);
  }
}

}  // namespace

void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log_space) {
  int64_t outer = 1, n = 1, inner = 1;
  for (int64_t d = 0; d < in.dim(); ++d) (d < dim ? outer : d == dim ? n : inner) *= in.sizes()[d];
  dispatch_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      const T* src = in.data<T>();
      T* dst = out.data<T>();
      // An exp costs about as much as ten additions: weigh rows accordingly when splitting work.
      constexpr int64_t kCostPerElement = 8;
      if (inner == 1) {
        parallel_over_outputs(outer, n * kCostPerElement, [&](int64_t b, int64_t e) {
          for (int64_t o = b; o < e; ++o) softmax_rows(dst + o * n, src + o * n, n, log_space);
        });
        return;
      }
      int64_t tiles = (inner + kColumnTile - 1) / kColumnTile;
      parallel_over_outputs(outer * tiles, n * kColumnTile * kCostPerElement, [&](int64_t b, int64_t e) {
        for (int64_t u = b; u < e; ++u) {
          int64_t o = u / tiles, j0 = (u % tiles) * kColumnTile;
          softmax_columns(dst + o * n * inner, src + o * n * inner, n, inner, j0,
                          std::min(kColumnTile, inner - j0), log_space);
        }
      });
    }
  });
}

}  // namespace tandem::cpu
