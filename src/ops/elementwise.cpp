#include "ops/elementwise.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "autograd/formulas.h"
#include "backend/deferred_errors.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "kernels/op_rules.h"
#include "kernels/tensor_iterator.h"
#include "ops/autocast.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/layout.h"
#include "ops/out_arg.h"
#include "ops/reduce.h"
#include "ops/type_promotion.h"

namespace tandem {

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  if (a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin())) return DimVector(a);
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    TANDEM_CHECK(da == db || da == 1 || db == 1, Runtime, "The size of tensor a (", da,
                 ") must match the size of tensor b (", db, ") at non-singleton dimension ", n - 1 - i,
                 "\nhint: shapes ", shape_to_string(a), " and ", shape_to_string(b),
                 " do not broadcast; align them with unsqueeze()/reshape() or check the operands");
    out[n - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

void throw_device_mismatch(const char* op, Device first, Device second, const char* operand,
                           Device expected) {
  const Device moving = first == expected ? second : first;
  std::string fix = detail::concat(operand, " = ", operand, ".to('", expected.str(), "')");
  std::string msg = detail::concat(
      "Expected all tensors to be on the same device, but found at least two devices, ", first.str(), " and ",
      second.str(), "!\nhint: in ", op, ", ", operand, " is on ", moving.str(), "; move it with ", fix,
      " so both live on one device (for a model on ", expected.str(), ", move each batch: x = x.to(device))");
  detail::throw_error(ErrorKind::DeviceMismatch, std::move(msg),
                      {{"devices", std::vector<Device>{first, second}},
                       {"op", std::string(op)},
                       {"operand", std::string(operand)},
                       {"expected_device", expected},
                       {"fix", std::move(fix)}});
}

void check_same_device(const char* op, const Tensor& a, const Tensor& b, const char* a_name,
                       const char* b_name) {
  Device da = a.device(), db = b.device();
  if (__builtin_expect(da == db, 1)) return;
  // A 0-dim CPU tensor behaves like a scalar and may join any device.
  if ((da.is_cpu() && a.dim() == 0) || (db.is_cpu() && b.dim() == 0)) return;
  // Move the CPU side; between two devices, the second operand.
  if (da.is_cpu()) throw_device_mismatch(op, da, db, a_name, db);
  throw_device_mismatch(op, da, db, b_name, da);
}

namespace {

// The device check of the elementwise iterator, in PyTorch's TensorIterator order: the first operand that is
// not on the CPU holds the common device, which the message names first (`cpu_tensor + cuda_tensor` is "...
// devices, cuda:0 and cpu!", as for `cuda_tensor + cpu_tensor`); the hint still names the operand to move.
void check_iterator_devices(const char* op, const Tensor& a, const Tensor& b) {
  if (a.device().is_cpu() && !b.device().is_cpu())
    check_same_device(op, b, a, "other", "input");
  else
    check_same_device(op, a, b);
}

ElementwiseKernel unary_kernel(UnaryOp op, Device d) {
  return kernel_table(d.type).unary[static_cast<int>(op)];
}
ElementwiseKernel binary_kernel(BinaryOp op, Device d) {
  return kernel_table(d.type).binary[static_cast<int>(op)];
}

// ---- unary ----
DType unary_compute_dtype(UnaryOp op, UnaryRule rule, DType in) {
  if (is_complex(in)) return in;  // complex stays complex (ops/complex.cpp runs or refuses it)
  switch (rule) {
    case UnaryRule::NoBool:
      if (in == DType::Bool) {
        if (op == UnaryOp::neg)
          TANDEM_THROW(
              NotImplemented,
              "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
              "a mask, use the `~` or `logical_not()` operator instead.");
        if (op == UnaryOp::relu) TANDEM_THROW(NotImplemented, "Boolean inputs not supported for relu");
        TANDEM_THROW(NotImplemented, "\"", unary_op_name(op),
                     "_cpu\" not implemented for 'Bool'\nhint: convert "
                     "first, e.g. x.int() or x.float()");
      }
      return in;
    case UnaryRule::Float:
      return is_floating(in) ? in : default_float_dtype();
    case UnaryRule::FloatOnly:
      TANDEM_CHECK(is_floating(in), NotImplemented, "\"", unary_op_name(op), "_cpu\" not implemented for '",
                   dtype_title(in), "'\nhint: ", unary_op_name(op),
                   " works on floating tensors only; convert first, e.g. x.float()");
      return in;
    case UnaryRule::Integral:
      TANDEM_CHECK(!is_floating(in), NotImplemented, "\"", unary_op_name(op), "_cpu\" not implemented for '",
                   dtype_title(in), "'\nhint: ", unary_op_name(op),
                   " works on integer and bool tensors only");
      return in;
    default:
      return in;
  }
}

void run_unary(UnaryOp op, const Tensor& out, const Tensor& in) {
  TensorIterator iter;
  iter.add_output(out);
  iter.add_input(in);
  iter.build();
  unary_kernel(op, out.device())(iter);
}

// The unary ops of PyTorch's CUDA autocast float32 list that tandem has.
bool autocasts_to_fp32(UnaryOp op) {
  switch (op) {
    case UnaryOp::exp:
    case UnaryOp::log:
    case UnaryOp::log1p:
    case UnaryOp::expm1:
    case UnaryOp::rsqrt:
    case UnaryOp::acos:
    case UnaryOp::asin:
    case UnaryOp::cosh:
    case UnaryOp::sinh:
    case UnaryOp::tan:
    case UnaryOp::erfinv:
    case UnaryOp::log2:
    case UnaryOp::log10:
      return true;
    default:
      return false;
  }
}

Tensor unary_op(UnaryOp op, UnaryRule rule, const Tensor& x) {
  if (is_complex(x.dtype())) return complex_unary(op, x);
  if (autocast::is_active() && autocasts_to_fp32(op))
    return autocast::run(
        autocast::kCudaFp32, [&](const Tensor& t) { return unary_op(op, rule, t); }, x);
  if (autograd::should_record(x))
    return autograd::record_unary(op, x, autograd::without_grad([&] { return unary_op(op, rule, x); }));
  DType compute = unary_compute_dtype(op, rule, x.dtype());
  Tensor in = to_dtype(x, compute);
  Tensor out =
      empty_elementwise(x.sizes(), rule_outputs_bool(rule) ? DType::Bool : compute, x.device(), {&x});
  run_unary(op, out, in);
  return out;
}

Tensor unary_op_(UnaryOp op, UnaryRule rule, const Tensor& x) {
  check_writeable(x, unary_op_name(op));
  if (is_complex(x.dtype())) {
    Tensor r = complex_unary(op, x);
    TANDEM_CHECK(r.dtype() == x.dtype(), Runtime, "In-place ", unary_op_name(op),
                 " is not supported for complex tensors.\nhint: use the out-of-place ", unary_op_name(op),
                 "()");
    copy_(x, r);
    return x;
  }
  DType compute = unary_compute_dtype(op, rule, x.dtype());
  DType result = rule_outputs_bool(rule) ? DType::Bool : compute;
  TANDEM_CHECK(can_cast(result, x.dtype()), Runtime, "result type ", dtype_title(result),
               " can't be cast to the desired output type ", dtype_title(x.dtype()),
               "\nhint: use the out-of-place ", unary_op_name(op), "() or convert first, e.g. x = x.float()");
  if (autograd::should_record(x))
    return autograd::inplace_with_grad(x, [&](const Tensor& before) { return unary_op(op, rule, before); });
  if (result == x.dtype()) {
    run_unary(op, x, x);
  } else {
    copy_(x, unary_op(op, rule, x));
  }
  x.bump_version();
  return x;
}

// The op name PyTorch's out= autograd refusal gives: the ATen op's, special_<op> for the torch.special ops
// (whose nodes are named Special...Backward0).
std::string out_autograd_name(const char* op, const char* node) {
  return std::string_view(node).starts_with("Special") ? std::string("special_") + op : std::string(op);
}

// PyTorch's out= autograd check of a unary op; ops without a derivative formula skip it.
void check_unary_out_autograd(UnaryOp op, const Tensor& out, const Tensor& x) {
  const char* node = autograd::unary_node_name(op);
  if (node && autograd::should_record(out, x))  // the name is built only for the error
    check_out_autograd(out_autograd_name(unary_op_name(op), node).c_str(), out, {&x});
}

Tensor unary_out(UnaryOp op, UnaryRule rule, const Tensor& x, const Tensor& out) {
  check_unary_out_autograd(op, out, x);
  if (is_complex(x.dtype())) {
    Tensor r = complex_unary(op, x);
    check_out_target(unary_op_name(op), out, r.dtype(), x.device());
    resize_out(out, x.sizes());
    autograd::without_grad([&] { return copy_(out, r); });  // out= is never recorded
    out.bump_version();
    return out;
  }
  DType compute = unary_compute_dtype(op, rule, x.dtype());
  DType result = rule_outputs_bool(rule) ? DType::Bool : compute;
  // signbit writes bools only (logical_not, the other predicate with out=, casts into any out).
  if (op == UnaryOp::signbit)
    TANDEM_CHECK(out.dtype() == DType::Bool, Runtime,
                 "signbit does not support non-boolean outputs.\nhint: pass a bool out tensor");
  // The ops that keep their input's dtype (abs, neg, ceil, sign, frac, bitwise_not, ...) want it in out too:
  // PyTorch's iterator checks that all its operands share one dtype.
  if (rule == UnaryRule::NoBool || rule == UnaryRule::Same || rule == UnaryRule::FloatOnly ||
      rule == UnaryRule::Integral)
    TANDEM_CHECK(out.dtype() == result, Runtime, "Found dtype ", dtype_title(out.dtype()), " but expected ",
                 dtype_title(result), "\nhint: ", unary_op_name(op),
                 " keeps its input's dtype: pass an out tensor of dtype ", dtype_name(result));
  check_out_target(unary_op_name(op), out, result, x.device());
  resize_out(out, x.sizes());
  if (out.dtype() == result)
    run_unary(op, out, to_dtype(x, compute));
  else
    autograd::without_grad([&] { return copy_(out, unary_op(op, rule, x)); });
  out.bump_version();
  return out;
}

// ---- binary ----
struct Operand {
  const Tensor* tensor;  // null: scalar
  Scalar scalar;
};

// PyTorch's kernel names in the dtype errors of the integer-only ops.
const char* integer_kernel_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::gcd:
      return "gcd_cpu";
    case BinaryOp::lcm:
      return "lcm_cpu";
    case BinaryOp::bitwise_left_shift:
      return "lshift_cpu";
    case BinaryOp::bitwise_right_shift:
      return "rshift_cpu";
    default:
      return binary_op_name(op);
  }
}

