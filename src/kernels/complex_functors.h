// The math of the complex kernel slots, written once for the CPU loops and the CUDA launches. T is float or
// double (complex64 / complex128).
#pragma once
#include "core/complex.h"
#include "core/macros.h"
#include "kernels/complex_kernels.h"
#include "kernels/complex_math.h"

namespace tandem {

template <ComplexUnaryOp Op>
struct ComplexUnaryFn {
  template <typename T>
  TANDEM_HOST_DEVICE TANDEM_INLINE auto operator()(complex<T> z) const {
    if constexpr (Op == ComplexUnaryOp::Neg)
      return -z;
    else if constexpr (Op == ComplexUnaryOp::Conj)
      return cconj(z);
    else if constexpr (Op == ComplexUnaryOp::Exp)
      return cexp_c99(z);
    else if constexpr (Op == ComplexUnaryOp::Log)
      return clog(z);
    else if constexpr (Op == ComplexUnaryOp::Sqrt)
      return csqrt_c99(z);
    else if constexpr (Op == ComplexUnaryOp::Sin)
      return csin_c99(z);
    else if constexpr (Op == ComplexUnaryOp::Cos)
      return ccos_c99(z);
    else if constexpr (Op == ComplexUnaryOp::Tanh)
      return ctanh_c99(z);
    else if constexpr (Op == ComplexUnaryOp::Reciprocal)
      return creciprocal(z);
    else if constexpr (Op == ComplexUnaryOp::Rsqrt)
      return crsqrt(z);
    else if constexpr (Op == ComplexUnaryOp::Square)
      return z * z;
    else if constexpr (Op == ComplexUnaryOp::Sgn)
      return csgn(z);
    else if constexpr (Op == ComplexUnaryOp::Exp2)
      return cexp2(z);
    else if constexpr (Op == ComplexUnaryOp::Expm1)
      return cexpm1(z);
    else if constexpr (Op == ComplexUnaryOp::Log1p)
      return clog1p(z);
    else if constexpr (Op == ComplexUnaryOp::Log2)
      return clog2(z);
    else if constexpr (Op == ComplexUnaryOp::Log10)
      return clog10(z);
    else if constexpr (Op == ComplexUnaryOp::Sinh)
      return csinh(z);
    else if constexpr (Op == ComplexUnaryOp::Cosh)
      return ccosh(z);
    else if constexpr (Op == ComplexUnaryOp::Tan)
      return ctan(z);
    else if constexpr (Op == ComplexUnaryOp::Asin)
      return casin(z);
    else if constexpr (Op == ComplexUnaryOp::Acos)
      return cacos(z);
    else if constexpr (Op == ComplexUnaryOp::Atan)
      return catan(z);
    else if constexpr (Op == ComplexUnaryOp::Asinh)
      return casinh(z);
    else if constexpr (Op == ComplexUnaryOp::Acosh)
      return cacosh(z);
    else if constexpr (Op == ComplexUnaryOp::Atanh)
      return catanh(z);
    else if constexpr (Op == ComplexUnaryOp::Sigmoid)
      return csigmoid(z);
    else if constexpr (Op == ComplexUnaryOp::Sinc)
      return csinc(z);
    else if constexpr (Op == ComplexUnaryOp::IsNan)
      return cisnan(z);
    else if constexpr (Op == ComplexUnaryOp::IsInf)
      return cisinf(z);
    else if constexpr (Op == ComplexUnaryOp::IsFinite)
      return cisfinite(z);
    else if constexpr (Op == ComplexUnaryOp::LogicalNot)
      return z.re == T(0) && z.im == T(0);
    else if constexpr (Op == ComplexUnaryOp::Abs)
      return cabs(z);
    else
      return carg(z);  // Angle
  }
};

// e^z for a z whose real part is +inf, as PyTorch's logaddexp builds it: +-inf or 0 in each part by the signs
// of cos/sin of the angle (0 where they are exactly 0, not inf * 0 = NaN), NaN for an infinite or NaN angle.
template <typename T>
TANDEM_HOST_DEVICE TANDEM_INLINE complex<T> cexp_of_inf(complex<T> z) {
  if (!std::isfinite(z.im)) return {T(INFINITY), T(NAN)};
  const T c = std::cos(z.im), s = std::sin(z.im);
  return {c == T(0) ? T(0) : T(INFINITY) * c, s == T(0) ? T(0) : T(INFINITY) * s};
}

// log(e^a + e^b) as PyTorch computes it for complex a, b: log1p(e^(lo - hi)) + hi with lo, hi ordered by real
// part; a NaN part anywhere gives NaN + NaN i, two equal infinite real parts are handled apart (-inf: the
// smaller operand; +inf: log of the sum of the two exponentials).
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> clogaddexp(complex<T> a, complex<T> b) {
  if (cisnan(a) || cisnan(b)) return {T(NAN), T(NAN)};
  const bool b_lower = !(a.re < b.re);  // ties: b is the lower, a the higher (PyTorch's order)
  const complex<T> lo = b_lower ? b : a, hi = b_lower ? a : b;
  if (!std::isfinite(lo.re) && lo.re == hi.re) {
    if (lo.re < T(0)) return lo;
    return clog1p(cexp_of_inf(lo) + cexp_of_inf(hi) - complex<T>(T(1)));
  }
  const complex<T> d = lo - hi;
  complex<T> e;
  if (std::isfinite(d.re))
    e = complex<T>(std::exp(d.re) * std::cos(d.im), std::exp(d.re) * std::sin(d.im));
  else
    e = d.re < T(0) ? complex<T>(T(0)) : cexp_of_inf(d);
  return clog1p(e) + hi;
}

template <ComplexBinaryOp Op>
struct ComplexBinaryFn {
  template <typename T>
  TANDEM_HOST_DEVICE TANDEM_INLINE static bool is_nonzero(complex<T> z) {
    return z.re != T(0) || z.im != T(0);
  }
  template <typename T>
  TANDEM_HOST_DEVICE TANDEM_INLINE auto operator()(complex<T> a, complex<T> b) const {
    if constexpr (Op == ComplexBinaryOp::Add)
      return a + b;
    else if constexpr (Op == ComplexBinaryOp::Sub)
      return a - b;
    else if constexpr (Op == ComplexBinaryOp::Mul)
      return a * b;
    else if constexpr (Op == ComplexBinaryOp::Div)
      return a / b;
    else if constexpr (Op == ComplexBinaryOp::Pow)
      return cpow(a, b);
    else if constexpr (Op == ComplexBinaryOp::Logaddexp)
      return clogaddexp(a, b);
    else if constexpr (Op == ComplexBinaryOp::Eq)
      return a == b;
    else if constexpr (Op == ComplexBinaryOp::Ne)
      return a != b;
    else if constexpr (Op == ComplexBinaryOp::LogicalAnd)
      return is_nonzero(a) && is_nonzero(b);
    else if constexpr (Op == ComplexBinaryOp::LogicalOr)
      return is_nonzero(a) || is_nonzero(b);
    else
      return is_nonzero(a) != is_nonzero(b);  // LogicalXor
  }
};

// The two ops that build complex values from real operands.
template <ComplexBinaryOp Op>
struct ComplexFromRealFn {
  template <typename T>
  TANDEM_HOST_DEVICE TANDEM_INLINE complex<T> operator()(T a, T b) const {
    if constexpr (Op == ComplexBinaryOp::Polar)
      return cpolar(a, b);
    else
      return complex<T>(a, b);  // Complex
  }
};

// Calls fn(functor) with the functor of `op`, so each kernel instantiates one loop per op.
// clang-format off
template <typename Fn>
void dispatch_complex_unary(ComplexUnaryOp op, Fn&& fn) {
  switch (op) {
#define TANDEM_CASE(name) case ComplexUnaryOp::name: return fn(ComplexUnaryFn<ComplexUnaryOp::name>{});
    TANDEM_CASE(Neg) TANDEM_CASE(Conj) TANDEM_CASE(Exp) TANDEM_CASE(Log) TANDEM_CASE(Sqrt) TANDEM_CASE(Sin)
    TANDEM_CASE(Cos) TANDEM_CASE(Tanh) TANDEM_CASE(Reciprocal) TANDEM_CASE(Rsqrt) TANDEM_CASE(Square)
    TANDEM_CASE(Sgn) TANDEM_CASE(Exp2) TANDEM_CASE(Expm1) TANDEM_CASE(Log1p) TANDEM_CASE(Log2) TANDEM_CASE(Log10)
    TANDEM_CASE(Sinh) TANDEM_CASE(Cosh) TANDEM_CASE(Tan) TANDEM_CASE(Asin) TANDEM_CASE(Acos) TANDEM_CASE(Atan)
    TANDEM_CASE(Asinh) TANDEM_CASE(Acosh) TANDEM_CASE(Atanh) TANDEM_CASE(Sigmoid) TANDEM_CASE(Sinc)
    TANDEM_CASE(Abs) TANDEM_CASE(Angle) TANDEM_CASE(IsNan) TANDEM_CASE(IsInf) TANDEM_CASE(IsFinite)
    TANDEM_CASE(LogicalNot)
#undef TANDEM_CASE
  }
}
template <typename SameFn, typename FromRealFn>
void dispatch_complex_binary(ComplexBinaryOp op, SameFn&& same, FromRealFn&& from_real) {
  switch (op) {
#define TANDEM_CASE(name) case ComplexBinaryOp::name: return same(ComplexBinaryFn<ComplexBinaryOp::name>{});
    TANDEM_CASE(Add) TANDEM_CASE(Sub) TANDEM_CASE(Mul) TANDEM_CASE(Div) TANDEM_CASE(Pow)
    TANDEM_CASE(Logaddexp) TANDEM_CASE(Eq) TANDEM_CASE(Ne) TANDEM_CASE(LogicalAnd) TANDEM_CASE(LogicalOr) TANDEM_CASE(LogicalXor)
#undef TANDEM_CASE
    case ComplexBinaryOp::Polar: return from_real(ComplexFromRealFn<ComplexBinaryOp::Polar>{});
    case ComplexBinaryOp::Complex: return from_real(ComplexFromRealFn<ComplexBinaryOp::Complex>{});
  }
}
// clang-format on

}  // namespace tandem
