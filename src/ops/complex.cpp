#include "ops/complex.h"

#include <cmath>
#include <string>

#include "autograd/formulas.h"
#include "core/error.h"
#include "kernels/tensor_iterator.h"
#include "ops/copy.h"
#include "ops/elementwise.h"

namespace tandem {

namespace {

// A view of x's storage with another dtype (the real <-> complex views): sizes and strides are in elements of
// `dtype`, the offset too.
Tensor retyped_view(const Tensor& x, DType dtype, DimVector sizes, DimVector strides, int64_t offset) {
  return Tensor(make_intrusive<TensorImpl>(x.storage(), offset, std::move(sizes), std::move(strides), dtype));
}

// The real-valued view of one part of a complex tensor: part 0 real, 1 imaginary.
Tensor part_view(const Tensor& x, int part) {
  DimVector strides;
  for (int64_t s : x.strides()) strides.push_back(s * 2);
  return retyped_view(x, complex_value_dtype(x.dtype()), DimVector(x.sizes()), std::move(strides),
                      x.storage_offset() * 2 + part);
}

Tensor run_unary_slot(ComplexUnaryOp op, const Tensor& x, DType out_dtype) {
  Tensor out = empty(x.sizes(), out_dtype, x.device());
  if (out.numel() == 0) return out;
  TensorIterator iter;
  iter.add_output(out);
  iter.add_input(x);
  iter.build();
  kernel_table(x.device().type).complex_unary(op, iter);
  return out;
}

// complex(real, imag) and polar(abs, angle): two real tensors of one floating dtype (float32 or float64;
// float16 needs complex32, which tandem does not have) make a complex one.
Tensor from_real_parts(ComplexBinaryOp op, const char* name, const Tensor& a, const Tensor& b) {
  check_same_device(name, a, b);
  const bool floats = (a.dtype() == DType::Float32 || a.dtype() == DType::Float64) &&
                      (b.dtype() == DType::Float32 || b.dtype() == DType::Float64);
  if (!floats) {
    const bool supported = [](DType d) { return is_floating(d); }(a.dtype()) && is_floating(b.dtype());
    TANDEM_CHECK(supported, NotImplemented,
                 "Expected both inputs to be Half, Float or Double tensors but got ", dtype_title(a.dtype()),
                 " and ", dtype_title(b.dtype()), "\nhint: convert first, e.g. ", name,
                 "(a.float(), b.float())");
    TANDEM_CHECK(a.dtype() != b.dtype(), NotImplemented, name, "(): ", dtype_name(a.dtype()),
                 " inputs would make complex32, which tandem does not have\nhint: convert first, e.g. ", name,
                 "(a.float(), b.float())");
  }
  TANDEM_CHECK(a.dtype() == b.dtype(), Runtime, "Expected object of scalar type ", dtype_title(a.dtype()),
               " but got scalar type ", dtype_title(b.dtype()),
               " for second argument\nhint: convert one, e.g. ", name, "(a, b.to(a.dtype))");
  Tensor out = empty(broadcast_shapes(a.sizes(), b.sizes()),
                     a.dtype() == DType::Float64 ? DType::Complex128 : DType::Complex64,
                     a.dim() == 0 && a.device().is_cpu() ? b.device() : a.device());
  if (out.numel() > 0) {
    TensorIterator iter;
    iter.add_output(out);
    iter.add_input(a);
    iter.add_input(b);
    iter.build();
    kernel_table(out.device().type).complex_binary(op, iter);
  }
  if (!autograd::should_record(a, b)) return out;
  return op == ComplexBinaryOp::Polar ? autograd::record_polar(a, b, out)
                                      : autograd::record_make_complex(a, b, out);
}

}  // namespace

void check_no_complex_grad(const char* op, bool records_grad) {
  TANDEM_CHECK(
      !records_grad, NotImplemented, op,
      "(): complex autograd is not supported yet for this op (a complex tensor that requires grad, or "
      "a complex result from ones that do)\nhint: run it under tandem.no_grad() or on .detach()ed "
      "inputs");
}

Tensor cast_discarding_imag(const Tensor& x, DType dtype) {
  Tensor out = empty(x.sizes(), dtype, x.device());
  copy_(out, x);
  return out;
}

Tensor real(const Tensor& x) {
  if (!is_complex(x.dtype())) return x;
  Tensor out = part_view(x, 0);
  return autograd::should_record(x) ? autograd::record_real(x, out) : out;
}

Tensor imag(const Tensor& x) {
  TANDEM_CHECK(is_complex(x.dtype()), Type, "imag is not implemented for tensors with non-complex dtypes.");
  Tensor out = part_view(x, 1);
  return autograd::should_record(x) ? autograd::record_imag(x, out) : out;
}

Tensor view_as_real(const Tensor& x) {
  TANDEM_CHECK(is_complex(x.dtype()), Type, "view_as_real is only supported for complex tensors");
  DimVector sizes(x.sizes()), strides;
  for (int64_t s : x.strides()) strides.push_back(s * 2);
  sizes.push_back(2);
  strides.push_back(1);
  Tensor out = retyped_view(x, complex_value_dtype(x.dtype()), std::move(sizes), std::move(strides),
                            x.storage_offset() * 2);
  return autograd::should_record(x) ? autograd::record_view_as_real(x, out) : out;
}

Tensor view_as_complex(const Tensor& x) {
  TANDEM_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64 || x.dtype() == DType::Float16,
               NotImplemented,
               "view_as_complex is only supported for half, float and double tensors, but got a tensor of "
               "scalar type: ",
               dtype_title(x.dtype()));
  TANDEM_CHECK(x.dtype() != DType::Float16, NotImplemented,
               "view_as_complex of a float16 tensor would be complex32, which tandem does not have\nhint: "
               "convert first, e.g. x.float()");
  TANDEM_CHECK(x.dim() > 0 && x.sizes()[x.dim() - 1] == 2, Runtime,
               "Tensor must have a last dimension of size 2");
  TANDEM_CHECK(x.strides()[x.dim() - 1] == 1, Runtime, "Tensor must have a last dimension with stride 1");
  DimVector sizes, strides;
  for (int64_t d = 0; d + 1 < x.dim(); ++d) {
    TANDEM_CHECK(x.strides()[d] % 2 == 0, Runtime,
                 "Tensor must have a stride divisible by 2 for all but last dimension");
    sizes.push_back(x.sizes()[d]);
    strides.push_back(x.strides()[d] / 2);
  }
  TANDEM_CHECK(x.storage_offset() % 2 == 0, Runtime, "Tensor must have a storage_offset divisible by 2");
  Tensor out = retyped_view(x, complex_dtype_for(x.dtype()), std::move(sizes), std::move(strides),
                            x.storage_offset() / 2);
  return autograd::should_record(x) ? autograd::record_view_as_complex(x, out) : out;
}