DType binary_compute_dtype(BinaryOp op, BinaryRule rule, DType common) {
  // Complex stays complex: run_binary sends it to the complex slot, whose guard refuses ops without a complex
  // form. (FloatOnly ops refuse it below, with their own name.)
  if (is_complex(common) && rule != BinaryRule::FloatOnly) return common;
  switch (rule) {
    case BinaryRule::IntDiv:
      TANDEM_CHECK(common != DType::Bool, NotImplemented, "\"",
                   op == BinaryOp::floor_divide ? "div_floor" : binary_op_name(op),
                   "_cpu\" not implemented for 'Bool'\nhint: convert first, e.g. x.int()");
      return common;
    case BinaryRule::TrueDiv:
      return is_floating(common) ? common : default_float_dtype();
    case BinaryRule::FloatOnly:
      TANDEM_CHECK(is_floating(common), NotImplemented, "\"", binary_op_name(op),
                   "_cpu\" not implemented for '", dtype_title(common), "'\nhint: ", binary_op_name(op),
                   " works on floating tensors only; convert first, e.g. x.float()");
      return common;
    case BinaryRule::Integer:
      TANDEM_CHECK(!is_floating(common) && common != DType::Bool, NotImplemented, "\"",
                   integer_kernel_name(op), "\" not implemented for '", dtype_title(common),
                   "'\nhint: ", binary_op_name(op),
                   " works on integer tensors only; convert first, e.g. x.long()");
      return common;
    case BinaryRule::Bitwise:
      TANDEM_CHECK(!is_floating(common), NotImplemented, "\"", binary_op_name(op),
                   "_cpu\" not implemented for '", dtype_title(common),
                   "'\nhint: bitwise operators work on integer and bool tensors only");
      return common;
    default:
      return common;
  }
}

