// Portable 128-bit vectors through GCC/Clang vector extensions, for reduction loops the auto-vectoriser
// leaves scalar (without -ffast-math it may not reorder float folds). Arithmetic, comparisons (lane masks)
// and `mask ? a : b` work on these types as on scalars, so one templated expression serves both.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tandem::cpu {

template <typename T>
struct VecOf {
  typedef T type __attribute__((vector_size(16)));
};
template <typename T>
using vec_t = typename VecOf<T>::type;
template <typename T>
constexpr int64_t kVecWidth = 16 / sizeof(T);
// Types the vectors hold: plain arithmetic types (16-bit floats are stored types, not arithmetic ones).
template <typename T>
constexpr bool kSimdType = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

template <typename T>
inline vec_t<T> vload(const T* p) {
  vec_t<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
inline vec_t<T> vsplat(T x) {
  return vec_t<T>{} + x;
}
template <typename M>
inline bool any_lane(M m) {
  bool r = false;
  for (int64_t j = 0; j < static_cast<int64_t>(sizeof(M) / sizeof(m[0])); ++j) r |= m[j] != 0;
  return r;
}

}  // namespace tandem::cpu
