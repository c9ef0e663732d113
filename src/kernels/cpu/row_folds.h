// Row folds and 16-bit row conversions shared by the normalisation kernels (layer_norm: norm_kernels.cpp,
// batch_norm: batch_norm_kernels.cpp): sums over contiguous runs in explicit vectors with a double per block,
// and rows of float16/bfloat16 widened to float once so the math runs in the accumulation type.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/half_blocks.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/simd.h"

TANDEM_CPU_KERNELS_BEGIN

// Elements folded in vectors of A before the partial sum joins a double: a float32 row of any length keeps
// nearly double's accuracy in its sums, at one double add per block.
constexpr int64_t kFoldBlock = 1024;

// Σ term(at) over a contiguous row of n elements, where at(p) reads array p at the current index: a vector
// of kVectorBytes in the main loop, a scalar in the tail (vector-extension arithmetic serves both, simd.h).
// Explicit vectors because without -ffast-math the compiler may not reorder a float fold.
template <typename A, typename Term>
TANDEM_INLINE double fold_row(int64_t n, const Term& term) {
  using Vec = vec_t<A, kVectorBytes>;
  constexpr int64_t W = kVectorBytes / sizeof(A);
  double total = 0;
  for (int64_t b = 0; b < n; b += kFoldBlock) {
    const int64_t e = std::min(n, b + kFoldBlock);
    Vec s0{}, s1{}, s2{}, s3{};
    int64_t i = b;
    for (; i + 4 * W <= e; i += 4 * W) {
      s0 += term([&](const A* p) TANDEM_LAMBDA_INLINE { return vload<kVectorBytes>(p + i); });
      s1 += term([&](const A* p) TANDEM_LAMBDA_INLINE { return vload<kVectorBytes>(p + i + W); });
      s2 += term([&](const A* p) TANDEM_LAMBDA_INLINE { return vload<kVectorBytes>(p + i + 2 * W); });
      s3 += term([&](const A* p) TANDEM_LAMBDA_INLINE { return vload<kVectorBytes>(p + i + 3 * W); });
    }
    for (; i + W <= e; i += W)
      s0 += term([&](const A* p) TANDEM_LAMBDA_INLINE { return vload<kVectorBytes>(p + i); });
    s0 = (s0 + s1) + (s2 + s3);
    A s = 0;
    for (int64_t j = 0; j < W; ++j) s += s0[j];
    for (; i < e; ++i) s += term([&](const A* p) TANDEM_LAMBDA_INLINE { return p[i]; });
    total += s;
  }
  return total;
}

// A row of T as A values: the row itself when T is A, else widened into buf.
template <typename T, typename A = opmath_t<T>>
TANDEM_INLINE const A* row_values(const T* row, int64_t n, A* buf) {
  if constexpr (std::is_same_v<T, A>) {
    return row;
  } else {
    widen_halves(row, buf, n);
    return buf;
  }
}

// Where a row of T is computed in A: the row itself when T is A, else buf (then store_row narrows it).
template <typename T, typename A = opmath_t<T>>
TANDEM_INLINE A* row_destination(T* row, A* buf) {
  if constexpr (std::is_same_v<T, A>)
    return row;
  else
    return buf;
}
template <typename T, typename A = opmath_t<T>>
TANDEM_INLINE void store_row(const A* buf, T* row, int64_t n) {
  if constexpr (!std::is_same_v<T, A>) narrow_to_halves(buf, row, n);
}

// The weight (or bias) as A values: the tensor's own data when it holds A, else a widened copy; `absent`
// everywhere when it is undefined.
template <typename T, typename A = opmath_t<T>>
const A* affine_values(const Tensor& t, int64_t n, A absent, std::vector<A>& buf) {
  if constexpr (std::is_same_v<T, A>) {
    if (t.defined()) return t.data<T>();
  }
  buf.assign(n, absent);
  if (t.defined()) {
    const T* p = t.data<T>();
    for (int64_t i = 0; i < n; ++i) buf[i] = static_cast<A>(p[i]);
  }
  return buf.data();
}

TANDEM_CPU_KERNELS_END
