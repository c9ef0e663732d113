// Gradients of the elementwise ops (op_list.def), where and clamp, written with public ops so they run on
// every device and are themselves differentiable (create_graph). The ops that also take complex tensors
// (ops/complex.h) use PyTorch's convention there: grad * conj(f'(z)) for holomorphic f (formulas_complex.cpp
// says why); conj() of a real tensor is the tensor itself, so the real forms pay nothing for it.
#include <cmath>
#include <complex>
#include <string_view>

#include "autograd/formulas.h"
#include "core/error.h"
#include "ops/activation.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/special.h"

namespace tandem::autograd {
namespace {

using Grads = std::vector<Tensor>;

Tensor zeros_like(const Tensor& t) { return full(t.sizes(), Scalar(0.0), t.dtype(), t.device()); }
// A 0-dim zero that joins any device (as a scalar operand of where).
Tensor scalar_zero(const Tensor& like) { return full(DimVector{}, Scalar(0.0), like.dtype()); }
// The conjugate of a scalar operand (a real one is itself), and its negation.
Scalar conj(const Scalar& s) {
  if (!s.is_complex()) return s;
  const complex<double> c = s.to_complex();
  return Scalar(complex<double>(c.real(), -c.imag()));
}
Scalar neg(const Scalar& s) {
  if (!s.is_complex()) return Scalar(-s.to_double());
  const complex<double> c = s.to_complex();
  return Scalar(complex<double>(-c.real(), -c.imag()));
}

// g where `keep`, else 0: selected, not multiplied, so a NaN or infinite g where the gradient is cut stays
// out (as PyTorch's threshold_backward and clamp_backward).
Tensor gradient_where(const Tensor& keep, const Tensor& g) {
  return where(keep, g, full(DimVector{}, Scalar(0.0), g.dtype(), g.device()));  // on g's device: no copy
}

// relu's gradient: g where the output is positive. Recorded as its own op (as PyTorch's threshold_backward)
// so that under create_graph it depends on the output too: the gradient then requires grad even when g
// does not, with a zero derivative with respect to the output.
Tensor threshold_backward(const Tensor& g, const Tensor& out) {
  Tensor r = without_grad([&] { return gradient_where(gt(out, Scalar(0.0)), g); });
  if (!should_record(g, out)) return r;
  auto node = make_node("ThresholdBackwardBackward0", [](FormulaNode& n, const Tensor& gg) {
    Grads grads(2);
    if (n.needs_input_grad(0)) grads[0] = gradient_where(gt(n.saved_tensor(0), Scalar(0.0)), gg);
    if (n.needs_input_grad(1)) grads[1] = zeros_like(gg);
    return grads;
  });
  set_history(node, {&g, &out}, {&r});
  node->saved.emplace_back(out, false);
  return r;
}

// ---- unary: v = what op_list.def's `reads` column says the node saved (input or output) ----
// One specialisation per differentiable op. The primary template is never defined: an op that op_list.def
// marks differentiable without a gradient here fails to link instead of silently getting no grad_fn.
template <UnaryOp Op>
Tensor unary_grad(const Tensor& g, const Tensor& v);

#define TANDEM_UNARY_GRAD(op) \
  template <>                 \
  Tensor unary_grad<UnaryOp::op>(const Tensor& g, const Tensor& v)

TANDEM_UNARY_GRAD(neg) { return neg(g); }
TANDEM_UNARY_GRAD(abs) { return mul(g, is_complex(v.dtype()) ? complex_sgn(v) : sign(v)); }
TANDEM_UNARY_GRAD(sign) { return zeros_like(g); }
TANDEM_UNARY_GRAD(floor) { return zeros_like(g); }
TANDEM_UNARY_GRAD(ceil) { return zeros_like(g); }
TANDEM_UNARY_GRAD(round) { return zeros_like(g); }
TANDEM_UNARY_GRAD(trunc) { return zeros_like(g); }
TANDEM_UNARY_GRAD(relu) { return threshold_backward(g, v); }  // v is the output
TANDEM_UNARY_GRAD(exp) { return mul(g, conj(v)); }            // output
TANDEM_UNARY_GRAD(log) { return div(g, conj(v)); }
TANDEM_UNARY_GRAD(log1p) { return div(g, conj(add(v, Scalar(1.0)))); }
TANDEM_UNARY_GRAD(expm1) { return mul(g, conj(add(v, Scalar(1.0)))); }                     // output
TANDEM_UNARY_GRAD(sqrt) { return div(g, mul(conj(v), Scalar(2.0))); }                      // output
TANDEM_UNARY_GRAD(rsqrt) { return mul(g, conj(mul(pow(v, Scalar(3.0)), Scalar(-0.5)))); }  // output
TANDEM_UNARY_GRAD(sin) { return mul(g, conj(cos(v))); }
TANDEM_UNARY_GRAD(cos) { return mul(g, conj(neg(sin(v)))); }
TANDEM_UNARY_GRAD(tanh) { return mul(g, conj(sub(Scalar(1.0), mul(v, v)))); }     // output
TANDEM_UNARY_GRAD(sigmoid) { return mul(g, conj(mul(v, sub(Scalar(1.0), v)))); }  // output
TANDEM_UNARY_GRAD(gelu) {
  // d/dx x*Phi(x) = Phi(x) + x*phi(x)
  Tensor cdf = ndtr(v);
  Tensor pdf = mul(exp(mul(mul(v, v), Scalar(-0.5))), Scalar(0.3989422804014327));
  return mul(g, add(cdf, mul(v, pdf)));
}
TANDEM_UNARY_GRAD(gelu_tanh) {
  const double k = std::sqrt(2.0 / M_PI), c = 0.044715;
  Tensor x2 = mul(v, v);
  Tensor th = tanh(mul(mul(v, add(mul(x2, Scalar(c)), Scalar(1.0))), Scalar(k)));
  Tensor left = mul(add(th, Scalar(1.0)), Scalar(0.5));
  Tensor right = mul(mul(mul(v, sub(Scalar(1.0), mul(th, th))), Scalar(0.5 * k)),
                     add(mul(x2, Scalar(3.0 * c)), Scalar(1.0)));
  return mul(g, add(left, right));
}
TANDEM_UNARY_GRAD(silu) {
  Tensor s = sigmoid(v);  // d/dx x s(x) = s (1 + x (1 - s))
  return mul(g, mul(s, add(mul(v, sub(Scalar(1.0), s)), Scalar(1.0))));
}
constexpr double kTwoOverSqrtPi = 1.1283791670955126, kLn2 = 0.6931471805599453, kLn10 = 2.302585092994046;
TANDEM_UNARY_GRAD(asin) { return div(g, conj(sqrt(sub(Scalar(1.0), mul(v, v))))); }
TANDEM_UNARY_GRAD(acos) { return neg(div(g, conj(sqrt(sub(Scalar(1.0), mul(v, v)))))); }
TANDEM_UNARY_GRAD(atan) { return div(g, conj(add(mul(v, v), Scalar(1.0)))); }
TANDEM_UNARY_GRAD(sinh) { return mul(g, conj(cosh(v))); }
TANDEM_UNARY_GRAD(cosh) { return mul(g, conj(sinh(v))); }
TANDEM_UNARY_GRAD(tan) { return mul(g, conj(add(mul(v, v), Scalar(1.0)))); }  // output
TANDEM_UNARY_GRAD(asinh) { return mul(g, conj(rsqrt(add(mul(v, v), Scalar(1.0))))); }
// For complex z, 1/sqrt(z^2 - 1) takes the wrong branch: 1/(sqrt(z + 1) sqrt(z - 1)) is acosh's slope (the
// form PyTorch uses for complex; the real one saves an rsqrt).
TANDEM_UNARY_GRAD(acosh) {
  if (is_complex(v.dtype())) return mul(g, conj(mul(rsqrt(add(v, Scalar(1.0))), rsqrt(sub(v, Scalar(1.0))))));
  return mul(g, rsqrt(sub(mul(v, v), Scalar(1.0))));
}
TANDEM_UNARY_GRAD(atanh) { return div(g, conj(sub(Scalar(1.0), mul(v, v)))); }
TANDEM_UNARY_GRAD(log2) { return div(g, conj(mul(v, Scalar(kLn2)))); }
TANDEM_UNARY_GRAD(log10) { return div(g, conj(mul(v, Scalar(kLn10)))); }
TANDEM_UNARY_GRAD(exp2) { return mul(g, conj(mul(v, Scalar(kLn2)))); }  // output
TANDEM_UNARY_GRAD(erf) { return mul(g, mul(exp(neg(mul(v, v))), Scalar(kTwoOverSqrtPi))); }
TANDEM_UNARY_GRAD(erfc) { return mul(g, mul(exp(neg(mul(v, v))), Scalar(-kTwoOverSqrtPi))); }
TANDEM_UNARY_GRAD(erfinv) { return mul(g, mul(exp(mul(v, v)), Scalar(1.0 / kTwoOverSqrtPi))); }  // output
constexpr double kPi = 3.141592653589793, kSqrtTwoPi = 2.5066282746310002;
// `value` where x == 0 (a removable singularity of the formula), else `formula`.
Tensor at_zero(const Tensor& x, double value, const Tensor& formula) {
  return where(eq(x, Scalar(0.0)), full(DimVector{}, Scalar(value), formula.dtype()), formula);
}
TANDEM_UNARY_GRAD(lgamma) { return mul(g, digamma(v)); }
TANDEM_UNARY_GRAD(digamma) { return mul(g, polygamma(1, v)); }
TANDEM_UNARY_GRAD(i0) { return mul(g, i1(v)); }
TANDEM_UNARY_GRAD(i0e) { return mul(g, sub(i1e(v), mul(sign(v), i0e(v)))); }
TANDEM_UNARY_GRAD(i1) { return mul(g, at_zero(v, 0.5, sub(i0(v), div(i1(v), v)))); }
TANDEM_UNARY_GRAD(i1e) {
  return mul(g, at_zero(v, 0.5, sub(i0e(v), mul(i1e(v), add(sign(v), div(Scalar(1.0), v))))));
}
// torch.special's Bessel functions: J0' = -J1, J1' = J0 - J1/x (1/2 at 0), Y0' = -Y1, Y1' = Y0 - Y1/x (+inf
// at 0, as PyTorch's), I0' = I1, I1' = I0 - I1/x (1/2 at 0), K0' = -K1, K1' = -K0 - K1/x (-inf at 0).
TANDEM_UNARY_GRAD(bessel_j0) { return mul(g, neg(bessel_j1(v))); }
TANDEM_UNARY_GRAD(bessel_j1) { return mul(g, at_zero(v, 0.5, sub(bessel_j0(v), div(bessel_j1(v), v)))); }
TANDEM_UNARY_GRAD(bessel_y0) { return mul(g, neg(bessel_y1(v))); }
TANDEM_UNARY_GRAD(bessel_y1) { return mul(g, at_zero(v, INFINITY, sub(bessel_y0(v), div(bessel_y1(v), v)))); }
TANDEM_UNARY_GRAD(modified_bessel_i0) { return mul(g, modified_bessel_i1(v)); }
TANDEM_UNARY_GRAD(modified_bessel_i1) {
  return mul(g, at_zero(v, 0.5, sub(modified_bessel_i0(v), div(modified_bessel_i1(v), v))));
}
TANDEM_UNARY_GRAD(modified_bessel_k0) { return mul(g, neg(modified_bessel_k1(v))); }
TANDEM_UNARY_GRAD(modified_bessel_k1) {
  return mul(g, at_zero(v, -INFINITY, neg(add(modified_bessel_k0(v), div(modified_bessel_k1(v), v)))));
}
TANDEM_UNARY_GRAD(sinc) {
  return mul(g, conj(at_zero(v, 0.0, div(sub(cos(mul(v, Scalar(kPi))), sinc(v)), v))));
}
TANDEM_UNARY_GRAD(logit) {  // NaN outside [0, 1], as PyTorch's
  Tensor outside = logical_or(lt(v, Scalar(0.0)), gt(v, Scalar(1.0)));
  Tensor grad = div(g, mul(v, sub(Scalar(1.0), v)));
  return where(outside, full(DimVector{}, Scalar(std::nan("")), grad.dtype()), grad);
}
TANDEM_UNARY_GRAD(erfcx) { return mul(g, sub(mul(mul(v, erfcx(v)), Scalar(2.0)), Scalar(kTwoOverSqrtPi))); }
TANDEM_UNARY_GRAD(ndtr) { return mul(g, div(exp(mul(mul(v, v), Scalar(-0.5))), Scalar(kSqrtTwoPi))); }
TANDEM_UNARY_GRAD(ndtri) {
  return mul(g, mul(exp(mul(mul(v, v), Scalar(0.5))), Scalar(kSqrtTwoPi)));
}  // output
TANDEM_UNARY_GRAD(log_ndtr) {  // pdf / cdf as one exponential: neither underflows on its own in the tail
  return mul(g, exp(sub(mul(mul(v, v), Scalar(-0.5)), add(log_ndtr(v), Scalar(std::log(kSqrtTwoPi))))));
}
TANDEM_UNARY_GRAD(entr) { return mul(g, neg(add(log(v), Scalar(1.0)))); }
TANDEM_UNARY_GRAD(frac) { return g; }
#undef TANDEM_UNARY_GRAD

template <UnaryOp Op>
Grads unary_formula(FormulaNode& n, const Tensor& g) {
  return {unary_grad<Op>(g, n.saved.empty() ? Tensor() : n.saved_tensor(0))};
}

// What op_list.def says about each op's gradient, as data.
enum class GradReads : int8_t { Input, Output, Operands, Nothing, NotDifferentiable };
struct GradInfo {
  const char* node_name;  // null when not differentiable
  GradReads reads;
  FormulaNode::Formula formula;
};

template <UnaryOp Op, GradReads Reads>
constexpr GradInfo unary_info(const char* node) {
  if constexpr (Reads == GradReads::NotDifferentiable) {
    return {nullptr, Reads, nullptr};
  } else {
    return {node, Reads, &unary_formula<Op>};
  }
}
#define TANDEM_CHECK_NODE(name, node, reads)                                                                 \
  static_assert((std::string_view(#node) == "NoNode") == (GradReads::reads == GradReads::NotDifferentiable), \
                "op_list.def: '" #name "' must name a node exactly when it is differentiable");

constexpr GradInfo kUnaryGrad[] = {
#define TANDEM_UNARY_OP(name, functor, rule, node, reads) unary_info<UnaryOp::name, GradReads::reads>(#node),
#include "kernels/op_list.def"
#undef TANDEM_UNARY_OP
};
#define TANDEM_UNARY_OP(name, functor, rule, node, reads) TANDEM_CHECK_NODE(name, node, reads)
#include "kernels/op_list.def"
#undef TANDEM_UNARY_OP

// ---- binary: variant 0 = tensor op tensor, 1 = tensor op scalar, 2 = scalar op tensor ----
// saved: [a, b] as available (tensors only); n.scalar holds the scalar operand. As for unary ops, the primary
// template is never defined, so a differentiable op without its formula fails to link.
template <BinaryOp Op>
Grads binary_formula(FormulaNode& n, const Tensor& g);
#define TANDEM_BINARY_GRAD(op) \
  template <>                  \
  Grads binary_formula<BinaryOp::op>(FormulaNode & n, const Tensor& g)

TANDEM_BINARY_GRAD(add) { return {g, g}; }
TANDEM_BINARY_GRAD(sub) {
  return {n.needs_input_grad(0) ? g : Tensor(), n.needs_input_grad(1) ? neg(g) : Tensor()};
}
TANDEM_BINARY_GRAD(mul) {
  if (n.variant != 0) {
    n.saved_tensor(0);  // the number's slot: refused once the graph was freed, as PyTorch's saved number is
    return {mul(g, conj(n.scalar))};
  }
  Grads r(2);
  if (n.needs_input_grad(0)) r[0] = mul(g, conj(n.saved_tensor(1)));
  if (n.needs_input_grad(1)) r[1] = mul(g, conj(n.saved_tensor(0)));
  return r;
}
TANDEM_BINARY_GRAD(div) {
  if (n.variant == 1) {
    n.saved_tensor(0);  // (as mul's)
    return {div(g, conj(n.scalar))};
  }
  if (n.variant == 2) {  // s / b: -s / b^2
    Tensor b = n.saved_tensor(0);
    return {mul(div(g, conj(mul(b, b))), neg(conj(n.scalar)))};
  }
  Tensor a = n.saved_tensor(0), b = n.saved_tensor(1);
  Grads r(2);
  if (n.needs_input_grad(0)) r[0] = div(g, conj(b));
  if (n.needs_input_grad(1)) r[1] = neg(div(mul(g, conj(a)), conj(mul(b, b))));
  return r;
}
TANDEM_BINARY_GRAD(floor_divide) { return {zeros_like(g), n.variant == 0 ? zeros_like(g) : Tensor()}; }
// a - round(a / b) * b, remainder rounding by floor and fmod by trunc: g for a, -g * round(a / b) for b.
template <Tensor (*Round)(const Tensor&)>
Grads quotient_remainder_grad(FormulaNode& n, const Tensor& g) {
  if (n.variant == 1) return {g};
  if (n.variant == 2) return {mul(neg(g), Round(div(n.scalar, n.saved_tensor(0))))};
  return {g, mul(neg(g), Round(div(n.saved_tensor(0), n.saved_tensor(1))))};
}
TANDEM_BINARY_GRAD(remainder) { return quotient_remainder_grad<&floor>(n, g); }
TANDEM_BINARY_GRAD(fmod) { return quotient_remainder_grad<&trunc>(n, g); }
// For complex operands every slope is conjugated (PyTorch's pow_backward, pow_backward_self/exponent); the
// mask of the exponent's slope takes a complex exponent as non-negative when it is real and >= 0, as
// PyTorch's.
Tensor real_part(const Tensor& t) { return is_complex(t.dtype()) ? real(t) : t; }
TANDEM_BINARY_GRAD(pow) {
  if (n.variant == 1) {  // a ** s
    const Scalar& s = n.scalar;
    Tensor a = n.saved_tensor(0);
    if (!s.is_complex()) {
      const double d = s.to_double();
      if (d == 0.0) return {zeros_like(g)};
      return {mul(g, conj(mul(pow(a, Scalar(d - 1.0)), Scalar(d))))};
    }
    const complex<double> c = s.to_complex();
    if (c.real() == 0.0 && c.imag() == 0.0) return {zeros_like(g)};
    return {mul(g, conj(mul(pow(a, Scalar(complex<double>(c.real() - 1.0, c.imag()))), s)))};
  }
  if (n.variant == 2) {  // s ** b: s^b * log(s)
    Tensor b = n.saved_tensor(0);
    const complex<double> c = n.scalar.to_complex();
    if (c.real() == 0.0 && c.imag() == 0.0) return {zeros_like(g)};  // 0**b: no useful slope (PyTorch: 0)
    if (!is_complex(b.dtype()) && !n.scalar.is_complex())
      return {mul(g, mul(pow(n.scalar, b), Scalar(std::log(c.real()))))};
    const std::complex<double> log_s = std::log(std::complex<double>(c.real(), c.imag()));
    return {mul(g, conj(mul(pow(n.scalar, b), Scalar(complex<double>(log_s.real(), log_s.imag())))))};
  }
  Tensor a = n.saved_tensor(0), b = n.saved_tensor(1);
  Grads r(2);
  if (n.needs_input_grad(0)) {
    // b * a^(b-1), and 0 where b == 0 (so 0**0 does not give nan)
    Tensor ga = mul(g, conj(mul(b, pow(a, sub(b, Scalar(1.0))))));
    r[0] = where(eq(b, Scalar(0.0)), scalar_zero(ga), ga);
  }
  if (n.needs_input_grad(1)) {
    // a^b * log(a), masked to 0 where a == 0 and b >= 0 (as PyTorch does); the log in the result's dtype, so
    // a negative real base with a complex exponent has its complex log (not NaN)
    Tensor power = pow(a, b);
    Tensor gb = mul(g, conj(mul(power, log(to_dtype(a, power.dtype())))));
    Tensor mask = logical_and(eq(a, Scalar(0.0)), ge(real_part(b), Scalar(0.0)));
    if (is_complex(b.dtype())) mask = logical_and(mask, eq(imag(b), Scalar(0.0)));
    r[1] = where(mask, scalar_zero(gb), gb);
  }
  return r;
}
// maximum/minimum: the gradient goes to the chosen operand, split in half on ties (as PyTorch does).
template <bool Max>
Grads extremum_formula(FormulaNode& n, const Tensor& g) {
  Tensor a = n.saved_tensor(0), b = n.saved_tensor(1);
  Tensor a_wins = Max ? gt(a, b) : lt(a, b);
  Tensor b_wins = Max ? lt(a, b) : gt(a, b);
  Tensor half = mul(g, Scalar(0.5));
  Tensor tie = eq(a, b);
  Grads r(2);
  if (n.needs_input_grad(0)) r[0] = where(tie, half, where(a_wins, g, scalar_zero(g)));
  if (n.needs_input_grad(1)) r[1] = where(tie, half, where(b_wins, g, scalar_zero(g)));
  return r;
}
TANDEM_BINARY_GRAD(maximum) { return extremum_formula<true>(n, g); }
TANDEM_BINARY_GRAD(minimum) { return extremum_formula<false>(n, g); }

// The two operands of a binary node, a scalar one (variants 1 and 2) as a 0-dim tensor, and the gradients of
// the tensor operands from the partials `da`/`db` (called only when needed).
// A struct, not a pair unpacked by a structured binding: the gradient lambdas capture both operands, and
// clang before 16 cannot capture structured bindings.
struct BinaryOperands {
  Tensor a, b;
};
BinaryOperands binary_operands(FormulaNode& n) {
  if (n.variant == 0) return {n.saved_tensor(0), n.saved_tensor(1)};
  Tensor t = n.saved_tensor(0);
  Tensor s = full(DimVector{}, n.scalar, t.dtype(), t.device());
  return n.variant == 1 ? BinaryOperands{t, s} : BinaryOperands{s, t};
}
template <typename Da, typename Db>
Grads binary_grads(FormulaNode& n, Da da, Db db) {
  if (n.variant == 1) return {da()};
  if (n.variant == 2) return {db()};
  Grads r(2);
  if (n.needs_input_grad(0)) r[0] = da();
  if (n.needs_input_grad(1)) r[1] = db();
  return r;
}
// atan2(a, b): d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2); at the origin, where both are 0/0, 0 (times
// g, so a NaN g stays NaN), as PyTorch's.
TANDEM_BINARY_GRAD(atan2) {
  const BinaryOperands ops = binary_operands(n);
  const Tensor &a = ops.a, &b = ops.b;
  const Tensor squares = add(mul(a, a), mul(b, b));
  const Tensor zero = full(DimVector{}, Scalar(0.0), squares.dtype(), squares.device());
  const Tensor recip = where(eq(squares, zero), zero, div(Scalar(1.0), squares));
  return binary_grads(
      n, [&] { return mul(mul(g, b), recip); }, [&] { return mul(mul(g, neg(a)), recip); });
}
TANDEM_BINARY_GRAD(hypot) {
  const BinaryOperands ops = binary_operands(n);
  const Tensor &a = ops.a, &b = ops.b;
  Tensor scale = div(g, hypot(a, b));
  return binary_grads(
      n, [&] { return mul(scale, a); }, [&] { return mul(scale, b); });
}
TANDEM_BINARY_GRAD(logaddexp) {  // conj: grad * conj(f'(z)) for complex operands (conj is a no-op on reals)
  const BinaryOperands ops = binary_operands(n);
  const Tensor &a = ops.a, &b = ops.b;
  return binary_grads(
      n, [&] { return div(g, conj(add(exp(sub(b, a)), Scalar(1.0)))); },
      [&] { return div(g, conj(add(exp(sub(a, b)), Scalar(1.0)))); });
}
TANDEM_BINARY_GRAD(logaddexp2) {
  const BinaryOperands ops = binary_operands(n);
  const Tensor &a = ops.a, &b = ops.b;
  return binary_grads(
      n, [&] { return div(g, add(exp2(sub(b, a)), Scalar(1.0))); },
      [&] { return div(g, add(exp2(sub(a, b)), Scalar(1.0))); });
}
TANDEM_BINARY_GRAD(copysign) {  // d/da = result / a (+-1), 0 where a == 0; the sign operand gets 0
  const BinaryOperands ops = binary_operands(n);
  const Tensor &a = ops.a, &b = ops.b;
  return binary_grads(
      n,
      [&] {
        Tensor ratio = div(copysign(a, b), a);
        return mul(g, where(eq(a, Scalar(0.0)), scalar_zero(ratio), ratio));
      },
      [&] { return zeros_like(g); });
}
// PyTorch's d/dx of x log y: xlogy(g, y), but 0 where x == 0 and log y is undefined (y <= 0); d/dy = x / y.
Tensor xlogy_grad_x(const Tensor& g, const Tensor& x, const Tensor& y, double pole, bool plus_one) {
  Tensor grad = plus_one ? xlog1py(g, y) : xlogy(g, y);
  Tensor undefined = logical_and(eq(x, Scalar(0.0)), le(y, Scalar(pole)));
  return where(undefined, scalar_zero(grad), grad);
}
TANDEM_BINARY_GRAD(xlogy) {
  const BinaryOperands ops = binary_operands(n);
  const Tensor &a = ops.a, &b = ops.b;
  return binary_grads(
      n, [&] { return xlogy_grad_x(g, a, b, 0.0, false); }, [&] { return mul(g, div(a, b)); });
}
TANDEM_BINARY_GRAD(xlog1py) {
  const BinaryOperands ops = binary_operands(n);
  const Tensor &a = ops.a, &b = ops.b;
  return binary_grads(
      n, [&] { return xlogy_grad_x(g, a, b, -1.0, true); },
      [&] { return mul(g, div(a, add(b, Scalar(1.0)))); });
}
TANDEM_BINARY_GRAD(zeta) {  // d/dq zeta(s, q) = -s zeta(s + 1, q); PyTorch has no derivative in s
  const BinaryOperands ops = binary_operands(n);
  const Tensor &s = ops.a, &q = ops.b;
  return binary_grads(
      n, [&]() -> Tensor { TANDEM_THROW(NotImplemented, "the derivative for 'zeta' is not implemented."); },
      [&] { return mul(g, mul(neg(s), zeta(add(s, Scalar(1.0)), q))); });
}
// d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) = -d/dx Q(a, x); PyTorch has no derivative in a.
Tensor igamma_grad_x(const Tensor& g, const Tensor& a, const Tensor& x) {
  return mul(g, exp(sub(sub(mul(sub(a, Scalar(1.0)), log(x)), x), lgamma(a))));
}
TANDEM_BINARY_GRAD(igamma) {
  const BinaryOperands ops = binary_operands(n);
  return binary_grads(
      n,
      [&]() -> Tensor {
        TANDEM_THROW(NotImplemented, "the derivative for 'igamma: input' is not implemented.");
      },
      [&] { return igamma_grad_x(g, ops.a, ops.b); });
}
TANDEM_BINARY_GRAD(igammac) {
  const BinaryOperands ops = binary_operands(n);
  return binary_grads(
      n,
      [&]() -> Tensor {
        TANDEM_THROW(NotImplemented, "the derivative for 'igammac: input' is not implemented.");
      },
      [&] { return neg(igamma_grad_x(g, ops.a, ops.b)); });
}
TANDEM_BINARY_GRAD(nextafter) {  // PyTorch's: the first operand's gradient passes, the direction gets 0
  return binary_grads(
      n, [&] { return g; }, [&] { return zeros_like(g); });
}
#undef TANDEM_BINARY_GRAD

template <BinaryOp Op, GradReads Reads>
constexpr GradInfo binary_info(const char* node) {
  if constexpr (Reads == GradReads::NotDifferentiable) {
    return {nullptr, Reads, nullptr};
  } else {
    return {node, Reads, &binary_formula<Op>};
  }
}
constexpr GradInfo kBinaryGrad[] = {
#define TANDEM_BINARY_OP(name, functor, rule, node, reads) \
  binary_info<BinaryOp::name, GradReads::reads>(#node),
#include "kernels/op_list.def"
#undef TANDEM_BINARY_OP
};
#define TANDEM_BINARY_OP(name, functor, rule, node, reads) TANDEM_CHECK_NODE(name, node, reads)
#include "kernels/op_list.def"
#undef TANDEM_BINARY_OP
#undef TANDEM_CHECK_NODE

}  // namespace

const char* unary_node_name(UnaryOp op) { return kUnaryGrad[static_cast<int>(op)].node_name; }
const char* binary_node_name(BinaryOp op) { return kBinaryGrad[static_cast<int>(op)].node_name; }
bool binary_has_gradient(BinaryOp op) { return kBinaryGrad[static_cast<int>(op)].formula != nullptr; }

Tensor record_unary(UnaryOp op, const Tensor& x, const Tensor& out) {
  const GradInfo& info = kUnaryGrad[static_cast<int>(op)];
  if (!info.formula || !is_differentiable(out.dtype())) return out;
  auto node = make_node(info.node_name, info.formula);
  record(node, {&x}, out);
  if (info.reads != GradReads::Nothing) {
    node->saved.emplace_back(info.reads == GradReads::Output ? out : x, info.reads == GradReads::Output);
    node->saved_names[0] = info.reads == GradReads::Output ? "result" : "self";
  }
  return out;
}

namespace {
// The factor of b's gradient in a ± alpha * b: ±alpha, conjugated for complex (PyTorch's alpha.conj()).
Scalar scaled_operand_grad_factor(BinaryOp op, const Scalar& alpha) {
  const double sign = op == BinaryOp::sub ? -1.0 : 1.0;
  if (alpha.is_complex()) {
    const complex<double> c = alpha.to_complex();
    return Scalar(complex<double>(sign * c.re, -sign * c.im));
  }
  if (alpha.is_float()) return Scalar(sign * alpha.to_double());
  return Scalar(static_cast<int64_t>(sign) * alpha.to_int());
}
}  // namespace

Tensor record_binary(BinaryOp op, const Tensor* a, const Scalar& a_scalar, const Tensor* b,
                     const Scalar& b_scalar, const Tensor& out, const Scalar* alpha) {
  const GradInfo& info = kBinaryGrad[static_cast<int>(op)];
  if (!info.formula || !is_differentiable(out.dtype())) return out;
  auto node = make_node(info.node_name, info.formula);
  if (a && b) {
    if (alpha) {  // add/sub: PyTorch's AddBackward0/SubBackward0 keep alpha, not b
      node->scalar2 = scaled_operand_grad_factor(op, *alpha);
      node->formula = [](FormulaNode& n, const Tensor& g) { return Grads{g, mul(g, n.scalar2)}; };
    }
    set_history(node, {a, b}, {&out});
    if (info.reads == GradReads::Operands) {
      node->saved.emplace_back(*a, false);
      node->saved.emplace_back(*b, false);
      node->saved_names = {"self", op == BinaryOp::pow ? "exponent" : "other"};
    }
    return out;
  }
  node->variant = a ? 1 : 2;
  node->scalar = a ? b_scalar : a_scalar;
  const Tensor& t = a ? *a : *b;
  // PyTorch's names for the scalar forms: x - 2 is SubBackward0 but 2 - x RsubBackward1; x ** 2 is
  // PowBackward0 and 2 ** x PowBackward2 (x ** y: PowBackward1); x % 2 is RemainderBackward0 (x % y: 1).
  if (op == BinaryOp::sub && !a) node->name_ = "RsubBackward1";
  if (op == BinaryOp::pow) node->name_ = a ? "PowBackward0" : "PowBackward2";
  if (op == BinaryOp::remainder && a) node->name_ = "RemainderBackward0";
  if (op == BinaryOp::fmod && a) node->name_ = "FmodBackward0";
  // xlogy(2, y) is XlogyBackward1, xlogy(x, 2) XlogyBackward2; the same for xlog1py and zeta.
  if (op == BinaryOp::xlogy) node->name_ = a ? "XlogyBackward2" : "XlogyBackward1";
  if (op == BinaryOp::xlog1py) node->name_ = a ? "SpecialXlog1PyBackward2" : "SpecialXlog1PyBackward1";
  if (op == BinaryOp::zeta) node->name_ = a ? "SpecialZetaBackward2" : "SpecialZetaBackward1";
  if (op == BinaryOp::sub && !a)
    node->formula = [](FormulaNode& n, const Tensor& g) { return Grads{neg(g)}; };
  if (op == BinaryOp::sub && a) node->formula = [](FormulaNode& n, const Tensor& g) { return Grads{g}; };
  if (op == BinaryOp::add) node->formula = [](FormulaNode& n, const Tensor& g) { return Grads{g}; };
  if (op == BinaryOp::maximum || op == BinaryOp::minimum) {
    // max(t, s): the gradient where t wins, half on ties.
    node->formula = op == BinaryOp::maximum
                        ? +[](FormulaNode& n, const Tensor& g) {
                            Tensor t = n.saved_tensor(0);
                            return Grads{where(eq(t, n.scalar), mul(g, Scalar(0.5)),
                                               where(gt(t, n.scalar), g, scalar_zero(g)))};
                          }
                        : +[](FormulaNode& n, const Tensor& g) {
                            Tensor t = n.saved_tensor(0);
                            return Grads{where(eq(t, n.scalar), mul(g, Scalar(0.5)),
                                               where(lt(t, n.scalar), g, scalar_zero(g)))};
                          };
  }
  // PyTorch wraps the number of t + s, s + t, t - s, t * s, s * t and t / s in a tensor and records the
  // tensor-tensor op, whose node lists the number's slot as a next edge without a node (next_functions shows
  // (None, 0)); the other scalar forms have their own one-input nodes.
  const bool number_slot =
      op == BinaryOp::add || op == BinaryOp::mul || (a && (op == BinaryOp::sub || op == BinaryOp::div));
  if (number_slot)
    set_history(node, {&t, nullptr}, {&out});
  else
    set_history(node, {&t}, {&out});
  // t * s, s * t and t / s differentiate to g * s and g / s: the tensor is not kept (PyTorch's MulBackward0
  // keeps only the number), so it can be freed, swapped or resized before backward. The number's place is
  // kept as an empty saved value, released with the graph's saved values like the number PyTorch saves.
  const bool number_only = op == BinaryOp::mul || (op == BinaryOp::div && a);
  if (number_only)
    node->saved.emplace_back(Tensor(), false);
  else if (info.reads == GradReads::Operands) {
    node->saved.emplace_back(t, false);
    node->saved_names[0] = a ? "self" : (op == BinaryOp::pow ? "exponent" : "other");
  }
  return out;
}

Tensor record_where(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out) {
  if (!is_differentiable(out.dtype())) return out;
  // The condition is not differentiable and has no slot: PyTorch's node lists (self, other) only.
  auto node = make_node("WhereBackward0", [](FormulaNode& n, const Tensor& g) {
    Tensor c = n.saved_tensor(0);
    Tensor z = scalar_zero(g);
    Grads r(2);
    if (n.needs_input_grad(0)) r[0] = where(c, g, z);
    if (n.needs_input_grad(1)) r[1] = where(c, z, g);
    return r;
  });
  set_history(node, {&a, &b}, {&out});
  node->saved.emplace_back(cond, false);
  node->saved_names[0] = "condition";
  return out;
}

Tensor record_clamp(const Tensor& x, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi,
                    const Tensor& out) {
  if (!is_differentiable(out.dtype())) return out;
  // clamp(x, min) is ClampBackward1 too in PyTorch (ClampMinBackward0 is clamp_min's, which tandem composes
  // from clamp).
  auto node = make_node("ClampBackward1", [](FormulaNode& n, const Tensor& g) {
    Tensor x = n.saved_tensor(0);
    // the gradient passes strictly inside, lo < x < hi, as PyTorch's (a bound's own value gets none; variant
    // bits: 1 = has lo, 2 = has hi)
    Tensor keep;
    if (n.variant & 1) keep = gt(x, n.scalar);
    if (n.variant & 2) keep = keep.defined() ? logical_and(keep, lt(x, n.scalar2)) : lt(x, n.scalar2);
    return Grads{gradient_where(keep, g)};
  });
  node->variant = static_cast<int8_t>((lo ? 1 : 0) | (hi ? 2 : 0));
  if (lo) node->scalar = *lo;
  if (hi) node->scalar2 = *hi;
  set_history(node, {&x}, {&out});
  node->saved.emplace_back(x, false);
  node->saved_names[0] = "self";
  return out;
}

Tensor record_activation(const ActivationSpec& spec, const char* node_name, const Tensor& x,
                         const Tensor& out) {
  auto node = make_node(node_name, [](FormulaNode& n, const Tensor& g) {
    const ActivationSpec spec{static_cast<Activation>(n.variant), n.scalar.to_double(), n.scalar2.to_double(),
                              n.real};
    Tensor x = n.saved_tensor(0);
    // One kernel normally; under create_graph the same derivative from differentiable ops, so that double
    // backward (e.g. a gradient penalty through leaky_relu) gets its own graph.
    if (!GradMode::is_enabled()) return Grads{activation_backward(spec, g, x)};
    const Tensor derivative = activation_derivative(spec, x);
    Tensor grad = mul(g, derivative);
    // A piecewise-constant derivative (leaky_relu, hardtanh, ...) does not depend on x, but PyTorch still
    // links the gradient to x with a zero (gradgradcheck and second-order code rely on it: a gradient penalty
    // through leaky_relu gives the first layer's bias a 0 gradient, not None, whether or not g has a graph of
    // its own): add +-0 computed from x (its finite values, so an infinite x adds no NaN).
    if (!derivative.requires_grad() && x.requires_grad())
      grad = add(grad, mul(where(isfinite(x), x, full(DimVector{}, Scalar(0.0), x.dtype())), Scalar(0.0)));
    return Grads{grad};
  });
  node->variant = static_cast<int8_t>(spec.op);
  node->scalar = Scalar(spec.a);
  node->scalar2 = Scalar(spec.b);
  node->real = spec.c;
  set_history(node, {&x}, {&out});
  node->saved.emplace_back(x, false);
  node->saved_names[0] = "self";
  return out;
}

}  // namespace tandem::autograd