// Integer division by zero raises ZeroDivisionError, as PyTorch's CPU kernels do. A divisor on a device is
// checked without making the host wait: the check is queued on the device and raised at the next
// synchronising crossing (backend/deferred_errors.h); the kernel meanwhile writes 0 where the divisor is 0.
void check_int_divisor(BinaryOp op, DType compute, const Operand& b) {
  if (is_floating(compute) || is_complex(compute) || compute == DType::Bool) return;
  const char* hint = " by zero; check the divisor, or convert to float first to get inf/nan instead";
  // The divisor as the kernel reads it, converted to the compute dtype: 256 is 0 for int8, as PyTorch's check
  // of the converted divisor finds.
  if (!b.tensor) {
    const int64_t bits = 8 * static_cast<int64_t>(element_size(compute));
    const auto divisor = static_cast<uint64_t>(b.scalar.to_int());
    const bool zero = bits >= 64 ? divisor == 0 : (divisor & ((uint64_t{1} << bits) - 1)) == 0;
    TANDEM_CHECK(!zero, Runtime, "ZeroDivisionError\nhint: integer ", binary_op_name(op), hint);
    return;
  }
  const Tensor divisor = b.tensor->dtype() == compute ? *b.tensor : to_dtype(*b.tensor, compute);
  if (divisor.device().is_cpu()) {
    TANDEM_CHECK(!item(any(eq(divisor, Scalar(int64_t{0})))).to_bool(), Runtime,
                 "ZeroDivisionError\nhint: integer ", binary_op_name(op), hint);
    return;
  }
  const Device device = divisor.device();
  Tensor zero = any(eq(divisor, Scalar(int64_t{0})));
  Tensor earlier = pending_device_error_flag(device);
  defer_device_error(device, earlier.defined() ? logical_or(earlier, zero) : zero,
                     std::string("ZeroDivisionError\nhint: an integer ") + binary_op_name(op) + " on " +
                         device.str() +
                         " had a divisor of 0 (reported at the first synchronisation after it, "
                         "since tandem does not make the host wait for each device op);" +
                         hint);
}

bool is_bool_operand(const Operand& o) {
  return o.tensor ? o.tensor->dtype() == DType::Bool : o.scalar.is_bool();
}

