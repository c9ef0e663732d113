// Front ends of complex numbers: the real/complex views, the ops that build or take apart complex values, and
// the complex forms of the elementwise ops that support complex (the elementwise front ends route to these).
#pragma once
#include <string_view>

#include "core/tensor.h"
#include "kernels/kernel_table.h"

namespace tandem {

// Views of a complex tensor's real and imaginary parts (writable). real() of a real tensor is the tensor
// itself; imag() of one raises TypeError, as in PyTorch.
Tensor real(const Tensor& x);
Tensor imag(const Tensor& x);
// complex (..., ) <-> float (..., 2) views of the same memory.
Tensor view_as_real(const Tensor& x);
Tensor view_as_complex(const Tensor& x);
// The conjugate, computed eagerly (tandem has no lazy conjugate bit: is_conj() is always False). A real
// tensor is returned as is.
Tensor conj(const Tensor& x);
// Argument of each element (real result); for real tensors: pi where negative, 0 elsewhere (NaN kept).
Tensor angle(const Tensor& x);
Tensor polar(const Tensor& abs, const Tensor& angle);
Tensor make_complex(const Tensor& real, const Tensor& imag);  // tandem.complex

// The complex form of an op-list unary op (the math functions, isnan/isinf/isfinite, logical_not), or
// PyTorch's error for the others (refuse_complex). `x` is complex.
Tensor complex_unary(UnaryOp op, const Tensor& x);
// One complex slot op on x, into a new tensor of the op's result dtype (complex, real or bool). No checks.
Tensor run_complex_unary(ComplexUnaryOp op, const Tensor& x);
// PyTorch's error for an op without a complex form: its op-specific message where it has one ("floor is not
// supported for complex inputs"), else "\"<kernel>\" not implemented for 'ComplexFloat'".
[[noreturn]] void refuse_complex(std::string_view op, Device device, DType dtype);
// sgn: z / |z| (0 at 0) for complex, sign for real tensors.
Tensor sgn(const Tensor& x);
// Runs the complex form of a binary op on a built iterator whose inputs have the complex compute dtype; ops
// without one go to their own slot, whose complex guard raises PyTorch's error.
void run_complex_binary(BinaryOp op, TensorIterator& iter, Device device);
// x converted to the real `dtype`, keeping the real parts: the user's explicit casts (x.float(),
// x.to(dtype)), which PyTorch allows with a warning (the bindings give it). Internal conversions (to_dtype)
// refuse instead.
Tensor cast_discarding_imag(const Tensor& x, DType dtype);

}  // namespace tandem
