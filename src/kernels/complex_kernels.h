// Kernel slots of complex arithmetic. Real ops never see complex operands (dispatch_dtype is real-only and
// the complex guard refuses them up front); ops that support complex route complex operands to these slots.
#pragma once
#include <cstdint>

namespace tandem {

class TensorIterator;

// Operands (out, z). Neg..Sinc: out has z's complex dtype. Abs, Angle: out is z's real value dtype. IsNan,
// IsInf, IsFinite, LogicalNot: out is bool.
enum class ComplexUnaryOp : int8_t {
  Neg,
  Conj,
  Exp,
  Log,
  Sqrt,
  Sin,
  Cos,
  Tanh,
  Reciprocal,
  Rsqrt,
  Square,
  Sgn,
  Exp2,
  Expm1,
  Log1p,
  Log2,
  Log10,
  Sinh,
  Cosh,
  Tan,
  Asin,
  Acos,
  Atan,
  Asinh,
  Acosh,
  Atanh,
  Sigmoid,
  Sinc,
  Abs,
  Angle,
  IsNan,
  IsInf,
  IsFinite,
  LogicalNot
};
// Operands (out, a, b). Add..Logaddexp: a, b, out one complex dtype (b may be a scalar operand).
// Eq..LogicalXor: out bool. Polar (abs, angle), Complex (real, imag): a, b of the real value dtype, out
// complex.
enum class ComplexBinaryOp : int8_t {
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Logaddexp,
  Eq,
  Ne,
  LogicalAnd,
  LogicalOr,
  LogicalXor,
  Polar,
  Complex
};

using ComplexUnaryKernel = void (*)(ComplexUnaryOp op, TensorIterator& iter);
using ComplexBinaryKernel = void (*)(ComplexBinaryOp op, TensorIterator& iter);

}  // namespace tandem
