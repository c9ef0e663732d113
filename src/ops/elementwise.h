// Front ends of the elementwise ops: every function here is generated from op_list.def, plus the few
// elementwise ops with extra arguments (where, clamp).
#pragma once
#include <optional>

#include "core/scalar.h"
#include "core/tensor.h"

namespace tandem {

// name##_out: the out= form (ops/out_arg.h): the result written into `out`, which is returned.
#define TANDEM_UNARY_OP(name, functor, rule, ...) \
  Tensor name(const Tensor& x);                   \
  Tensor name##_(const Tensor& x);                \
  Tensor name##_out(const Tensor& x, const Tensor& out);
#define TANDEM_BINARY_OP(name, functor, rule, ...)                        \
  Tensor name(const Tensor& a, const Tensor& b);                          \
  Tensor name(const Tensor& a, const Scalar& b);                          \
  Tensor name(const Scalar& a, const Tensor& b);                          \
  Tensor name##_(const Tensor& self, const Tensor& b);                    \
  Tensor name##_(const Tensor& self, const Scalar& b);                    \
  Tensor name##_out(const Tensor& a, const Tensor& b, const Tensor& out); \
  Tensor name##_out(const Tensor& a, const Scalar& b, const Tensor& out); \
  Tensor name##_out(const Scalar& a, const Tensor& b, const Tensor& out);
#include "kernels/op_list.def"
#undef TANDEM_UNARY_OP
#undef TANDEM_BINARY_OP

// add/sub(a, b, alpha=): a + alpha * b and a - alpha * b. A floating result is one pass rounded once, as
// PyTorch's vectorised kernel (kernels/scaled_add_functor.h); other dtypes scale b first.
#define TANDEM_SCALED_OP(name)                                                                 \
  Tensor name(const Tensor& a, const Tensor& b, const Scalar& alpha);                          \
  Tensor name(const Tensor& a, const Scalar& b, const Scalar& alpha);                          \
  Tensor name##_(const Tensor& self, const Tensor& b, const Scalar& alpha);                    \
  Tensor name##_(const Tensor& self, const Scalar& b, const Scalar& alpha);                    \
  Tensor name##_out(const Tensor& a, const Tensor& b, const Scalar& alpha, const Tensor& out); \
  Tensor name##_out(const Tensor& a, const Scalar& b, const Scalar& alpha, const Tensor& out);
TANDEM_SCALED_OP(add)
TANDEM_SCALED_OP(sub)
#undef TANDEM_SCALED_OP

// Any of the three operands may be a Python scalar (passed as a 0-dim tensor by the binding).
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor clamp(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi);
Tensor clamp_(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi);
Tensor clamp(const Tensor& x, const Tensor* lo, const Tensor* hi);
// Rounds half to even at `decimals` decimal places (negative: to tens, hundreds, ...).
Tensor round(const Tensor& x, int64_t decimals);

// Shape that a and b broadcast to, or a RuntimeError in PyTorch's words.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b);
// Same device for all operands, allowing 0-dim CPU tensors to join any device (as PyTorch does). The names
// are the operands' argument names in PyTorch's signature of `op`; they reach DeviceMismatchError.operand.
void check_same_device(const char* op, const Tensor& a, const Tensor& b, const char* a_name = "input",
                       const char* b_name = "other");
// tandem.DeviceMismatchError with PyTorch's first line for devices `first` and `second` (in the order the
// message names them): `operand` should move to `expected`.
[[noreturn]] void throw_device_mismatch(const char* op, Device first, Device second, const char* operand,
                                        Device expected);

}  // namespace tandem
