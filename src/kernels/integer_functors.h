// The integer ops of the op list (gcd, lcm, the shifts) and the sign-bit and step functions, written once for
// the CPU and CUDA loops, with PyTorch's results at the edges: shifts by a negative amount or by the width or
// more give 0 (right shifts of negative values -1), gcd and lcm are non-negative (gcd(INT64_MIN, 0) wraps),
// integer overflow wraps.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/dtype.h"
#include "core/macros.h"

namespace tandem {

namespace integer_math {
template <typename T>
TANDEM_HOST_DEVICE bool is_negative(T v) {
  if constexpr (std::is_signed_v<T>)
    return v < 0;
  else
    return false;
}
// |v| with two's-complement wrapping (|INT_MIN| is INT_MIN), as the value PyTorch stores.
template <typename T>
TANDEM_HOST_DEVICE T wrapping_abs(T v) {
  if constexpr (std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return v < 0 ? static_cast<T>(U(0) - static_cast<U>(v)) : v;
  } else {
    return v;
  }
}
template <typename T>
TANDEM_HOST_DEVICE T gcd(T a, T b) {
  a = wrapping_abs(a);
  b = wrapping_abs(b);
  while (a != 0) {
    const T c = a;
    a = static_cast<T>(b % a);
    b = c;
  }
  return b;
}
}  // namespace integer_math

struct GcdOp {
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
      return integer_math::gcd(a, b);
    else
      return a;  // not instantiated for other dtypes by the front end
  }
};
struct LcmOp {
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const T g = integer_math::gcd(a, b);
      if (g == 0) return 0;
      // |a / g * b| as PyTorch computes it: int8/int16 in int (the absolute value taken before the result
      // wraps to T: int8 lcm(-12, 33) = 132 -> -124), wider types wrapping in T
      using W = std::conditional_t<(sizeof(T) < sizeof(int)), int, T>;
      using U = std::make_unsigned_t<W>;
      const W product =
          static_cast<W>(static_cast<U>(static_cast<W>(a / g)) * static_cast<U>(static_cast<W>(b)));
      return static_cast<T>(integer_math::wrapping_abs(product));
    } else {
      return a;
    }
  }
};

struct LeftShiftOp {
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T a, T b) const {
    using integer_math::is_negative;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      constexpr int64_t bits = sizeof(T) * 8;
      if (is_negative(b) || static_cast<int64_t>(b) >= bits) return 0;
      using U = std::make_unsigned_t<std::conditional_t<(sizeof(T) < sizeof(int)), int, T>>;
      return static_cast<T>(static_cast<U>(a) << static_cast<U>(b));
    } else {
      return a;
    }
  }
};
struct RightShiftOp {
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T a, T b) const {
    using integer_math::is_negative;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      constexpr int64_t bits = sizeof(T) * 8;
      if (is_negative(b) || static_cast<int64_t>(b) >= bits) return is_negative(a) ? T(-1) : T(0);
      return static_cast<T>(a >> b);  // arithmetic for signed types
    } else {
      return a;
    }
  }
};

// The step function: 0 below 0, 1 above, `values` at 0 (NaN input gives 0, as in PyTorch).
struct HeavisideOp {
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>)
      return a ? true : b;
    else
      return a == T(0) ? b : (a > T(0) ? T(1) : T(0));
  }
};

// The sign bit: -0.0 and negative NaNs are negative; unsigned integers and bool never.
struct SignbitOp {
  template <typename T>
  TANDEM_HOST_DEVICE bool operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return integer_math::is_negative(x);
    else
      // copysign rather than std::signbit: GCC 12 fails (an internal error) vectorising signbit's shift over
      // float16 loads
      return std::copysign(opmath_t<T>(1), static_cast<opmath_t<T>>(x)) < opmath_t<T>(0);
  }
};

}  // namespace tandem
