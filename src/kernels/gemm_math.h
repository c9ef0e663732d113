// The per-element math of the matrix-product kernels that do not go to BLAS, written once for the CPU and
// CUDA loops: the accumulator type of each dtype, and the beta * out term of a product over an empty inner
// dim.
#pragma once
#include <cstdint>
#include <type_traits>

#include "core/dtype.h"
#include "core/macros.h"

namespace tandem {

// 16-bit floats accumulate in float. Integers accumulate in wrapping 64-bit arithmetic, so overflow wraps as
// in PyTorch without undefined behaviour.
template <typename T>
struct GemmAccumulator {
  using type = opmath_t<T>;
  static TANDEM_HOST_DEVICE TANDEM_INLINE type load(T v) { return static_cast<type>(v); }
  static TANDEM_HOST_DEVICE TANDEM_INLINE T store(type v) { return static_cast<T>(v); }
  static type scalar(double s) { return static_cast<type>(s); }
};
template <typename T>
requires std::is_integral_v<T>
struct GemmAccumulator<T> {
  using type = uint64_t;
  static TANDEM_HOST_DEVICE TANDEM_INLINE type load(T v) {
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  }
  static TANDEM_HOST_DEVICE TANDEM_INLINE T store(type v) { return static_cast<T>(static_cast<int64_t>(v)); }
  // alpha and beta of an integer product are integers (the front ends pass whole numbers).
  static type scalar(double s) { return static_cast<uint64_t>(static_cast<int64_t>(s)); }
};

// alpha * (empty sum) + beta * out: beta == 0 gives zero without reading out (NaN there does not propagate).
template <typename T>
TANDEM_HOST_DEVICE TANDEM_INLINE T scale_by_beta(T out, double beta) {
  if constexpr (std::is_same_v<T, bool>) {
    return beta != 0 && out;
  } else if constexpr (std::is_integral_v<T>) {
    if (beta == 0) return T(0);
    const uint64_t b = static_cast<uint64_t>(static_cast<int64_t>(beta));
    return static_cast<T>(static_cast<int64_t>(b * static_cast<uint64_t>(static_cast<int64_t>(out))));
  } else if constexpr (is_complex_type_v<T>) {
    using V = typename T::value_type;
    return beta == 0 ? T(V(0)) : T(out.re * static_cast<V>(beta), out.im * static_cast<V>(beta));
  } else {
    return beta == 0 ? T(0.0f) : static_cast<T>(beta * static_cast<double>(out));
  }
}

}  // namespace tandem
