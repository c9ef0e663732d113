// Portable vectors through GCC/Clang vector extensions, for reduction loops the auto-vectoriser leaves
// scalar (without -ffast-math it may not reorder float folds). Arithmetic, comparisons (lane masks) and
// `mask ? a : b` work on these types as on scalars, so one templated expression serves both.
//
// Hot loops are written once over a vector width B and instantiated with kVectorBytes, the width of the
// capability this file is compiled for (kernels/cpu/isa_region.h).
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/macros.h"
#include "kernels/cpu/isa_region.h"

// Lambdas inside the hot loops: inlined like TANDEM_INLINE functions, so they take the caller's target.
#define TANDEM_LAMBDA_INLINE __attribute__((always_inline))

// 32-byte vectors passed by value would change the ABI without AVX; they never cross a call here.
#pragma GCC diagnostic ignored "-Wpsabi"

TANDEM_CPU_KERNELS_BEGIN

// Bytes per vector register of this build's capability: SSE2/NEON 16, AVX2 32, AVX-512 64.
constexpr int kVectorBytes = TANDEM_CPU_CAPABILITY_LEVEL == 2   ? 64
                             : TANDEM_CPU_CAPABILITY_LEVEL == 1 ? 32
                                                                : 16;

template <typename T, int B>
struct VecOf {
  typedef T type __attribute__((vector_size(B)));
};
template <typename T, int B>
using vec_t = typename VecOf<T, B>::type;
// Types the vectors hold: plain arithmetic types (16-bit floats are storage types, not arithmetic ones).
template <typename T>
constexpr bool kSimdType = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

template <int B, typename T>
TANDEM_INLINE vec_t<T, B> vload(const T* p) {
  vec_t<T, B> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <int B, typename T>
TANDEM_INLINE vec_t<T, B> vsplat(T x) {
  return vec_t<T, B>{} + x;
}
// Lanes [0, L/2) and [L/2, L) of an L-lane vector (L = 4, 8 or 16), as shuffles so nothing goes through
// memory.
template <typename V>
TANDEM_INLINE auto split_halves(V v) {
  constexpr int L = sizeof(V) / sizeof(v[0]);
  static_assert(L == 4 || L == 8 || L == 16);
  if constexpr (L == 4)
    return std::pair{__builtin_shufflevector(v, v, 0, 1), __builtin_shufflevector(v, v, 2, 3)};
  else if constexpr (L == 8)
    return std::pair{__builtin_shufflevector(v, v, 0, 1, 2, 3), __builtin_shufflevector(v, v, 4, 5, 6, 7)};
  else
    return std::pair{__builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7),
                     __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15)};
}
// True when any lane of a comparison mask is set (tested as 64-bit words, not lane by lane).
template <typename M>
TANDEM_INLINE bool any_lane(M m) {
  uint64_t w[sizeof(M) / 8];
  std::memcpy(w, &m, sizeof w);
  uint64_t r = 0;
  for (uint64_t x : w) r |= x;
  return r != 0;
}

// Index of the first set lane of a mask whose lanes are LaneBytes wide (the mask must have one set).
template <int LaneBytes, typename M>
TANDEM_INLINE int64_t first_lane(M m) {
  uint64_t w[sizeof(M) / 8];
  std::memcpy(w, &m, sizeof w);
  int64_t k = 0;
  while (w[k] == 0) ++k;
  return k * (8 / LaneBytes) + __builtin_ctzll(w[k]) / (8 * LaneBytes);
}

TANDEM_CPU_KERNELS_END