Tensor conj(const Tensor& x) {
  if (!is_complex(x.dtype())) return x;
  Tensor out = run_unary_slot(ComplexUnaryOp::Conj, x, x.dtype());
  return autograd::should_record(x) ? autograd::record_conj(x, out) : out;
}

Tensor angle(const Tensor& x) {
  if (is_complex(x.dtype())) {
    Tensor out = run_unary_slot(ComplexUnaryOp::Angle, x, complex_value_dtype(x.dtype()));
    return autograd::should_record(x) ? autograd::record_angle(x, out) : out;
  }
  // Real input: pi below zero, 0 elsewhere, NaN kept; integers give the default float dtype, as in PyTorch.
  Tensor xf = is_floating(x.dtype()) ? x : to_dtype(x, default_float_dtype());
  Tensor pi = full(DimVector{}, Scalar(M_PI), xf.dtype(), xf.device());
  Tensor zero = full(DimVector{}, Scalar(0.0), xf.dtype(), xf.device());
  return where(isnan(xf), xf, where(lt(xf, Scalar(0.0)), pi, zero));
}

Tensor polar(const Tensor& abs, const Tensor& angle) {
  return from_real_parts(ComplexBinaryOp::Polar, "polar", abs, angle);
}
Tensor make_complex(const Tensor& real, const Tensor& imag) {
  return from_real_parts(ComplexBinaryOp::Complex, "complex", real, imag);
}

Tensor complex_unary(UnaryOp op, const Tensor& x) {
  if (autograd::should_record(x))  // the same formulas as the real forms (written to hold for complex too)
    return autograd::record_unary(op, x, autograd::without_grad([&] { return complex_unary(op, x); }));
  const DType value = complex_value_dtype(x.dtype());
  switch (op) {
    case UnaryOp::neg:
      return run_unary_slot(ComplexUnaryOp::Neg, x, x.dtype());
    case UnaryOp::abs:
      return run_unary_slot(ComplexUnaryOp::Abs, x, value);
    case UnaryOp::exp:
      return run_unary_slot(ComplexUnaryOp::Exp, x, x.dtype());
    case UnaryOp::log:
      return run_unary_slot(ComplexUnaryOp::Log, x, x.dtype());
    case UnaryOp::sqrt:
      return run_unary_slot(ComplexUnaryOp::Sqrt, x, x.dtype());
    case UnaryOp::sin:
      return run_unary_slot(ComplexUnaryOp::Sin, x, x.dtype());
    case UnaryOp::cos:
      return run_unary_slot(ComplexUnaryOp::Cos, x, x.dtype());
    case UnaryOp::tanh:
      return run_unary_slot(ComplexUnaryOp::Tanh, x, x.dtype());
    default:
      break;
  }
  throw_complex_not_implemented(
      (std::string(unary_op_name(op)) + (x.device().is_cpu() ? "_cpu" : "_cuda")).c_str(), x.dtype());
}

void run_complex_binary(BinaryOp op, TensorIterator& iter, Device device) {
  ComplexBinaryOp cop;
  switch (op) {
    case BinaryOp::add:
      cop = ComplexBinaryOp::Add;
      break;
    case BinaryOp::sub:
      cop = ComplexBinaryOp::Sub;
      break;
    case BinaryOp::mul:
      cop = ComplexBinaryOp::Mul;
      break;
    case BinaryOp::div:
      cop = ComplexBinaryOp::Div;
      break;
    case BinaryOp::eq:
      cop = ComplexBinaryOp::Eq;
      break;
    case BinaryOp::ne:
      cop = ComplexBinaryOp::Ne;
      break;
    default:
      kernel_table(device.type).binary[static_cast<int>(op)](iter);  // the guard raises PyTorch's error
      return;
  }
  kernel_table(device.type).complex_binary(cop, iter);
}

}  // namespace tandem
