// The math of the complex kernel slots, written once for the CPU loops and the CUDA launches. T is float or
// double (complex64 / complex128).
#pragma once
#include "core/complex.h"
#include "core/macros.h"
#include "kernels/complex_kernels.h"

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
      return cexp(z);
    else if constexpr (Op == ComplexUnaryOp::Log)
      return clog(z);
    else if constexpr (Op == ComplexUnaryOp::Sqrt)
      return csqrt(z);
    else if constexpr (Op == ComplexUnaryOp::Sin)
      return csin(z);
    else if constexpr (Op == ComplexUnaryOp::Cos)
      return ccos(z);
    else if constexpr (Op == ComplexUnaryOp::Tanh)
      return ctanh(z);
    else if constexpr (Op == ComplexUnaryOp::Abs)
      return cabs(z);
    else
      return carg(z);  // Angle
  }
};

template <ComplexBinaryOp Op>
struct ComplexBinaryFn {
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
    else if constexpr (Op == ComplexBinaryOp::Eq)
      return a == b;
    else
      return a != b;  // Ne
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
template <typename Fn>
void dispatch_complex_unary(ComplexUnaryOp op, Fn&& fn) {
  switch (op) {
#define TANDEM_CASE(name)    \
  case ComplexUnaryOp::name: \
    return fn(ComplexUnaryFn<ComplexUnaryOp::name>{});
    TANDEM_CASE(Neg)
    TANDEM_CASE(Conj) TANDEM_CASE(Exp) TANDEM_CASE(Log) TANDEM_CASE(Sqrt) TANDEM_CASE(Sin) TANDEM_CASE(Cos)
        TANDEM_CASE(Tanh) TANDEM_CASE(Abs) TANDEM_CASE(Angle)
#undef TANDEM_CASE
  }
}
template <typename SameFn, typename FromRealFn>
void dispatch_complex_binary(ComplexBinaryOp op, SameFn&& same, FromRealFn&& from_real) {
  switch (op) {
#define TANDEM_CASE(name)     \
  case ComplexBinaryOp::name: \
    return same(ComplexBinaryFn<ComplexBinaryOp::name>{});
    TANDEM_CASE(Add)
    TANDEM_CASE(Sub) TANDEM_CASE(Mul) TANDEM_CASE(Div) TANDEM_CASE(Eq) TANDEM_CASE(Ne)
#undef TANDEM_CASE
        case ComplexBinaryOp::Polar : return from_real(ComplexFromRealFn<ComplexBinaryOp::Polar>{});
    case ComplexBinaryOp::Complex:
      return from_real(ComplexFromRealFn<ComplexBinaryOp::Complex>{});
  }
}

}  // namespace tandem