// Checks PyTorch makes on the operands themselves rather than on their common dtype.
void check_operands(BinaryOp op, BinaryRule rule, const Operand& a, const Operand& b) {
  if (rule == BinaryRule::ArithNoBool && (is_bool_operand(a) || is_bool_operand(b))) {
    if (is_bool_operand(a) && is_bool_operand(b))
      TANDEM_THROW(NotImplemented,
                   "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                   "`^` or `logical_xor()` operator instead.");
    TANDEM_THROW(NotImplemented,
                 "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                 "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  }
  if (op == BinaryOp::heaviside && a.tensor && b.tensor)
    TANDEM_CHECK(
        a.tensor->dtype() == b.tensor->dtype(), Runtime,
        "heaviside is not yet implemented for tensors with different dtypes.\nhint: convert `values` to "
        "the input's dtype, e.g. values.to(input.dtype)");
  if (op == BinaryOp::pow && a.tensor && b.tensor && is_bool_operand(a) && is_bool_operand(b))
    TANDEM_THROW(NotImplemented, "\"pow\" not implemented for 'Bool'\nhint: convert first, e.g. x.int()");
}

void check_pow_exponent(BinaryOp op, DType compute, const Operand& b) {
  if (op != BinaryOp::pow || is_floating(compute) || is_complex(compute) || b.tensor) return;
  TANDEM_CHECK(b.scalar.is_float() || b.scalar.to_int() >= 0, Runtime,
               "Integers to negative integer powers are not allowed.\nhint: convert the base to float first, "
               "e.g. x.float() ** ",
               b.scalar.to_int());
}

Tensor operand_tensor(const Operand& o, DType dtype, Device device) {
  return o.tensor ? to_dtype(*o.tensor, dtype) : full(DimVector{}, o.scalar, dtype, device);
}

// nextafter of float16/bfloat16 values: the kernel loop sees them as float32, whose neighbours are closer.
// The float32 step scaled by the mantissa difference (2^13, 2^16) is the 16-bit step, except among float16's
// subnormals, whose step is 2^-24 everywhere (bfloat16's subnormal step 2^-133 is float32's scaled). A step
// toward 0 keeps the sign of zero; from an infinity the result is the largest finite value.
Tensor nextafter_16bit(DType dtype, const Operand& a, const Operand& b, Device device) {
  return autograd::without_grad([&] {
    Tensor fa = operand_tensor(a, DType::Float32, device), fb = operand_tensor(b, DType::Float32, device);
    const bool half = dtype == DType::Float16;
    auto scalar = [](double v) { return full(DimVector{}, Scalar(v), DType::Float32); };
    Tensor step = mul(sub(nextafter(fa, fb), fa), Scalar(half ? 8192.0 : 65536.0));
    step = copysign(maximum(abs(step), scalar(half ? std::ldexp(1.0, -24) : std::ldexp(1.0, -133))), step);
    Tensor moved = copysign(add(fa, step), where(eq(fa, Scalar(0.0)), step, fa));
    Tensor largest = copysign(scalar(half ? 65504.0 : 3.3895313892515355e38), fa);
    Tensor from_inf = logical_and(isinf(fa), eq(fb, fb));  // (a NaN direction gives NaN)
    return to_dtype(where(eq(fa, fb), fb, where(from_inf, largest, moved)), dtype);
  });
}

// PyTorch hands the number of a float16/bfloat16 mul or div to its kernel in float (its opmath type: those
// kernels read the operand's original value), so element and number meet in float and the result rounds once
// to 16 bits; rounding the number to 16 bits first moves results wherever it is not exactly representable
// there (`x / 32 ** 0.5`, `x * 0.1234567` in bfloat16). "The number" is the second operand, a Python number
// or a 0-dim tensor of a wider float type (a Python number may also be mul's first: `2.5 * x` is mul(x, 2.5)
// there), and only when it is not exact in 16 bits (otherwise both roundings agree). PyTorch's add and sub do
// round the number first, so they keep the plain path.
const Tensor* wide_scalar_tensor(const Operand& o) {
  if (!o.tensor || o.tensor->dim() != 0) return nullptr;
  DType d = o.tensor->dtype();
  return d == DType::Float32 || d == DType::Float64 ? o.tensor : nullptr;
}
bool inexact_in(DType compute, const Operand& o) {
  if (o.tensor) return wide_scalar_tensor(o) != nullptr;
  if (o.scalar.is_complex()) return false;
  const double v = o.scalar.to_double();
  return compute == DType::Float16 ? static_cast<double>(o.scalar.to<Half>()) != v
                                   : static_cast<double>(o.scalar.to<BFloat16>()) != v;
}
bool number_in_opmath(BinaryOp op, DType compute, const Operand& a, const Operand& b) {
  if (compute != DType::Float16 && compute != DType::BFloat16) return false;
  if (op != BinaryOp::mul && op != BinaryOp::div) return false;
  const bool b_number = !b.tensor || wide_scalar_tensor(b);
  if (b_number && a.tensor && !wide_scalar_tensor(a)) return inexact_in(compute, b);
  // `2.5 * x` reaches PyTorch as mul(x, 2.5); a 0-dim tensor on the left is rounded like a tensor operand.
  return op == BinaryOp::mul && !a.tensor && b.tensor && !b_number && inexact_in(compute, a);
}

void run_binary(BinaryOp op, DType compute, const Tensor& out, const Operand& a, const Operand& b,
                const Scalar* alpha = nullptr);

// pow(x, number) for the exponents PyTorch computes as simpler ops: 2 -> x * x, 3 -> x * x * x, 0.5 -> sqrt,
// -0.5 -> rsqrt, -1 -> 1 / x, -2 -> 1 / (x * x). Its values, not C's pow (sqrt(-0) is -0, sqrt(-inf) NaN;
// x * x * x may be an ulp from the correctly rounded cube), at the speed of those ops: a general pow is a
// libm call per element, 5x slower. The two-step forms round their intermediate to the dtype, as PyTorch's
// do. PyTorch's float16 takes a general pow for every exponent (pow(-0, 0.5) is +0 there), which x * x and
// 1 / x match, the others not. Returns whether it ran.
bool run_pow_as_simpler_op(DType compute, const Tensor& out, const Operand& a, const Operand& b) {
  if (!a.tensor || b.tensor || !is_floating(compute) || is_complex(compute) || b.scalar.is_complex())
    return false;
  if (a.tensor->device() != out.device() || a.tensor->dtype() != compute) return false;
  const double e = b.scalar.to<double>();
  if (compute == DType::Float16 && e != 2.0 && e != -1.0) return false;
  const Operand x{a.tensor, {}}, one{nullptr, Scalar(1.0)}, result{&out, {}};
  if (e == 2.0) {
    run_binary(BinaryOp::mul, compute, out, x, x);
  } else if (e == 0.5) {
    run_unary(UnaryOp::sqrt, out, *a.tensor);
  } else if (e == -0.5) {
    run_unary(UnaryOp::rsqrt, out, *a.tensor);
  } else if (e == -1.0) {
    run_binary(BinaryOp::div, compute, out, one, x);
  } else if (e == -2.0) {
    run_binary(BinaryOp::mul, compute, out, x, x);
    run_binary(BinaryOp::div, compute, out, one, result);
  } else if (e == 3.0 && out.storage().get() != a.tensor->storage().get()) {
    run_binary(BinaryOp::mul, compute, out, x, x);  // x * x first: reading x again must not see it
    run_binary(BinaryOp::mul, compute, out, result, x);
  } else {
    return false;
  }
  return true;
}

// add/sub(alpha=): a floating result is one pass, a + alpha * b rounded once (the scaled_add slot), as
// PyTorch's vectorised kernel; scaling b first and then adding rounds twice (an ulp off in a fifth of the
// elements of `p.add_(grad, alpha=-lr)`) and writes a temporary.
bool scales_in_one_pass(DType compute) {
  return compute == DType::Float16 || compute == DType::BFloat16 || compute == DType::Float32 ||
         compute == DType::Float64;
}

// alpha * b for the other results: exact for integers (bool: b and alpha), complex as PyTorch's complex
// kernel.
Tensor scaled_operand(const Operand& b, const Scalar& alpha) {
  return b.tensor ? mul(*b.tensor, alpha) : mul(full(DimVector{}, b.scalar, b.scalar.natural_dtype()), alpha);
}

// Runs the kernel into `out` (already allocated with the broadcast shape). `alpha`: add/sub's (a ± alpha *
// b).
void run_binary(BinaryOp op, DType compute, const Tensor& out, const Operand& a, const Operand& b,
                const Scalar* alpha) {
  if (alpha && !scales_in_one_pass(compute)) {
    Tensor scaled = scaled_operand(b, *alpha);
    return run_binary(op, compute, out, a, {&scaled, {}});
  }
  if (op == BinaryOp::pow && run_pow_as_simpler_op(compute, out, a, b)) return;
  if (op == BinaryOp::nextafter && (compute == DType::Float16 || compute == DType::BFloat16)) {
    copy_(out, nextafter_16bit(compute, a, b, out.device()));
    return;
  }
  if (number_in_opmath(op, compute, a, b)) {  // float32 arithmetic, then one rounding to 16 bits
    Tensor wa = a.tensor ? to_dtype(*a.tensor, DType::Float32) : Tensor();
    Tensor wb = b.tensor ? to_dtype(*b.tensor, DType::Float32) : Tensor();
    Tensor wide = empty(out.sizes(), DType::Float32, out.device());
    run_binary(op, DType::Float32, wide, {a.tensor ? &wa : nullptr, a.scalar},
               {b.tensor ? &wb : nullptr, b.scalar});
    copy_(out, wide);
    return;
  }
  TensorIterator iter;
  iter.add_output(out);
  Tensor ta, tb;                    // keep converted inputs alive for the kernel
  alignas(16) char sa[16], sb[16];  // up to complex128
  auto add = [&](const Operand& o, Tensor& keep, char* buf) {
    // A 0-dim CPU tensor next to a device tensor travels as a kernel argument, as PyTorch passes CPU scalars.
    bool host_scalar = o.tensor && o.tensor->device() != out.device();
    if (o.tensor && !host_scalar) {
      keep = to_dtype(*o.tensor, compute);
      iter.add_input(keep);
    } else {
      Scalar value = host_scalar ? item(*o.tensor) : o.scalar;
      TANDEM_CHECK(!value.is_big_unsigned() || !is_integral(compute, true) || compute == DType::UInt64,
                   Runtime, "value cannot be converted to type ", dtype_name(compute),
                   " without overflow\nhint: only uint64 holds Python ints from 2**63 up");
      dispatch_any_dtype(compute, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T v = value.to<T>();
        std::memcpy(buf, &v, sizeof(T));
      });
      iter.add_scalar_input(buf, compute);
    }
  };
  add(a, ta, sa);
  add(b, tb, sb);
  iter.build();
  if (alpha) {
    const double scale = alpha->to_double();
    return kernel_table(out.device().type).scaled_add(iter, op == BinaryOp::sub ? -scale : scale);
  }
  if (is_complex(compute)) return run_complex_binary(op, iter, out.device());
  binary_kernel(op, out.device())(iter);
}

// The result's compute dtype, shape and device, after the checks every form of the op makes.
struct BinaryPlan {
  DType compute;
  DimVector shape;
  Device device;
};
BinaryPlan plan_binary(BinaryOp op, BinaryRule rule, const Operand& a, const Operand& b) {
  ResultTypeState state;
  BinaryPlan plan;
  if (a.tensor && b.tensor) {
    check_iterator_devices(binary_op_name(op), *a.tensor, *b.tensor);
    state.add(*a.tensor);
    state.add(*b.tensor);
    plan.shape = broadcast_shapes(a.tensor->sizes(), b.tensor->sizes());
    plan.device =
        a.tensor->dim() == 0 && a.tensor->device().is_cpu() ? b.tensor->device() : a.tensor->device();
  } else {
    const Tensor& t = a.tensor ? *a.tensor : *b.tensor;
    state.add(t);
    state.add(a.tensor ? b.scalar : a.scalar);
    plan.shape = t.sizes();
    plan.device = t.device();
  }
  check_operands(op, rule, a, b);
  plan.compute = binary_compute_dtype(op, rule, state.result());
  // An empty result divides nothing: PyTorch raises only when a zero divisor is used.
  if (rule == BinaryRule::IntDiv && compute_numel(plan.shape) > 0) check_int_divisor(op, plan.compute, b);
  check_pow_exponent(op, plan.compute, b);
  return plan;
}

Tensor binary_op(BinaryOp op, BinaryRule rule, const Operand& a, const Operand& b,
                 const Scalar* alpha = nullptr);

// pow under autocast: its tensor operands cast to float32 (CUDA's list), then the op with autocast suspended.
Tensor autocast_pow(BinaryRule rule, const Operand& a, const Operand& b) {
  std::vector<const Tensor*> tensors;
  for (const Operand* o : {&a, &b})
    if (o->tensor) tensors.push_back(o->tensor);
  const autocast::Decision d = autocast::decide(autocast::kCudaFp32, tensors);
  autocast::SuspendGuard suspended;
  Tensor ca = a.tensor ? autocast::cast(d, *a.tensor) : Tensor(),
         cb = b.tensor ? autocast::cast(d, *b.tensor) : Tensor();
  return binary_op(BinaryOp::pow, rule, {a.tensor ? &ca : nullptr, a.scalar},
                   {b.tensor ? &cb : nullptr, b.scalar});
}

Tensor binary_op(BinaryOp op, BinaryRule rule, const Operand& a, const Operand& b, const Scalar* alpha) {
  if (autocast::is_active() && op == BinaryOp::pow) return autocast_pow(rule, a, b);
  if (autograd::should_record(a.tensor, b.tensor)) {
    Tensor out = autograd::without_grad([&] { return binary_op(op, rule, a, b, alpha); });
    return autograd::record_binary(op, a.tensor, a.scalar, b.tensor, b.scalar, out, alpha);
  }
  BinaryPlan plan = plan_binary(op, rule, a, b);
  Tensor out = empty_elementwise(plan.shape, rule_outputs_bool(rule) ? DType::Bool : plan.compute,
                                 plan.device, {a.tensor, b.tensor});
  run_binary(op, plan.compute, out, a, b, alpha);
  return out;
}

Tensor binary_out(BinaryOp op, BinaryRule rule, const Operand& a, const Operand& b, const Tensor& out,
                  const Scalar* alpha = nullptr) {
  BinaryPlan plan = plan_binary(op, rule, a, b);
  DType result = rule_outputs_bool(rule) ? DType::Bool : plan.compute;
  // PyTorch refuses out= next to an input that requires grad only where the result has a gradient; the ops
  // without a derivative formula (comparisons, logical and integer ops, the polynomials) are not checked at
  // all, except heaviside, whose out alone is (its refusal is named aten::heaviside).
  if (autograd::binary_has_gradient(op) && autograd::is_differentiable(result) &&
      autograd::should_record(out, a.tensor, b.tensor))  // the name is built only for the error
    check_out_autograd(out_autograd_name(binary_op_name(op), autograd::binary_node_name(op)).c_str(), out,
                       {a.tensor, b.tensor});
  else if (op == BinaryOp::heaviside)
    check_out_autograd("aten::heaviside", out, {});
  // heaviside wants one dtype for input, values and out (PyTorch's meta function).
  if (op == BinaryOp::heaviside && a.tensor)
    TANDEM_CHECK(
        out.dtype() == a.tensor->dtype(), Runtime,
        "heaviside is not yet implemented for tensors with different dtypes.\nhint: pass an out tensor "
        "of the input's dtype (",
        dtype_name(a.tensor->dtype()), ")");
  check_out_target(binary_op_name(op), out, result, plan.device);
  resize_out(out, plan.shape);
  if (out.dtype() == result) {
    run_binary(op, plan.compute, out, a, b, alpha);
  } else {
    Tensor tmp = empty(plan.shape, result, plan.device);
    run_binary(op, plan.compute, tmp, a, b, alpha);
    autograd::without_grad([&] { return copy_(out, tmp); });  // out= is never recorded
  }
  out.bump_version();
  return out;
}

Tensor binary_op_(BinaryOp op, BinaryRule rule, const Tensor& self, const Operand& b,
                  const Scalar* alpha = nullptr) {
  check_writeable(self, binary_op_name(op));
  ResultTypeState state;
  state.add(self);
  if (b.tensor) {
    check_iterator_devices(binary_op_name(op), self, *b.tensor);
    state.add(*b.tensor);
    DimVector shape = broadcast_shapes(self.sizes(), b.tensor->sizes());
    TANDEM_CHECK(shape == self.sizes(), Runtime, "output with shape ", self.shape_str(),
                 " doesn't match the broadcast shape ", shape_to_string(shape), "\nhint: the in-place ",
                 binary_op_name(op), "_ cannot grow its tensor; use the out-of-place ", binary_op_name(op),
                 "()");
  } else {
    state.add(b.scalar);
  }
  Operand a{&self, {}};
  check_operands(op, rule, a, b);
  const auto check_cast = [&](DType result) {
    TANDEM_CHECK(can_cast(result, self.dtype()), Runtime, "result type ", dtype_title(result),
                 " can't be cast to the desired output type ", dtype_title(self.dtype()),
                 "\nhint: use the out-of-place ", binary_op_name(op), "() (it returns a ", dtype_name(result),
                 " tensor) or convert first, e.g. x = x.to(", dtype_name(result), ")");
  };
  // The promoted type's cast into self first, as PyTorch checks it before its kernel refuses a dtype
  // (int_t.bitwise_or_(float_t) is the cast error, not "bitwise_or_cpu" not implemented for 'Float').
  if (!rule_outputs_bool(rule)) check_cast(state.result());
  DType compute = binary_compute_dtype(op, rule, state.result());
  DType result = rule_outputs_bool(rule) ? DType::Bool : compute;
  check_cast(result);
  if (rule == BinaryRule::IntDiv && self.numel() > 0) check_int_divisor(op, compute, b);
  check_pow_exponent(op, compute, b);
  if (autograd::should_record(&self, b.tensor)) {
    return autograd::inplace_with_grad(self, [&](const Tensor& before) {
      return binary_op(op, rule, {&before, {}}, b, alpha);
    });
  }
  if (result == self.dtype()) {
    run_binary(op, compute, self, a, b, alpha);
  } else {
    Tensor tmp = empty(self.sizes(), result, self.device());
    run_binary(op, compute, tmp, a, b, alpha);
    copy_(self, tmp);
  }
  self.bump_version();
  return self;
}

}  // namespace

