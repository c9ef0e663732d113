#include "ops/complex.h"

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/tensor_iterator.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/layout.h"

namespace tandem {

namespace {

// A view of x's storage with another dtype (the real <-> complex views): sizes and strides are in elements of
// `dtype`, the offset too.
Tensor retyped_view(const Tensor& x, DType dtype, DimVector sizes, DimVector strides, int64_t offset) {
  return as_view_of(make_view(x, std::move(sizes), std::move(strides), offset, dtype), x);
}

// The real-valued view of one part of a complex tensor: part 0 real, 1 imaginary.
Tensor part_view(const Tensor& x, int part) {
  DimVector strides;
  for (int64_t s : x.strides()) strides.push_back(s * 2);
  return retyped_view(x, complex_value_dtype(x.dtype()), DimVector(x.sizes()), std::move(strides),
                      x.storage_offset() * 2 + part);
}

// The result keeps x's dense layout (a permuted input gives a permuted result), as PyTorch's complex kernels,
// except angle's, which PyTorch writes row-major.
Tensor run_unary_slot(ComplexUnaryOp op, const Tensor& x, DType out_dtype) {
  Tensor out = op == ComplexUnaryOp::Angle ? empty(x.sizes(), out_dtype, x.device())
                                           : empty_elementwise(x.sizes(), out_dtype, x.device(), {&x});
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

Tensor cast_discarding_imag(const Tensor& x, DType dtype) {
  Tensor out = empty(x.sizes(), dtype, x.device());
  copy_(out, x);
  return out;
}

Tensor real(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::real", x);
  if (!is_complex(x.dtype())) return x;
  Tensor out = part_view(x, 0);
  return autograd::should_record(x) ? autograd::record_real(x, out) : out;
}

Tensor imag(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::imag", x);
  TANDEM_CHECK(is_complex(x.dtype()), Type, "imag is not implemented for tensors with non-complex dtypes.");
  Tensor out = part_view(x, 1);
  return autograd::should_record(x) ? autograd::record_imag(x, out) : out;
}

Tensor view_as_real(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::view_as_real", x);
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
  profiler::RecordScope profile_scope("aten::view_as_complex", x);
  // PyTorch's checks, in its order: complex input, dtype, rank, last dimension.
  TANDEM_CHECK(!is_complex(x.dtype()), Type, "view_as_complex is not supported for complex tensors");
  TANDEM_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64 || x.dtype() == DType::Float16,
               NotImplemented,
               "view_as_complex is only supported for half, float and double tensors, but got a tensor of "
               "scalar type: ",
               dtype_title(x.dtype()));
  TANDEM_CHECK(x.dim() > 0, Runtime, "Input tensor must have one or more dimensions");
  TANDEM_CHECK(x.sizes()[x.dim() - 1] == 2, Runtime, "Tensor must have a last dimension of size 2");
  TANDEM_CHECK(x.dtype() != DType::Float16, NotImplemented,
               "view_as_complex of a float16 tensor would be complex32, which tandem does not have\nhint: "
               "convert first, e.g. x.float()");
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
  profiler::RecordScope profile_scope("aten::conj", x);
  if (!is_complex(x.dtype())) return x;
  Tensor out = run_unary_slot(ComplexUnaryOp::Conj, x, x.dtype());
  return autograd::should_record(x) ? autograd::record_conj(x, out) : out;
}

Tensor angle(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::angle", x);
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
  profiler::RecordScope profile_scope("aten::polar", abs, angle);
  return from_real_parts(ComplexBinaryOp::Polar, "polar", abs, angle);
}
Tensor make_complex(const Tensor& real, const Tensor& imag) {
  profiler::RecordScope profile_scope("aten::complex", real, imag);
  return from_real_parts(ComplexBinaryOp::Complex, "complex", real, imag);
}

namespace {

// The complex form of each op-list unary op that has one (nullopt: PyTorch refuses complex there too).
// clang-format off
std::optional<ComplexUnaryOp> complex_form(UnaryOp op) {
  switch (op) {
#define TANDEM_MAP(u, c) case UnaryOp::u: return ComplexUnaryOp::c;
    TANDEM_MAP(neg, Neg) TANDEM_MAP(abs, Abs) TANDEM_MAP(exp, Exp) TANDEM_MAP(log, Log) TANDEM_MAP(sqrt, Sqrt)
    TANDEM_MAP(sin, Sin) TANDEM_MAP(cos, Cos) TANDEM_MAP(tanh, Tanh) TANDEM_MAP(rsqrt, Rsqrt)
    TANDEM_MAP(exp2, Exp2) TANDEM_MAP(expm1, Expm1) TANDEM_MAP(log1p, Log1p) TANDEM_MAP(log2, Log2)
    TANDEM_MAP(log10, Log10) TANDEM_MAP(sinh, Sinh) TANDEM_MAP(cosh, Cosh) TANDEM_MAP(tan, Tan)
    TANDEM_MAP(asin, Asin) TANDEM_MAP(acos, Acos) TANDEM_MAP(atan, Atan) TANDEM_MAP(asinh, Asinh)
    TANDEM_MAP(acosh, Acosh) TANDEM_MAP(atanh, Atanh) TANDEM_MAP(sigmoid, Sigmoid) TANDEM_MAP(sinc, Sinc)
    TANDEM_MAP(isnan, IsNan) TANDEM_MAP(isinf, IsInf) TANDEM_MAP(isfinite, IsFinite)
    TANDEM_MAP(logical_not, LogicalNot)
#undef TANDEM_MAP
    default: return std::nullopt;
  }
}

std::optional<ComplexBinaryOp> complex_form(BinaryOp op) {
  switch (op) {
#define TANDEM_MAP(b, c) case BinaryOp::b: return ComplexBinaryOp::c;
    TANDEM_MAP(add, Add) TANDEM_MAP(sub, Sub) TANDEM_MAP(mul, Mul) TANDEM_MAP(div, Div) TANDEM_MAP(pow, Pow)
    TANDEM_MAP(logaddexp, Logaddexp)
    TANDEM_MAP(eq, Eq) TANDEM_MAP(ne, Ne) TANDEM_MAP(logical_and, LogicalAnd) TANDEM_MAP(logical_or, LogicalOr)
    TANDEM_MAP(logical_xor, LogicalXor)
#undef TANDEM_MAP
    default: return std::nullopt;
  }
}

// PyTorch's CPU kernel names where they are not "<op>_cpu" (its vectorised kernels and a few others).
const char* cpu_kernel_name(std::string_view op) {
  static constexpr std::pair<std::string_view, const char*> names[] = {
      {"round", "round_vml_cpu"}, {"erf", "erf_vml_cpu"}, {"erfc", "erfc_vml_cpu"},
      {"erfinv", "erfinv_vml_cpu"}, {"lgamma", "lgamma_vml_cpu"}, {"digamma", "digamma"}, {"i0", "i0_vml_cpu"},
      {"ndtr", "erf_vml_cpu"}, {"gelu", "GeluKernelImpl"}, {"gelu_tanh", "GeluKernelImpl"},
      {"floor_divide", "div_floor_cpu"}, {"bitwise_left_shift", "lshift_cpu"},
      {"bitwise_right_shift", "rshift_cpu"}};
  for (const auto& [name, kernel] : names)
    if (name == op) return kernel;
  return nullptr;
}
// clang-format on

}  // namespace

void refuse_complex(std::string_view op, Device device, DType dtype) {
  // PyTorch's op-specific messages first, then its generic "<kernel>" not implemented for 'ComplexFloat'.
  if (op == "sign")
    TANDEM_THROW(NotImplemented,
                 "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn "
                 "instead.");
  if (op == "floor" || op == "ceil" || op == "trunc")
    TANDEM_THROW(NotImplemented, op, " is not supported for complex inputs");
  if (op == "relu" || op == "clamp") TANDEM_THROW(NotImplemented, "clamp is not supported for complex types");
  if (op == "signbit") TANDEM_THROW(NotImplemented, "signbit is not implemented for complex tensors.");
  if (op == "maximum" || op == "minimum") TANDEM_THROW(Type, op, " not implemented for complex tensors.");
  if (op == "heaviside")
    TANDEM_THROW(NotImplemented, "heaviside is not yet implemented for complex tensors.");
  const char* cpu_name = device.is_cpu() ? cpu_kernel_name(op) : nullptr;
  // PyTorch's CUDA floor_divide kernel is div_floor_cuda (the other CUDA kernels are named "<op>_cuda").
  const std::string_view cuda_op = op == "floor_divide" ? "div_floor" : op;
  std::string name = cpu_name
                         ? std::string(cpu_name)
                         : std::string(device.is_cpu() ? op : cuda_op) + (device.is_cpu() ? "_cpu" : "_cuda");
  throw_dtype_not_implemented(name.c_str(), dtype);
}

Tensor complex_unary(UnaryOp op, const Tensor& x) {
  const std::optional<ComplexUnaryOp> form = complex_form(op);
  if (!form) refuse_complex(unary_op_name(op), x.device(), x.dtype());
  const bool boolean_result = *form == ComplexUnaryOp::IsNan || *form == ComplexUnaryOp::IsInf ||
                              *form == ComplexUnaryOp::IsFinite || *form == ComplexUnaryOp::LogicalNot;
  // The real forms' formulas, written to hold for complex; set_history admits only the nodes checked for
  // complex (autograd/complex_formulas.cpp) and refuses the rest.
  if (!boolean_result && autograd::should_record(x))
    return autograd::record_unary(op, x, autograd::without_grad([&] { return complex_unary(op, x); }));
  return run_complex_unary(*form, x);
}

Tensor run_complex_unary(ComplexUnaryOp op, const Tensor& x) {
  switch (op) {
    case ComplexUnaryOp::Abs:
    case ComplexUnaryOp::Angle:
      return run_unary_slot(op, x, complex_value_dtype(x.dtype()));
    case ComplexUnaryOp::IsNan:
    case ComplexUnaryOp::IsInf:
    case ComplexUnaryOp::IsFinite:
    case ComplexUnaryOp::LogicalNot:
      return run_unary_slot(op, x, DType::Bool);
    default:
      return run_unary_slot(op, x, x.dtype());
  }
}

Tensor sgn(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::sgn", x);
  if (!is_complex(x.dtype())) return sign(x);
  Tensor out = run_complex_unary(ComplexUnaryOp::Sgn, x);
  return autograd::should_record(x) ? autograd::record_sgn(x, out) : out;
}

void run_complex_binary(BinaryOp op, TensorIterator& iter, Device device) {
  const std::optional<ComplexBinaryOp> form = complex_form(op);
  if (!form) {
    DType dtype = iter.dtype(1);  // the inputs carry the complex compute dtype
    for (int k = iter.ntensors() - 1; k >= 0; --k)
      if (is_complex(iter.dtype(k))) dtype = iter.dtype(k);
    refuse_complex(binary_op_name(op), device, dtype);
  }
  kernel_table(device.type).complex_binary(*form, iter);
}

}  // namespace tandem
