// The math of the trigonometric, hyperbolic, logarithm-base, error-function and two-argument float ops of the
// op list (kernels/op_list.def), written once for the CPU and CUDA loops. Each computes in opmath_t<T> (float
// for float16/bfloat16), so a 16-bit input rounds once, at the end.
#pragma once
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/dtype.h"
#include "core/macros.h"
#include "kernels/vector_math.h"

namespace tandem {

#define TANDEM_UNARY_MATH_FUNCTOR(Name, expr)     \
  struct Name {                                   \
    template <typename T>                         \
    TANDEM_HOST_DEVICE T operator()(T in) const { \
      using M = opmath_t<T>;                      \
      const M x = static_cast<M>(in);             \
      return static_cast<T>(expr);                \
    }                                             \
  };
TANDEM_UNARY_MATH_FUNCTOR(AsinOp, std::asin(x))
TANDEM_UNARY_MATH_FUNCTOR(AcosOp, std::acos(x))
TANDEM_UNARY_MATH_FUNCTOR(AtanOp, std::atan(x))
TANDEM_UNARY_MATH_FUNCTOR(SinhOp, std::sinh(x))
TANDEM_UNARY_MATH_FUNCTOR(CoshOp, std::cosh(x))
TANDEM_UNARY_MATH_FUNCTOR(TanOp, std::tan(x))
TANDEM_UNARY_MATH_FUNCTOR(AsinhOp, std::asinh(x))
TANDEM_UNARY_MATH_FUNCTOR(AcoshOp, std::acosh(x))
TANDEM_UNARY_MATH_FUNCTOR(AtanhOp, std::atanh(x))
TANDEM_UNARY_MATH_FUNCTOR(Log2Op, std::log2(x))
TANDEM_UNARY_MATH_FUNCTOR(Log10Op, std::log10(x))
TANDEM_UNARY_MATH_FUNCTOR(Exp2Op, std::exp2(x))
TANDEM_UNARY_MATH_FUNCTOR(ErfcOp, std::erfc(x))
#undef TANDEM_UNARY_MATH_FUNCTOR

struct ErfOp {  // float (and 16-bit) through kernel_erff (kernels/vector_math.h)
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T in) const {
    using M = opmath_t<T>;
    const M x = static_cast<M>(in);
    if constexpr (std::is_same_v<M, float>)
      return static_cast<T>(kernel_erff(x));
    else
      return static_cast<T>(std::erf(x));
  }
};

// erf^-1: float (and 16-bit) through the branch-free vector_erfinvf; double from the same first guess
// (erfinv_guess_factor) with Newton steps in double, which double the correct digits each.
struct ErfinvOp {
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T in) const {
    using M = opmath_t<T>;
    const M x = static_cast<M>(in);
    if constexpr (std::is_same_v<M, float>) return static_cast<T>(vector_erfinvf(x));
    if (!(x > M(-1) && x < M(1))) {
      if (x == M(1)) return static_cast<T>(std::numeric_limits<M>::infinity());
      if (x == M(-1)) return static_cast<T>(-std::numeric_limits<M>::infinity());
      return static_cast<T>(std::numeric_limits<M>::quiet_NaN());
    }
    const double p = erfinv_guess_factor(-std::log((1.0 - double(x)) * (1.0 + double(x))));
    // Newton on |x|. Near +-1, erf(y) - |x| cancels and the guess is far out in a steep tail, so there the
    // step solves log(erfc(y)) = log(1 - |x|) instead (1 - |x| is exact there, and log erfc is nearly
    // straight in y): full relative precision, converged in a few steps even from a guess 0.5 off.
    const double ax = x < M(0) ? -double(x) : double(x);
    double y = p * ax;
    const double two_over_sqrt_pi = 1.1283791670955126, log_tail = std::log1p(-ax);
    for (int i = 0; i < 4; ++i) {
      const double slope = two_over_sqrt_pi * std::exp(-y * y);
      double step;
      if (ax > 0.5) {
        const double tail = std::erfc(y);
        if (!(tail > 0.0 && slope > 0.0)) break;
        step = -(std::log(tail) - log_tail) * tail / slope;
      } else {
        step = (std::erf(y) - ax) / slope;
      }
      y -= step;
      // Newton squares the relative error: after a step under 1e-9 of y, y is within rounding (the guess is
      // good to ~1e-7, so that is usually the second step).
      if (!(std::fabs(step) > 1e-9 * y)) break;
    }
    return static_cast<T>(static_cast<M>(x < M(0) ? -y : y));
  }
};

#define TANDEM_BINARY_MATH_FUNCTOR(Name, expr)                    \
  struct Name {                                                   \
    template <typename T>                                         \
    TANDEM_HOST_DEVICE T operator()(T in_a, T in_b) const {       \
      using M = opmath_t<T>;                                      \
      const M a = static_cast<M>(in_a), b = static_cast<M>(in_b); \
      return static_cast<T>(expr);                                \
    }                                                             \
  };
TANDEM_BINARY_MATH_FUNCTOR(Atan2Op, std::atan2(a, b))
TANDEM_BINARY_MATH_FUNCTOR(HypotOp, std::hypot(a, b))
TANDEM_BINARY_MATH_FUNCTOR(CopysignOp, std::copysign(a, b))
#undef TANDEM_BINARY_MATH_FUNCTOR

// log(e^a + e^b) and log2(2^a + 2^b) without overflow: the larger term factored out; equal infinities give
// that infinity. Branch-free (every case computed, one selected), so the CPU loop vectorises; float uses the
// vectorised exp and log1p, and base 2 keeps std::exp2 (scaling the argument by ln 2 for the vector exp would
// cost tens of ulp in the tail term).
template <bool Base2>
struct LogaddexpBaseOp {
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T in_a, T in_b) const {
    using M = opmath_t<T>;
    const M a = static_cast<M>(in_a), b = static_cast<M>(in_b);
    const M hi = a > b ? a : b, lo = a > b ? b : a;  // a NaN reaches the result through either
    const M d = lo - hi;
    M tail;
    if constexpr (Base2)
      tail = std::log1p(std::exp2(d)) / M(0.6931471805599453);
    else if constexpr (std::is_same_v<M, float>)
      tail = kernel_log1pf(kernel_expf(d));
    else
      tail = std::log1p(std::exp(d));
    const M sum = hi + tail;
    return static_cast<T>(std::isinf(a) && a == b ? a : sum);
  }
};
using LogaddexpOp = LogaddexpBaseOp<false>;
using Logaddexp2Op = LogaddexpBaseOp<true>;

}  // namespace tandem