// Each front end records its op for the profiler under PyTorch's name (aten::add, aten::add_; out= forms are
// aten::add too, as PyTorch's add.out overload).
#define TANDEM_UNARY_OP(name, functor, rule, ...)                \
  Tensor name(const Tensor& x) {                                 \
    profiler::RecordScope profile_scope("aten::" #name, x);      \
    return unary_op(UnaryOp::name, UnaryRule::rule, x);          \
  }                                                              \
  Tensor name##_(const Tensor& x) {                              \
    profiler::RecordScope profile_scope("aten::" #name "_", x);  \
    return unary_op_(UnaryOp::name, UnaryRule::rule, x);         \
  }                                                              \
  Tensor name##_out(const Tensor& x, const Tensor& out) {        \
    profiler::RecordScope profile_scope("aten::" #name, x, out); \
    return unary_out(UnaryOp::name, UnaryRule::rule, x, out);    \
  }
#define TANDEM_BINARY_OP(name, functor, rule, ...)                                    \
  Tensor name(const Tensor& a, const Tensor& b) {                                     \
    profiler::RecordScope profile_scope("aten::" #name, a, b);                        \
    return binary_op(BinaryOp::name, BinaryRule::rule, {&a, {}}, {&b, {}});           \
  }                                                                                   \
  Tensor name(const Tensor& a, const Scalar& b) {                                     \
    profiler::RecordScope profile_scope("aten::" #name, a, b);                        \
    return binary_op(BinaryOp::name, BinaryRule::rule, {&a, {}}, {nullptr, b});       \
  }                                                                                   \
  Tensor name(const Scalar& a, const Tensor& b) {                                     \
    profiler::RecordScope profile_scope("aten::" #name, a, b);                        \
    return binary_op(BinaryOp::name, BinaryRule::rule, {nullptr, a}, {&b, {}});       \
  }                                                                                   \
  Tensor name##_(const Tensor& self, const Tensor& b) {                               \
    profiler::RecordScope profile_scope("aten::" #name "_", self, b);                 \
    return binary_op_(BinaryOp::name, BinaryRule::rule, self, {&b, {}});              \
  }                                                                                   \
  Tensor name##_(const Tensor& self, const Scalar& b) {                               \
    profiler::RecordScope profile_scope("aten::" #name "_", self, b);                 \
    return binary_op_(BinaryOp::name, BinaryRule::rule, self, {nullptr, b});          \
  }                                                                                   \
  Tensor name##_out(const Tensor& a, const Tensor& b, const Tensor& out) {            \
    profiler::RecordScope profile_scope("aten::" #name, a, b, out);                   \
    return binary_out(BinaryOp::name, BinaryRule::rule, {&a, {}}, {&b, {}}, out);     \
  }                                                                                   \
  Tensor name##_out(const Tensor& a, const Scalar& b, const Tensor& out) {            \
    profiler::RecordScope profile_scope("aten::" #name, a, b, out);                   \
    return binary_out(BinaryOp::name, BinaryRule::rule, {&a, {}}, {nullptr, b}, out); \
  }                                                                                   \
  Tensor name##_out(const Scalar& a, const Tensor& b, const Tensor& out) {            \
    profiler::RecordScope profile_scope("aten::" #name, a, b, out);                   \
    return binary_out(BinaryOp::name, BinaryRule::rule, {nullptr, a}, {&b, {}}, out); \
  }
#include "kernels/op_list.def"
#undef TANDEM_UNARY_OP
#undef TANDEM_BINARY_OP

#define TANDEM_SCALED_OP(name, rule)                                                            \
  Tensor name(const Tensor& a, const Tensor& b, const Scalar& alpha) {                          \
    profiler::RecordScope profile_scope("aten::" #name, a, b, alpha);                           \
    return binary_op(BinaryOp::name, BinaryRule::rule, {&a, {}}, {&b, {}}, &alpha);             \
  }                                                                                             \
  Tensor name(const Tensor& a, const Scalar& b, const Scalar& alpha) {                          \
    profiler::RecordScope profile_scope("aten::" #name, a, b, alpha);                           \
    return binary_op(BinaryOp::name, BinaryRule::rule, {&a, {}}, {nullptr, b}, &alpha);         \
  }                                                                                             \
  Tensor name##_(const Tensor& self, const Tensor& b, const Scalar& alpha) {                    \
    profiler::RecordScope profile_scope("aten::" #name "_", self, b, alpha);                    \
    return binary_op_(BinaryOp::name, BinaryRule::rule, self, {&b, {}}, &alpha);                \
  }                                                                                             \
  Tensor name##_(const Tensor& self, const Scalar& b, const Scalar& alpha) {                    \
    profiler::RecordScope profile_scope("aten::" #name "_", self, b, alpha);                    \
    return binary_op_(BinaryOp::name, BinaryRule::rule, self, {nullptr, b}, &alpha);            \
  }                                                                                             \
  Tensor name##_out(const Tensor& a, const Tensor& b, const Scalar& alpha, const Tensor& out) { \
    profiler::RecordScope profile_scope("aten::" #name, a, b, alpha, out);                      \
    return binary_out(BinaryOp::name, BinaryRule::rule, {&a, {}}, {&b, {}}, out, &alpha);       \
  }                                                                                             \
  Tensor name##_out(const Tensor& a, const Scalar& b, const Scalar& alpha, const Tensor& out) { \
    profiler::RecordScope profile_scope("aten::" #name, a, b, alpha, out);                      \
    return binary_out(BinaryOp::name, BinaryRule::rule, {&a, {}}, {nullptr, b}, out, &alpha);   \
  }
TANDEM_SCALED_OP(add, Arith)
TANDEM_SCALED_OP(sub, ArithNoBool)
#undef TANDEM_SCALED_OP

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  profiler::RecordScope profile_scope("aten::where", cond, a, b);
  check_same_device("where", cond, a, "condition", "input");
  check_same_device("where", a, b);
  TANDEM_CHECK(cond.dtype() == DType::Bool || cond.dtype() == DType::UInt8, Runtime,
               "where expected condition to be a boolean tensor, but got a tensor with dtype ",
               dtype_title(cond.dtype()), "\nhint: pass a comparison such as x > 0, or cond.bool()");
  DType dtype = result_type(a, b);
  DimVector shape = broadcast_shapes(broadcast_shapes(cond.sizes(), a.sizes()), b.sizes());
  Device device =
      cond.dim() == 0 && cond.device().is_cpu() ? (a.dim() ? a.device() : b.device()) : cond.device();
  if (autograd::should_record(cond, a, b)) {
    return autograd::record_where(cond, a, b, autograd::without_grad([&] { return where(cond, a, b); }));
  }
  Tensor out = empty_elementwise(shape, dtype, device, {&cond, &a, &b});
  // 0-dim CPU operands (allowed next to device tensors) are moved to the output's device first.
  auto prepare = [&](const Tensor& t, DType d) { return to_device(t, device, d, false); };
  Tensor c = prepare(cond, DType::Bool), ta = prepare(a, dtype), tb = prepare(b, dtype);
  TensorIterator iter;
  iter.add_output(out);
  iter.add_input(c);
  iter.add_input(ta);
  iter.add_input(tb);
  iter.build();
  kernel_table(device.type).where(iter);
  return out;
}

namespace {
void check_clamp_args(const Tensor& x, const Scalar* lo, const Scalar* hi) {
  TANDEM_CHECK(lo || hi, Runtime, "torch.clamp: At least one of 'min' or 'max' must not be None");
  TANDEM_CHECK(!is_complex(x.dtype()), NotImplemented, "clamp is not supported for complex types");
  // A complex bound: with an integer or bool tensor the result type is complex, which clamp refuses; a
  // floating tensor's bounds PyTorch converts to double first, where a complex one does not convert.
  const bool complex_bound = (lo && lo->is_complex()) || (hi && hi->is_complex());
  TANDEM_CHECK(!complex_bound || is_floating(x.dtype()), NotImplemented,
               "clamp is not supported for complex types");
  TANDEM_CHECK(!complex_bound, Runtime, "value cannot be converted to type double without overflow");
  // A number bound of a float16/bfloat16/float32 tensor converts to its dtype with PyTorch's overflow check:
  // a finite bound past the dtype's range is an error (inf and NaN pass).
  const DType d = x.dtype();
  if (d != DType::Float16 && d != DType::BFloat16 && d != DType::Float32) return;
  const double limit = d == DType::Float16    ? 65504.0
                       : d == DType::BFloat16 ? 3.3895313892515355e38
                                              : static_cast<double>(std::numeric_limits<float>::max());
  for (const Scalar* bound : {lo, hi}) {
    if (!bound) continue;
    const double v = bound->to_double();
    TANDEM_CHECK(!std::isfinite(v) || std::fabs(v) <= limit, Runtime, "value cannot be converted to type ",
                 dtype_cpp_name(d), " without overflow\nhint: the bound ", v, " is outside ", dtype_name(d),
                 "'s range; pass a bound within it, or inf");
  }
}

// Where an integer bound lies against an integer dtype's range: -1 below, 1 above, 0 inside.
int side_of_range(DType d, const Scalar& v) {
  if (v.is_big_unsigned()) return d == DType::UInt64 ? 0 : 1;  // past int64's largest value
  const int64_t i = v.to_int();
  return dispatch_dtype_with_uint(d, [&](auto tag) -> int {
    using T = typename decltype(tag)::type;
    using limits = std::numeric_limits<T>;
    if constexpr (!std::is_integral_v<T> || std::is_same_v<T, bool>) {
      return 0;
    } else if constexpr (std::is_unsigned_v<T>) {
      return i < 0 ? -1 : (static_cast<uint64_t>(i) > static_cast<uint64_t>(limits::max()) ? 1 : 0);
    } else {
      return i < static_cast<int64_t>(limits::min()) ? -1 : (i > static_cast<int64_t>(limits::max()) ? 1 : 0);
    }
  });
}

// Integer bounds of an integer clamp outside the dtype's range, as PyTorch: a min below the smallest value or
// a max above the largest changes nothing and is dropped (converted, it would wrap: clamp(uint8, -5, 100)
// became a min of 251), a max below the smallest or a min above the largest is an error.
void fit_int_bounds(DType d, std::optional<Scalar>& lo, std::optional<Scalar>& hi) {
  if (!is_integral(d, /*include_bool=*/false)) return;
  auto side = [&](const std::optional<Scalar>& v) { return v && v->is_int() ? side_of_range(d, *v) : 0; };
  const int lo_side = side(lo), hi_side = side(hi);
  TANDEM_CHECK(hi_side >= 0, Runtime, "Clamp max value ", hi->to_double(),
               " is outside the representable range of ", dtype_title(d));
  TANDEM_CHECK(lo_side <= 0, Runtime, "Clamp min value ", lo->to_double(),
               " is outside the representable range of ", dtype_title(d));
  if (lo_side < 0) lo.reset();
  if (hi_side > 0) hi.reset();
}

// A NaN bound makes every result NaN, as in PyTorch (the clamp functor's comparisons are false for NaN, so
// without this it would return x unchanged).
bool has_nan_bound(const Scalar* lo, const Scalar* hi) {
  return (lo && lo->is_float() && std::isnan(lo->to_double())) ||
         (hi && hi->is_float() && std::isnan(hi->to_double()));
}
// The type clamp computes in: x's promoted with the bounds' (a bool tensor clamped by ints is int64).
DType clamp_result_type(const Tensor& x, const Scalar* lo, const Scalar* hi) {
  ResultTypeState state;
  state.add(x);
  if (lo) state.add(*lo);
  if (hi) state.add(*hi);
  return state.result();
}

// PyTorch has no bool clamp kernel: its error names the kernel for the bounds given.
[[noreturn]] void throw_bool_clamp(const Tensor& x, const Scalar* lo, const Scalar* hi) {
  TANDEM_THROW(NotImplemented, "\"",
               lo && hi ? "clamp"
               : lo     ? "clamp_min"
                        : "clamp_max",
               "_scalar_", x.device().is_cpu() ? "cpu" : "cuda", "\" not implemented for 'Bool'");
}
}  // namespace

Tensor clamp(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  profiler::RecordScope profile_scope("aten::clamp", x, lo, hi);
  check_clamp_args(x, lo ? &*lo : nullptr, hi ? &*hi : nullptr);
  if (autograd::should_record(x))
    return autograd::record_clamp(x, lo, hi, autograd::without_grad([&] { return clamp(x, lo, hi); }));
  fit_int_bounds(x.dtype(), lo, hi);
  if (!lo && !hi) return to_dtype(x, x.dtype(), true);
  const Scalar* plo = lo ? &*lo : nullptr;
  const Scalar* phi = hi ? &*hi : nullptr;
  const DType dtype = clamp_result_type(x, plo, phi);
  if (dtype == DType::Bool) throw_bool_clamp(x, plo, phi);
  if (is_floating(dtype) && has_nan_bound(plo, phi))
    return fill_(empty_elementwise(x.sizes(), dtype, x.device(), {&x}),
                 Scalar(std::numeric_limits<double>::quiet_NaN()));
  Tensor in = to_dtype(x, dtype);
  Tensor out = empty_elementwise(x.sizes(), dtype, x.device(), {&x});
  TensorIterator iter;
  iter.add_output(out);
  iter.add_input(in);
  iter.build();
  kernel_table(x.device().type).clamp(iter, plo, phi);
  return out;
}

Tensor clamp_(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  profiler::RecordScope profile_scope("aten::clamp_", x, lo, hi);
  check_writeable(x, "clamp");
  check_clamp_args(x, lo ? &*lo : nullptr, hi ? &*hi : nullptr);
  fit_int_bounds(x.dtype(), lo, hi);
  if (!lo && !hi) return x;
  const Scalar* plo = lo ? &*lo : nullptr;
  const Scalar* phi = hi ? &*hi : nullptr;
  if (x.dtype() == DType::Bool) {  // PyTorch words this cast check with a lower-case "bool"
    const DType dtype = clamp_result_type(x, plo, phi);
    if (dtype == DType::Bool) throw_bool_clamp(x, plo, phi);
    TANDEM_THROW(Runtime, "result type ", dtype_title(dtype),
                 " can't be cast to the desired output type bool");
  }
  if (!is_floating(x.dtype()) && ((plo && plo->is_float()) || (phi && phi->is_float()))) {
    TANDEM_THROW(Runtime, "result type Float can't be cast to the desired output type ",
                 dtype_title(x.dtype()));
  }
  if (autograd::should_record(x))
    return autograd::inplace_with_grad(x, [&](const Tensor& before) { return clamp(before, lo, hi); });
  if (is_floating(x.dtype()) && has_nan_bound(plo, phi))
    return fill_(x, Scalar(std::numeric_limits<double>::quiet_NaN()));
  TensorIterator iter;
  iter.add_output(x);
  iter.add_input(x);
  iter.build();
  kernel_table(x.device().type).clamp(iter, plo, phi);
  x.bump_version();
  return x;
}

Tensor round(const Tensor& x, int64_t decimals) {
  if (decimals == 0) return round(x);
  TANDEM_CHECK(is_floating(x.dtype()), NotImplemented, "\"round_", x.device().is_cpu() ? "cpu" : "cuda",
               "\" not implemented for '", dtype_title(x.dtype()),
               "'\nhint: integers are already round; drop decimals=");
  // float16/bfloat16 scale in float32 and round once at the end, as PyTorch's kernel (60000 * 100 fits
  // there).
  if (x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16)
    return to_dtype(round(to_dtype(x, DType::Float32), decimals), x.dtype());
  // As PyTorch: scale, round half to even, scale back (so 0.125 -> 0.12 at 2 decimals).
  double ten = std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals));
  if (decimals > 0) return div(round(mul(x, Scalar(ten))), Scalar(ten));
  return mul(round(div(x, Scalar(ten))), Scalar(ten));
}

Tensor clamp(const Tensor& x, const Tensor* lo, const Tensor* hi) {
  profiler::RecordScope profile_scope("aten::clamp", x, lo, hi);
  TANDEM_CHECK(lo || hi, Runtime, "torch.clamp: At least one of 'min' or 'max' must not be None");
  TANDEM_CHECK(!is_complex(x.dtype()), NotImplemented, "clamp is not supported for complex types");
  // A complex bound makes the result complex, for which PyTorch's kernel (clamp for two bounds, maximum or
  // minimum for one) has no form: its error names that kernel.
  if ((lo && is_complex(lo->dtype())) || (hi && is_complex(hi->dtype()))) {
    const DType result =
        lo && hi ? result_type(x, is_complex(lo->dtype()) ? *lo : *hi) : result_type(x, lo ? *lo : *hi);
    TANDEM_THROW(NotImplemented, "\"",
                 lo && hi ? "clamp"
                 : lo     ? "maximum"
                          : "minimum",
                 x.device().is_cpu() ? "_cpu" : "_cuda", "\" not implemented for '", dtype_title(result),
                 "'\nhint: clamp compares real values; pass real bounds");
  }
  Tensor r = x;
  if (lo) r = maximum(r, *lo);
  if (hi) r = minimum(r, *hi);
  return r;
}

}  // namespace tandem
