// Elementwise ops as module functions (tandem.add), methods (t.add, t.add_) and operators (t + u), all
// generated from kernels/op_list.def.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "autograd/formulas.h"
#include "autograd/type_names.h"
#include "bindings.h"
#include "core/error.h"
#include "kernels/op_rules.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/indexing.h"
#include "ops/out_arg.h"
#include "ops/type_promotion.h"
#include "parser_errors.h"

namespace tandem::py {

namespace {

struct BinaryFns {
  const char* name;
  Tensor (*tt)(const Tensor&, const Tensor&);
  Tensor (*ts)(const Tensor&, const Scalar&);
  Tensor (*st)(const Scalar&, const Tensor&);
  Tensor (*tt_)(const Tensor&, const Tensor&);
  Tensor (*ts_)(const Tensor&, const Scalar&);
  Tensor (*tt_out)(const Tensor&, const Tensor&, const Tensor&);
  Tensor (*ts_out)(const Tensor&, const Scalar&, const Tensor&);
  Tensor (*st_out)(const Scalar&, const Tensor&, const Tensor&);
};

nb::object not_implemented() { return nb::borrow(Py_NotImplemented); }

bool is_ndarray(nb::handle h) {
  const char* name = Py_TYPE(h.ptr())->tp_name;
  return name && std::strcmp(name, "numpy.ndarray") == 0;
}

// PyTorch's parser refuses an ndarray where a Tensor or a Number goes (its operators return NotImplemented,
// so NumPy computes `t * arr` with its own promotion and __array_wrap__ makes the result a tensor).
[[noreturn]] void refuse_ndarray(const char* name, int position) {
  TANDEM_THROW(Type, name, "(): argument 'other' (position ", position,
               ") must be Tensor, not numpy.ndarray\nhint: convert it first: tandem.as_tensor(arr)");
}

// self <op> other, with other a tensor or a number; NotImplemented otherwise (an ndarray included) so Python
// tries the other side.
nb::object apply(const BinaryFns& f, const Tensor& self, nb::handle other, bool reflected) {
  if (is_tensor(other)) {
    const Tensor& o = as_tensor_ref(other);
    return wrap(reflected ? f.tt(o, self) : f.tt(self, o));
  }
  Scalar s;
  if (!to_scalar(other, s, true)) return not_implemented();
  return wrap(reflected ? f.st(s, self) : f.ts(self, s));
}

// The second operand's keyword as PyTorch names it (x.mul(other=y), torch.pow(x, exponent=2)).
// torch.special's polynomials take (x, n).
constexpr const char* second_operand_name(std::string_view op) {
  return op == "pow"                          ? "exponent"
         : op == "heaviside"                  ? "values"
         : op.find("_polynomial_") != op.npos ? "n"
                                              : "other";
}
constexpr const char* first_operand_name(std::string_view op) {
  return op.find("_polynomial_") != op.npos ? "x" : "input";
}

// igamma/igammac have only PyTorch's (Tensor, Tensor) overload: a number is its TypeError. (maximum, atan2,
// hypot, logaddexp, ... take a Number here although PyTorch's parser refuses one: tandem's own code, the
// Array API namespace and NumPy habits rely on it; docs/compat.md.)
bool tensor_operands_only(const BinaryFns& f) {
  const std::string_view name(f.name);
  return name == "igamma" || name == "igammac";
}
// For Tensor.name(other) and Tensor.name_(other) PyTorch counts other as position 1 (`suffix`: "_" in place).
void check_tensor_operands(const BinaryFns& f, nb::handle a, nb::handle b, bool method = false,
                           const char* suffix = "") {
  if (!tensor_operands_only(f)) return;
  TANDEM_CHECK(is_tensor(a), Type, f.name, "(): argument '", first_operand_name(f.name),
               "' (position 1) must be Tensor, not ", parser_type_name(a));
  TANDEM_CHECK(is_tensor(b), Type, f.name, suffix, "(): argument '", second_operand_name(f.name),
               "' (position ", method ? 1 : 2, ") must be Tensor, not ", parser_type_name(b));
}

// Which Number forms PyTorch's parser lists for a binary op (its overloads): none for most (a Python number
// is read as a Tensor argument there), `other` only (the comparisons, fmod, copysign; floor_divide's without
// out=), or a Number on either side (remainder, the bitwise ops; pow, xlogy, xlog1py and zeta with out= on
// each).
enum class NumberForms { None, Other, OtherWithoutOut, EitherSide, EitherSideWithOut };
NumberForms number_forms(std::string_view op) {
  static const std::unordered_set<std::string_view> other{"eq", "ne", "lt",   "le",
                                                          "gt", "ge", "fmod", "copysign"};
  static const std::unordered_set<std::string_view> either{
      "remainder", "bitwise_left_shift", "bitwise_right_shift", "bitwise_and", "bitwise_or", "bitwise_xor"};
  if (other.count(op)) return NumberForms::Other;
  if (op == "floor_divide") return NumberForms::OtherWithoutOut;
  if (either.count(op)) return NumberForms::EitherSide;
  if (op == "pow" || op == "xlogy" || op == "xlog1py" || op == "zeta") return NumberForms::EitherSideWithOut;
  return NumberForms::None;
}

// PyTorch's parser error for an operand of a binary op that is neither a tensor nor a number (the first
// operand when `first`): the ops with Number forms list their overloads ("eq() received an invalid
// combination of arguments - got (Tensor, str), ..."), the others name the argument ("add(): argument 'other'
// (position 2) must be Tensor, not str"). For a method, `name` is its own ("eq_" in place), a is self and b
// the operand.
[[noreturn]] void throw_operand_error(const std::string& name, nb::handle a, nb::handle b, bool method,
                                      bool first = false, nb::handle out = nb::handle()) {
  const std::string op = !name.empty() && name.back() == '_' ? name.substr(0, name.size() - 1) : name;
  const NumberForms forms = number_forms(op);
  const bool out_given = out.is_valid() && !out.is_none();
  // One overload alone is plausible for ops without Number forms, and for floor_divide with out=: PyTorch
  // names the argument.
  if (forms == NumberForms::None || (out_given && forms == NumberForms::OtherWithoutOut)) {
    TANDEM_THROW(Type, name, "(): argument '", first ? first_operand_name(op) : second_operand_name(op),
                 "' (position ", first || method ? 1 : 2, ") must be Tensor, not ",
                 parser_type_name(first ? a : b));
  }
  const std::string x = std::string(second_operand_name(op));
  const std::string tensor_x = "Tensor " + x, number_x = "Number " + x;
  if (method) throw_invalid_combination(name.c_str(), {b}, {{{tensor_x.c_str()}}, {{number_x.c_str()}}});
  const char* with_out = "*, Tensor out = None";
  std::vector<ParserSignature> signatures{{{"Tensor input", tensor_x.c_str()}, with_out}};
  if (forms == NumberForms::EitherSide || forms == NumberForms::EitherSideWithOut)
    signatures.push_back(
        {{"Number self", tensor_x.c_str()}, forms == NumberForms::EitherSideWithOut ? with_out : nullptr});
  signatures.push_back(
      {{"Tensor input", number_x.c_str()}, forms == NumberForms::OtherWithoutOut ? nullptr : with_out});
  if (out_given) throw_invalid_combination(name.c_str(), {a, b}, signatures, {{"out", out}});
  throw_invalid_combination(name.c_str(), {a, b}, signatures);
}

// The comparisons, copysign and fmod take a Number only as their second operand (PyTorch's overloads).
void check_number_not_first(const BinaryFns& f, nb::handle a, nb::handle b, nb::handle out = nb::handle()) {
  if (!is_tensor(a) && number_forms(f.name) == NumberForms::Other)
    throw_operand_error(f.name, a, b, false, true, out);
}

nb::object apply_inplace(const BinaryFns& f, const Tensor& self, nb::handle other) {
  check_tensor_operands(f, nb::cast(self), other, /*method=*/true, "_");
  if (is_tensor(other)) return wrap(f.tt_(self, as_tensor_ref(other)));
  Scalar s;
  if (!to_scalar(other, s, true)) return not_implemented();
  return wrap(f.ts_(self, s));
}

// The tensor passed as out= (ops/out_arg.h has PyTorch's rules; resize_out gives its resize warning).
Tensor& out_argument(nb::handle out, const char* fn) {
  TANDEM_CHECK(is_tensor(out), Type, fn, "(): argument 'out' must be Tensor, not ", parser_type_name(out));
  return as_tensor_ref(out);
}

// tandem.add(input, other, out=t): the result written into t, which is returned (the same object).
nb::object apply_out(const BinaryFns& f, nb::handle a, nb::handle b, nb::handle out) {
  check_tensor_operands(f, a, b);
  check_number_not_first(f, a, b, out);
  if (is_tensor(a)) {
    const Tensor& ta = as_tensor_ref(a);
    if (is_ndarray(b)) refuse_ndarray(f.name, 2);
    if (is_tensor(b)) {
      f.tt_out(ta, as_tensor_ref(b), out_argument(out, f.name));
      return nb::borrow(out);
    }
    Scalar s;
    if (!to_scalar(b, s, true)) throw_operand_error(f.name, a, b, false, false, out);
    f.ts_out(ta, s, out_argument(out, f.name));
    return nb::borrow(out);
  }
  Scalar s;
  const bool number_first = to_scalar(a, s, true);
  if (!is_tensor(b) || !number_first) throw_operand_error(f.name, a, b, false, !number_first, out);
  f.st_out(s, as_tensor_ref(b), out_argument(out, f.name));
  return nb::borrow(out);
}

// tandem.add(input, other): like the operator, but a TypeError instead of NotImplemented.
nb::object apply_function(const BinaryFns& f, nb::handle a, nb::handle b, bool method = false) {
  check_tensor_operands(f, a, b, method);
  check_number_not_first(f, a, b);
  if (is_tensor(a)) {
    if (is_ndarray(b)) refuse_ndarray(f.name, method ? 1 : 2);
    nb::object r = apply(f, as_tensor_ref(a), b, false);
    if (r.is(Py_NotImplemented)) throw_operand_error(f.name, a, b, method);
    return r;
  }
  // pow, xlogy, xlog1py and zeta have PyTorch overloads with a Number on either side, so two numbers are
  // their overload error.
  if (!is_tensor(b) && number_forms(f.name) == NumberForms::EitherSideWithOut)
    throw_operand_error(f.name, a, b, false);
  Scalar s;
  // PyTorch's add/sub/mul/div/floor_divide take two numbers: the first as a 0-d tensor of its own kind
  // (tandem.mul(5, 5) is tensor(25), tandem.mul(2.5, 2) a default-float tensor).
  static const std::unordered_set<std::string_view> two_numbers{"add", "sub", "mul", "div", "floor_divide"};
  const bool number_first = to_scalar(a, s, true);
  if (!is_tensor(b)) {
    Scalar sb;
    if (!method && two_numbers.count(f.name) && number_first && to_scalar(b, sb, true))
      return wrap(f.ts(full(DimVector{}, s, s.natural_dtype()), sb));
    // PyTorch's parser reads the arguments in order: the number first is refused before b where it takes none
    throw_operand_error(f.name, a, b, false, !number_first || !two_numbers.count(f.name));
  }
  if (!number_first) throw_operand_error(f.name, a, b, false, true);
  return wrap(f.st(s, as_tensor_ref(b)));
}

#define TANDEM_BINARY_OP(name, functor, rule, ...)                                               \
  const BinaryFns name##_fns{                                                                    \
      #name,                                                                                     \
      static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&tandem::name),                      \
      static_cast<Tensor (*)(const Tensor&, const Scalar&)>(&tandem::name),                      \
      static_cast<Tensor (*)(const Scalar&, const Tensor&)>(&tandem::name),                      \
      static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&tandem::name##_),                   \
      static_cast<Tensor (*)(const Tensor&, const Scalar&)>(&tandem::name##_),                   \
      static_cast<Tensor (*)(const Tensor&, const Tensor&, const Tensor&)>(&tandem::name##_out), \
      static_cast<Tensor (*)(const Tensor&, const Scalar&, const Tensor&)>(&tandem::name##_out), \
      static_cast<Tensor (*)(const Scalar&, const Tensor&, const Tensor&)>(&tandem::name##_out)};
#include "kernels/op_list.def"
#undef TANDEM_BINARY_OP

// add/sub with alpha (a ± alpha * b) in the forms the bindings call (ops/elementwise.h).
struct AlphaFns {
  Tensor (*tt)(const Tensor&, const Tensor&, const Scalar&);
  Tensor (*ts)(const Tensor&, const Scalar&, const Scalar&);
  Tensor (*tt_)(const Tensor&, const Tensor&, const Scalar&);
  Tensor (*ts_)(const Tensor&, const Scalar&, const Scalar&);
  Tensor (*tt_out)(const Tensor&, const Tensor&, const Scalar&, const Tensor&);
  Tensor (*ts_out)(const Tensor&, const Scalar&, const Scalar&, const Tensor&);
};
#define TANDEM_ALPHA_FNS(name)                                                                \
  const AlphaFns name##_alpha_fns{                                                            \
      static_cast<Tensor (*)(const Tensor&, const Tensor&, const Scalar&)>(&tandem::name),    \
      static_cast<Tensor (*)(const Tensor&, const Scalar&, const Scalar&)>(&tandem::name),    \
      static_cast<Tensor (*)(const Tensor&, const Tensor&, const Scalar&)>(&tandem::name##_), \
      static_cast<Tensor (*)(const Tensor&, const Scalar&, const Scalar&)>(&tandem::name##_), \
      static_cast<Tensor (*)(const Tensor&, const Tensor&, const Scalar&, const Tensor&)>(    \
          &tandem::name##_out),                                                               \
      static_cast<Tensor (*)(const Tensor&, const Scalar&, const Scalar&, const Tensor&)>(    \
          &tandem::name##_out)};
TANDEM_ALPHA_FNS(add)
TANDEM_ALPHA_FNS(sub)
#undef TANDEM_ALPHA_FNS

const AlphaFns& alpha_fns(const BinaryFns& f) { return &f == &add_fns ? add_alpha_fns : sub_alpha_fns; }

// The alpha of add/sub(input, other, alpha=), after PyTorch's checks (before any arithmetic): a float alpha
// cannot scale an integer result, a complex one only a complex result, a bool one only a bool result.
Scalar checked_alpha(const char* op, const Tensor& input, nb::handle b, nb::handle alpha) {
  Scalar s = number_argument(alpha, op, "alpha");
  auto integral = [](DType d) { return !is_floating(d) && !is_complex(d); };
  const bool integral_result =
      integral(input.dtype()) && (is_tensor(b) ? integral(as_tensor_ref(b).dtype())
                                               : !PyFloat_Check(b.ptr()) && !PyComplex_Check(b.ptr()));
  TANDEM_CHECK(
      !(integral_result && s.is_float()), Runtime,
      "For integral input tensors, argument alpha must not be a floating point number.\nhint: pass an "
      "integer alpha, or convert the tensors to a floating dtype first");
  const bool complex_result =
      is_complex(input.dtype()) ||
      (is_tensor(b) ? is_complex(as_tensor_ref(b).dtype()) : PyComplex_Check(b.ptr()));
  TANDEM_CHECK(
      !s.is_complex() || complex_result, Runtime,
      "For non-complex input tensors, argument alpha must not be a complex number.\nhint: pass a real "
      "alpha, or convert the tensors to a complex dtype first");
  const bool bool_result = input.dtype() == DType::Bool &&
                           (is_tensor(b) ? as_tensor_ref(b).dtype() == DType::Bool : PyBool_Check(b.ptr()));
  TANDEM_CHECK(!s.is_bool() || bool_result, Runtime,
               "Boolean alpha only supported for Boolean results.\nhint: pass a number alpha (1, not True)");
  // A Boolean result stays Boolean: the alpha counts as its truth value (add(b, b, alpha=2) is b | b).
  if (bool_result && !s.is_bool()) s = Scalar(s.to_double() != 0.0);
  return s;
}

// add/sub's other when it is not a tensor: a number, else PyTorch's TypeError.
Scalar other_number(const char* op, nb::handle b, bool method) {
  Scalar sb;
  if (!to_scalar(b, sb, true)) throw_operand_error(op, nb::none(), b, method);
  return sb;
}

// input ± alpha * other for a tensor input, into `out` when it is given (returned then).
nb::object alpha_result(const BinaryFns& f, const char* op, const Tensor& input, nb::handle b,
                        nb::handle alpha, nb::handle out, bool method) {
  const Scalar s = checked_alpha(op, input, b, alpha);
  const AlphaFns& g = alpha_fns(f);
  if (is_tensor(b)) {
    const Tensor& tb = as_tensor_ref(b);
    if (out.is_none()) return wrap(g.tt(input, tb, s));
    g.tt_out(input, tb, s, out_argument(out, op));
    return nb::borrow(out);
  }
  const Scalar sb = other_number(op, b, method);
  if (out.is_none()) return wrap(g.ts(input, sb, s));
  g.ts_out(input, sb, s, out_argument(out, op));
  return nb::borrow(out);
}

// a + alpha * b, PyTorch's add/sub signature, with or without out=.
nb::object with_alpha(const BinaryFns& f, nb::handle a, nb::handle b, nb::handle alpha, nb::handle out) {
  if (alpha.is_none()) return out.is_none() ? apply_function(f, a, b) : apply_out(f, a, b, out);
  Scalar sa;
  if (!is_tensor(a) && is_tensor(b) && to_scalar(a, sa, true)) {
    // A number as input is PyTorch's wrapped number (lightly's W-MSE: torch.sub(input=2, other=x, alpha=2)):
    // it takes part as a Number does in `2 - x`, so the tensor's dtype wins within its category.
    const Tensor number = full(DimVector{}, sa, sa.natural_dtype());
    Tensor scaled = tandem::mul(as_tensor_ref(b), checked_alpha(f.name, number, b, alpha));
    if (out.is_none()) return wrap(f.st(sa, scaled));
    return apply_out(f, a, nb::cast(scaled), out);
  }
  return alpha_result(f, f.name, expect_tensor(a, f.name, "input"), b, alpha, out, false);
}

// Tensor.add/sub(other, alpha=): self + alpha * other.
nb::object alpha_method(const BinaryFns& f, const Tensor& self, nb::handle b, nb::handle alpha) {
  return alpha_result(f, f.name, self, b, alpha, nb::none(), true);
}

// Tensor.add_/sub_(other, alpha=), in place; `name` is the method's, for the messages.
nb::object alpha_method_inplace(const BinaryFns& f, const char* name, nb::handle self, nb::handle b,
                                nb::handle alpha) {
  const Tensor& t = self_tensor(self, name);
  if (is_ndarray(b)) refuse_ndarray(name, 1);
  const Scalar s = checked_alpha(name, t, b, alpha);
  const AlphaFns& g = alpha_fns(f);
  if (is_tensor(b))
    g.tt_(t, as_tensor_ref(b), s);
  else
    g.ts_(t, other_number(name, b, true), s);
  return nb::borrow(self);
}

// The deprecated (Number alpha, Tensor other) overloads take only that pair (anything else goes on to
// nanobind's "incompatible function arguments"), and warn as PyTorch does, once per process whichever
// deprecated overload comes first (python/tandem/_deprecated_overloads.py keeps that state and the text).
void expect_deprecated_overload(const char* name, bool function, nb::handle alpha, nb::handle other) {
  if (!PyNumber_Check(alpha.ptr()) || is_tensor(alpha) || !is_tensor(other)) throw nb::next_overload();
  nb::module_::import_("tandem._deprecated_overloads").attr("warn_once")(name, function);
}

// tandem.exp(input, out=t) for the op list's unary ops.
template <Tensor (*Fn)(const Tensor&), Tensor (*FnOut)(const Tensor&, const Tensor&)>
nb::object unary_function(const Tensor& x, nb::handle out, const char* name) {
  if (out.is_none()) return wrap(Fn(x));
  FnOut(x, out_argument(out, name));
  return nb::borrow(out);
}

const BinaryFns& arithmetic_fns(ArithmeticOperator op) {
  switch (op) {
    case ArithmeticOperator::Add:
      return add_fns;
    case ArithmeticOperator::Sub:
      return sub_fns;
    case ArithmeticOperator::Mul:
      return mul_fns;
    case ArithmeticOperator::TrueDiv:
      break;
  }
  return div_fns;
}

}  // namespace

nb::object tensor_operator(ArithmeticOperator op, const Tensor& self, nb::handle other, bool reflected) {
  return apply(arithmetic_fns(op), self, other, reflected);
}

nb::object tensor_inplace_operator(ArithmeticOperator op, nb::handle self, nb::handle other) {
  static constexpr const char* names[] = {"__iadd__", "__isub__", "__imul__", "__itruediv__"};
  const char* name = names[static_cast<int>(op)];
  nb::object r = apply_inplace(arithmetic_fns(op), self_tensor(self, name), other);
  return r.is(Py_NotImplemented) ? r : nb::borrow(self);
}

// `result` written into out= (PyTorch's rules from ops/out_arg.h and its warning when an out with elements is
// resized), or returned as is without out.
nb::object into_out(const char* fn, const Tensor& result, nb::handle out,
                    std::initializer_list<const Tensor*> inputs, OutOverlap overlap) {
  if (out.is_none()) return wrap(result);
  Tensor& o = expect_tensor(out, fn, "out");
  check_out(fn, o, result.dtype(), result.device(), inputs);
  resize_out(o, result.sizes());
  check_out_overlap(o, inputs, overlap);
  copy_(o, result);
  return nb::borrow(out);
}

std::optional<DType> scan_dtype(std::optional<DType> dtype, nb::handle out) {
  if (!is_tensor(out)) return dtype;  // None, or not a tensor: into_out says so
  const DType given = as_tensor_ref(out).dtype();
  TANDEM_CHECK(!dtype || *dtype == given, Runtime, "Expected out tensor to have dtype ",
               dtype_cpp_name(*dtype), ", but got ", dtype_cpp_name(given),
               " instead\nhint: give out= the dtype= you ask for, or leave "
               "dtype= out (the result then takes out's dtype)");
  return given;
}

nb::object into_outs(const char* fn, nb::object results, nb::handle out,
                     std::initializer_list<const Tensor*> inputs, const char* dtype_error,
                     const char* indices_dtype_error) {
  if (out.is_none()) return results;
  const size_t n = nb::len(results);
  const bool sequence = nb::isinstance<nb::tuple>(out) || nb::isinstance<nb::list>(out);
  TANDEM_CHECK(sequence, Type, fn, "(): argument 'out' must be tuple of ", n, " Tensors, not ",
               parser_type_name(out), "\nhint: pass one out tensor per result, e.g. out=(values, indices)");
  TANDEM_CHECK(nb::len(out) == n, Type, "expected tuple of ", n, " elements but got ", nb::len(out),
               "\nhint: pass one out tensor per result of ", fn, ", e.g. out=(values, indices)");
  nb::list written;
  for (size_t i = 0; i < n; ++i) {
    const char* message = i == 1 && indices_dtype_error ? indices_dtype_error : dtype_error;
    written.append(write_out(fn, as_tensor_ref(results[i]), nb::object(out[i]), inputs, message));
  }
  // PyTorch returns its "_out" twin of the named tuple (torch.return_types.max_out) for a call with out=
  // (python/tandem/_return_types.py makes them).
  nb::handle type = results.type();
  const std::string out_name = nb::cast<std::string>(type.attr("__name__")) + "_out";
  nb::object types = nb::module_::import_("tandem.return_types");
  return (nb::hasattr(types, out_name.c_str()) ? types.attr(out_name.c_str()) : nb::borrow(type))(*written);
}

std::string out_dtype_message(std::string msg, DType out, DType result, Device device) {
  const std::pair<const char*, std::string> fills[] = {
      {"{out_cpp}", std::string(dtype_cpp_name(out))},
      {"{result_cpp}", std::string(dtype_cpp_name(result))},
      {"{out_legacy}", autograd::legacy_type_name(out, device)},
      {"{result_legacy}", autograd::legacy_type_name(result, device)},
      {"{out}", std::string(dtype_title(out))},
      {"{result}", std::string(dtype_title(result))}};
  for (const auto& [key, value] : fills)
    for (size_t at; (at = msg.find(key)) != std::string::npos;) msg.replace(at, std::strlen(key), value);
  return msg;
}

nb::object write_out(const char* fn, const Tensor& result, nb::handle out,
                     std::initializer_list<const Tensor*> inputs, const char* dtype_error,
                     OutOverlap overlap) {
  if (out.is_none()) return wrap(result);
  Tensor& o = expect_tensor(out, fn, "out");
  for (const Tensor* t : inputs) check_out_autograd(fn, o, {t});
  if (!dtype_error) return into_out(fn, result, out, inputs, overlap);
  TANDEM_CHECK(o.dtype() == result.dtype(), Runtime,
               out_dtype_message(dtype_error, o.dtype(), result.dtype(), o.device()), "\nhint: ", fn,
               " writes its own dtype into out= (no conversion): pass an out tensor of dtype ",
               dtype_name(result.dtype()));
  assign_out_exact(fn, o, result, inputs, overlap);
  return nb::borrow(out);
}

// PyTorch's unary functions without out=.
constexpr bool no_out_function(std::string_view op) {
  return op == "isnan" || op == "isinf" || op == "isfinite";
}

void init_elementwise(nb::module_& m) {
  auto cls = nb::type<Tensor>();
  nb::class_<Tensor>& tensor = static_cast<nb::class_<Tensor>&>(cls);

  // Functions take out= as PyTorch's do (isnan, isinf and isfinite have none).
#define TANDEM_UNARY_OP(name, functor, rule, ...)                                   \
  if constexpr (no_out_function(#name))                                             \
    m.def(                                                                          \
        #name, [](const Tensor& x) { return tandem::name(x); }, nb::arg("input"));  \
  else                                                                              \
    m.def(                                                                          \
        #name,                                                                      \
        [](const Tensor& x, nb::handle out) {                                       \
          return unary_function<&tandem::name, &tandem::name##_out>(x, out, #name); \
        },                                                                          \
        nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());              \
  tensor.def(#name, [](const Tensor& x) { return tandem::name(x); });               \
  tensor.def(#name "_", returning_self(#name "_", [](const Tensor& x) { return tandem::name##_(x); }));
#include "kernels/op_list.def"
#undef TANDEM_UNARY_OP

#define TANDEM_BINARY_OP(name, functor, rule, ...)                                                           \
  m.def(                                                                                                     \
      #name,                                                                                                 \
      [](nb::handle a, nb::handle b, nb::handle out) {                                                       \
        return out.is_none() ? apply_function(name##_fns, a, b) : apply_out(name##_fns, a, b, out);          \
      },                                                                                                     \
      nb::arg(first_operand_name(#name)).none(), nb::arg(second_operand_name(#name)).none(), nb::kw_only(),  \
      nb::arg("out") = nb::none());                                                                          \
  tensor.def(                                                                                                \
      #name, [](const Tensor& a, nb::handle b) { return apply_function(name##_fns, nb::cast(a), b, true); }, \
      nb::arg(second_operand_name(#name)).none());                                                           \
  tensor.def(#name "_",                                                                                      \
             returning_self(#name "_",                                                                       \
                            [](const Tensor& a, nb::handle b) {                                              \
                              if (is_ndarray(b)) refuse_ndarray(#name "_", 1);                               \
                              nb::object r = apply_inplace(name##_fns, a, b);                                \
                              if (r.is(Py_NotImplemented))                                                   \
                                throw_operand_error(#name "_", nb::cast(a), b, true);                        \
                            }),                                                                              \
             nb::arg(second_operand_name(#name)).none());
#include "kernels/op_list.def"
#undef TANDEM_BINARY_OP

  // The op list itself, so tests parametrise over every op (a new op in op_list.def is tested without
  // editing a hand-kept table): (name, dtype rule, autograd node name or None).
  // PyTorch's first check of an out= call, before a Python composition computes anything.
  m.def(
      "_check_out_autograd",
      [](const char* fn, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outs) {
        for (const Tensor& o : outs) {
          check_out_autograd(fn, o, {});
          for (const Tensor& t : inputs) check_out_autograd(fn, o, {&t});
        }
      },
      nb::arg("fn"), nb::arg("inputs"), nb::arg("outs"));
  m.def(
      "_write_out",
      [](const std::string& fn, const Tensor& result, nb::handle out, const std::vector<Tensor>& inputs,
         std::optional<std::string> dtype_error) {
        if (!out.is_none())
          for (const Tensor& t : inputs)
            check_out_autograd(fn.c_str(), expect_tensor(out, fn.c_str(), "out"), {&t});
        return write_out(fn.c_str(), result, out, {}, dtype_error ? dtype_error->c_str() : nullptr);
      },
      nb::arg("fn"), nb::arg("result"), nb::arg("out"), nb::arg("inputs"),
      nb::arg("dtype_error") = nb::none());
  m.def("_unary_ops", [] {
    std::vector<std::tuple<std::string, std::string, nb::object>> ops;
#define TANDEM_UNARY_OP(name, functor, rule, ...)                                      \
  ops.emplace_back(#name, #rule,                                                       \
                   autograd::unary_node_name(UnaryOp::name)                            \
                       ? nb::object(nb::str(autograd::unary_node_name(UnaryOp::name))) \
                       : nb::none());
#include "kernels/op_list.def"
#undef TANDEM_UNARY_OP
    return ops;
  });
  m.def("_binary_ops", [] {
    std::vector<std::tuple<std::string, std::string, nb::object>> ops;
#define TANDEM_BINARY_OP(name, functor, rule, ...)                                       \
  ops.emplace_back(#name, #rule,                                                         \
                   autograd::binary_node_name(BinaryOp::name)                            \
                       ? nb::object(nb::str(autograd::binary_node_name(BinaryOp::name))) \
                       : nb::none());
#include "kernels/op_list.def"
#undef TANDEM_BINARY_OP
    return ops;
  });

  // add/sub take alpha, as in PyTorch.
  m.def(
      "add",
      [](nb::handle a, nb::handle b, nb::handle alpha, nb::handle out) {
        return with_alpha(add_fns, a, b, alpha, out);
      },
      nb::arg("input").none(), nb::arg("other").none(), nb::kw_only(), nb::arg("alpha") = nb::none(),
      nb::arg("out") = nb::none());
  m.def(
      "sub",
      [](nb::handle a, nb::handle b, nb::handle alpha, nb::handle out) {
        return with_alpha(sub_fns, a, b, alpha, out);
      },
      nb::arg("input").none(), nb::arg("other").none(), nb::kw_only(), nb::arg("alpha") = nb::none(),
      nb::arg("out") = nb::none());

  // Tensor.add/sub(other, alpha=) and add_/sub_(other, alpha=) (hand-written SGD: p.data.add_(p.grad,
  // alpha=-lr)). Calls without alpha match the plain overloads defined with the op list above.
#define TANDEM_ALPHA_METHODS(name)                                                                 \
  tensor.def(                                                                                      \
      #name,                                                                                       \
      [](const Tensor& self, nb::handle b, nb::handle alpha) {                                     \
        return alpha_method(name##_fns, self, b, alpha);                                           \
      },                                                                                           \
      nb::arg("other").none(), nb::kw_only(), nb::arg("alpha").none());                            \
  tensor.def(                                                                                      \
      #name "_",                                                                                   \
      [](nb::handle self, nb::handle b, nb::handle alpha) {                                        \
        return alpha_method_inplace(name##_fns, #name "_", self, b, alpha);                        \
      },                                                                                           \
      nb::arg("other").none(), nb::kw_only(), nb::arg("alpha").none());                            \
  /* PyTorch's deprecated scalar-first overloads, t.add_(alpha, other) (old custom optimizers, the \
     char-RNN tutorial): nanobind tries them only after the signatures above refuse a call, so the \
     usual call pays nothing for them. */                                                          \
  tensor.def(#name, [](const Tensor& self, nb::handle alpha, nb::handle b) {                       \
    expect_deprecated_overload(#name, false, alpha, b);                                            \
    return alpha_method(name##_fns, self, b, alpha);                                               \
  });                                                                                              \
  tensor.def(#name "_", [](nb::handle self, nb::handle alpha, nb::handle b) {                      \
    expect_deprecated_overload(#name "_", false, alpha, b);                                        \
    return alpha_method_inplace(name##_fns, #name "_", self, b, alpha);                            \
  });                                                                                              \
  m.def(                                                                                           \
      #name,                                                                                       \
      [](nb::handle a, nb::handle alpha, nb::handle b, nb::handle out) {                           \
        expect_deprecated_overload(#name, true, alpha, b);                                         \
        return with_alpha(name##_fns, a, b, alpha, out);                                           \
      },                                                                                           \
      nb::arg("input"), nb::arg("alpha"), nb::arg("other"), nb::kw_only(), nb::arg("out") = nb::none());
  TANDEM_ALPHA_METHODS(add)
  TANDEM_ALPHA_METHODS(sub)
#undef TANDEM_ALPHA_METHODS

  // Operators. Each returns NotImplemented for operands it does not understand.
// The operand accepts None (nanobind refuses it otherwise) so that `t == None` is False and `t + None` is
// Python's own TypeError, as in PyTorch: apply() answers NotImplemented and Python takes it from there.
#define TANDEM_OPERATOR(py, fns)                                                           \
  tensor.def(                                                                              \
      "__" py "__", [](const Tensor& a, nb::handle b) { return apply(fns, a, b, false); }, \
      nb::arg("other").none());                                                            \
  tensor.def(                                                                              \
      "__r" py "__", [](const Tensor& a, nb::handle b) { return apply(fns, a, b, true); }, \
      nb::arg("other").none());                                                            \
  tensor.def(                                                                              \
      "__i" py "__",                                                                       \
      [](nb::handle self, nb::handle b) {                                                  \
        nb::object r = apply_inplace(fns, self_tensor(self, "__i" py "__"), b);            \
        return r.is(Py_NotImplemented) ? r : nb::borrow(self);                             \
      },                                                                                   \
      nb::arg("other").none());
  TANDEM_OPERATOR("add", add_fns)
  TANDEM_OPERATOR("sub", sub_fns)
  TANDEM_OPERATOR("mul", mul_fns)
  TANDEM_OPERATOR("truediv", div_fns)
  TANDEM_OPERATOR("floordiv", floor_divide_fns)
  TANDEM_OPERATOR("mod", remainder_fns)
  TANDEM_OPERATOR("pow", pow_fns)
  TANDEM_OPERATOR("and", bitwise_and_fns)
  TANDEM_OPERATOR("or", bitwise_or_fns)
  TANDEM_OPERATOR("xor", bitwise_xor_fns)
  TANDEM_OPERATOR("lshift", bitwise_left_shift_fns)
  TANDEM_OPERATOR("rshift", bitwise_right_shift_fns)
#undef TANDEM_OPERATOR
#define TANDEM_COMPARE(py, fns)                                                            \
  tensor.def(                                                                              \
      "__" py "__", [](const Tensor& a, nb::handle b) { return apply(fns, a, b, false); }, \
      nb::arg("other").none());
  // `t == arr` alone takes an ndarray as PyTorch's __eq__ does (a bool tensor); `t != arr`, `t < arr`, ...
  // are NotImplemented there, so NumPy's or Python's own comparison decides.
  tensor.def(
      "__eq__",
      [](const Tensor& a, nb::handle b) {
        if (!is_ndarray(b)) return apply(eq_fns, a, b, false);
        static nb::handle as_tensor = nb::object(nb::module_::import_("tandem").attr("as_tensor")).release();
        return apply(eq_fns, a, as_tensor(b), false);
      },
      nb::arg("other").none());
  TANDEM_COMPARE("ne", ne_fns)
  TANDEM_COMPARE("lt", lt_fns)
  TANDEM_COMPARE("le", le_fns)
  TANDEM_COMPARE("gt", gt_fns)
  TANDEM_COMPARE("ge", ge_fns)
#undef TANDEM_COMPARE
  // A tensor compared with == is not hashable by value; identity hashing keeps tensors usable as dict keys.
  tensor.def("__hash__", [](nb::handle self) { return reinterpret_cast<intptr_t>(self.ptr()); });
  tensor.def("__neg__", [](const Tensor& x) { return tandem::neg(x); });
  tensor.def("__pos__", [](const Tensor& x) { return x; });
  tensor.def("__abs__", [](const Tensor& x) { return tandem::abs(x); });
  tensor.def("__invert__", [](const Tensor& x) {
    // The operator's own TypeError, as PyTorch's (bitwise_not itself raises NotImplementedError).
    TANDEM_CHECK(!is_floating(x.dtype()) && !is_complex(x.dtype()), Type,
                 "~ (operator.invert) is only implemented on integer and Boolean-type tensors\nhint: for a "
                 "logical not of a float tensor use x == 0 or tandem.logical_not(x)");
    return x.dtype() == DType::Bool ? tandem::logical_not(x) : tandem::bitwise_not(x);
  });
  // Aliases PyTorch users reach for.
  m.attr("true_divide") = m.attr("div");
  m.attr("multiply") = m.attr("mul");
  m.attr("subtract") = m.attr("sub");
  m.attr("negative") = m.attr("neg");
  m.attr("absolute") = m.attr("abs");
  m.attr("greater") = m.attr("gt");
  m.attr("less") = m.attr("lt");
  m.attr("fmax") = m.attr("maximum");

  static const std::vector<ParserSignature> where_signatures = {
      {{"Tensor condition"}},
      {{"Tensor condition", "Tensor input", "Tensor other"}, "*, Tensor out = None"},
      {{"Tensor condition", "Number self", "Tensor other"}},
      {{"Tensor condition", "Tensor input", "Number other"}},
      {{"Tensor condition", "Number self", "Number other"}}};
  m.def(
      "where",
      [](nb::handle cond_arg, nb::handle a, nb::handle b, nb::handle out) {
        Scalar sa, sb;  // the numbers among the operands
        if (!is_tensor(cond_arg) || !(is_tensor(a) || to_scalar(a, sa)) ||
            !(is_tensor(b) || to_scalar(b, sb)))
          throw_invalid_combination("where", {cond_arg, a, b}, where_signatures);
        const Tensor& cond = as_tensor_ref(cond_arg);
        auto as_operand = [&](nb::handle h, const Scalar& s) -> Tensor {
          if (is_tensor(h)) return as_tensor_ref(h);
          // A Python number takes part like a 0-dim tensor of the other operand's dtype category.
          const Tensor* other =
              is_tensor(a) ? &as_tensor_ref(a) : (is_tensor(b) ? &as_tensor_ref(b) : nullptr);
          DType d = s.natural_dtype();
          if (other && dtype_category(other->dtype()) >= s.category()) d = other->dtype();
          return full(DimVector{}, s, d);
        };
        // PyTorch's out= overload takes tensors only.
        if (!out.is_none())
          for (auto [h, arg, position] : {std::tuple{a, "input", 2}, std::tuple{b, "other", 3}})
            TANDEM_CHECK(
                is_tensor(h), Type, "where(): argument '", arg, "' (position ", position,
                ") must be Tensor, not ", parser_type_name(h),
                "\nhint: with out=, pass tensors (e.g. torch.full_like(x, value)) for input and other");
        Tensor ta = as_operand(a, sa), tb = as_operand(b, sb);
        Tensor r = tandem::where(cond, ta, tb);
        if (out.is_none()) return wrap(r);
        return write_out("where", r, out, {&cond, &ta, &tb}, "Expected out type to be {result} but got {out}",
                         OutOverlap::PartialRefused);
      },
      nb::arg("condition").none(), nb::arg("input").none(), nb::arg("other").none(), nb::kw_only(),
      nb::arg("out") = nb::none());
  m.def(
      "where",
      [](nb::handle cond, nb::handle input) {
        throw_invalid_combination("where", {cond, input}, where_signatures);
      },
      nb::arg("condition").none(), nb::arg("input").none());
  // where(condition) alone is nonzero(condition, as_tuple=True).
  m.def(
      "where",
      [](const Tensor& cond) {
        nb::list out;
        for (Tensor& t : nonzero_tuple(cond)) out.append(nb::cast(std::move(t)));
        return nb::tuple(out);
      },
      nb::arg("condition"));
  // PyTorch's clamp takes both bounds as Tensors or both as Numbers: next to a Number a 0-dim tensor bound
  // that requires no grad is read as a Number (its value); any other tensor there, or a bound that is
  // neither, is its listing of the two overloads (ignoring either bound would be a silently wrong result).
  static const std::vector<ParserSignature> clamp_overloads = {
      {{"Tensor input", "Tensor min = None", "Tensor max = None"}, "*, Tensor out = None"},
      {{"Tensor input", "Number min = None", "Number max = None"}, "*, Tensor out = None"}};
  auto number_bound = [](nb::handle bound, nb::handle other, const char* name) -> nb::object {
    if (!is_tensor(bound) || other.is_none() || is_tensor(other)) return nb::borrow(bound);
    const Tensor& t = as_tensor_ref(bound);
    if (t.dim() != 0 || t.requires_grad())
      refuse_as_invalid_combination(name, clamp_overloads, "min", bound, "Number");
    return bound.attr("item")();
  };
  // The bounds as numbers (None for one not given), or the listing for one that is no number.
  auto number_bounds = [](nb::handle lo, nb::handle hi, const char* name) {
    std::optional<Scalar> bounds[2];
    int i = 0;
    for (nb::handle bound : {lo, hi}) {
      Scalar s;
      if (!bound.is_none() && !to_scalar(bound, s))
        refuse_as_invalid_combination(name, clamp_overloads, i ? "max" : "min", bound, "Number");
      if (!bound.is_none()) bounds[i] = s;
      ++i;
    }
    return std::pair{bounds[0], bounds[1]};
  };
  // Both bounds tensors (or None): PyTorch's Tensor overload, which writes out= with a cast where the result
  // type allows; the Number overload wants out in the result's dtype.
  auto tensor_bounds = [](nb::handle lo, nb::handle hi) {
    return (is_tensor(lo) || is_tensor(hi)) && (lo.is_none() || is_tensor(lo)) &&
           (hi.is_none() || is_tensor(hi));
  };
  auto clamp_fn = [number_bound, number_bounds](const Tensor& x, nb::handle lo_, nb::handle hi_,
                                                const char* name) {
    nb::object lo = number_bound(lo_, hi_, name), hi = number_bound(hi_, lo_, name);
    if (is_tensor(lo) || is_tensor(hi)) {
      return tandem::clamp(x, is_tensor(lo) ? &as_tensor_ref(lo) : nullptr,
                           is_tensor(hi) ? &as_tensor_ref(hi) : nullptr);
    }
    const auto [l, h] = number_bounds(lo, hi, name);
    return tandem::clamp(x, l, h);
  };
  for (const char* name : {"clamp", "clip"}) {
    m.def(
        name,
        [clamp_fn, tensor_bounds, name](const Tensor& x, nb::handle lo, nb::handle hi, nb::handle out) {
          const Tensor r = clamp_fn(x, lo, hi, name);
          const std::initializer_list<const Tensor*> inputs = {
              &x, is_tensor(lo) ? &as_tensor_ref(lo) : nullptr, is_tensor(hi) ? &as_tensor_ref(hi) : nullptr};
          if (tensor_bounds(lo, hi)) return into_out(name, r, out, inputs, OutOverlap::PartialRefused);
          return write_out(name, r, out, inputs, "Found dtype {out} but expected {result}",
                           OutOverlap::PartialRefused);
        },
        nb::arg("input"), nb::arg("min") = nb::none(), nb::arg("max") = nb::none(), nb::kw_only(),
        nb::arg("out") = nb::none());
    register_parser_signatures(name, clamp_overloads);
  }
  tensor.def(
      "clamp",
      [clamp_fn](const Tensor& x, nb::handle lo, nb::handle hi) { return clamp_fn(x, lo, hi, "clamp"); },
      nb::arg("min") = nb::none(), nb::arg("max") = nb::none());
  // clip is clamp's NumPy name; np.clip(t, lo, hi) calls t.clip(lo, hi, out=None).
  tensor.def(
      "clip",
      [clamp_fn](const Tensor& x, nb::handle lo, nb::handle hi, nb::handle out) {
        return into_out("clip", clamp_fn(x, lo, hi, "clip"), out, {&x});
      },
      nb::arg("min").none() = nb::none(), nb::arg("max").none() = nb::none(),
      nb::arg("out").none() = nb::none());
  // round(decimals=0); np.round(t, d) calls t.round(decimals=d, out=None).
  auto round_fn = [](const Tensor& x, int64_t decimals, nb::handle out) {
    return write_out("round", tandem::round(x, decimals), out, {&x},
                     "Found dtype {out} but expected {result}");
  };
  tensor.def("round", round_fn, nb::kw_only(), nb::arg("decimals") = 0, nb::arg("out").none() = nb::none());
  m.def("round", round_fn, nb::arg("input"), nb::kw_only(), nb::arg("decimals") = 0,
        nb::arg("out").none() = nb::none());
  tensor.def("clamp_",
             returning_self(
                 "clamp_",
                 [number_bound, number_bounds](const Tensor& x, nb::handle lo_, nb::handle hi_) {
                   nb::object lo = number_bound(lo_, hi_, "clamp_"), hi = number_bound(hi_, lo_, "clamp_");
                   if (is_tensor(lo) || is_tensor(hi)) {
                     // Tensor bounds: the result type must fit x (checked first, as PyTorch),
                     // then computed out of place and written back (PyTorch's clamp_'s result).
                     const Tensor* bounds[] = {is_tensor(lo) ? &as_tensor_ref(lo) : nullptr,
                                               is_tensor(hi) ? &as_tensor_ref(hi) : nullptr};
                     for (const Tensor* bound : bounds) {
                       if (!bound) continue;
                       const DType result = result_type(x, *bound);
                       TANDEM_CHECK(can_cast(result, x.dtype()), Runtime, "result type ", dtype_title(result),
                                    " can't be cast to the desired output type ", dtype_title(x.dtype()),
                                    "\nhint: use the out-of-place clamp() or convert the bounds to ",
                                    dtype_name(x.dtype()));
                     }
                     return copy_(x, tandem::clamp(x, bounds[0], bounds[1]));
                   }
                   const auto [l, h] = number_bounds(lo, hi, "clamp_");
                   return tandem::clamp_(x, l, h);
                 }),
             nb::arg("min").none() = nb::none(), nb::arg("max").none() = nb::none());
}

}  // namespace tandem::py
