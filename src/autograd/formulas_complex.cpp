// Gradients of the complex-number ops (ops/complex.h), in PyTorch's convention: the gradient of a real loss L
// with respect to z = x + iy is dL/dx + i dL/dy (the conjugate Wirtinger derivative, times 2). So a
// holomorphic f gets grad * conj(f'(z)), and a real input fed into a complex result gets the real part of its
// gradient (the engine takes it, see engine.cpp). Written with public ops, so double backward works.
#include "autograd/formulas.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/linalg.h"
#include "ops/view.h"

namespace tandem::autograd {
namespace {
using Grads = std::vector<Tensor>;

const Scalar kI{complex<double>(0.0, 1.0)};

// |z| with 0 replaced by 1: a divisor that leaves the formulas' value 0 (not NaN) where z == 0.
Tensor abs_or_one(const Tensor& z) {
  Tensor r = abs(z);
  return where(eq(r, Scalar(0.0)), full(DimVector{}, Scalar(1.0), r.dtype()), r);
}

Tensor record_one_input(const char* name, FormulaNode::Formula f, const Tensor& x, const Tensor& out) {
  return record(make_node(name, f), {&x}, out);
}
// The real/complex views share x's memory: recorded as views, so in-place writes through them (or through x)
// update the other's history as for any view (node.cpp's CopySlices reads them in their own dtype).
Tensor record_dtype_view(const char* name, FormulaNode::Formula f, const Tensor& x, const Tensor& out) {
  return record_view(make_node(name, f), x, out);
}
}  // namespace

Tensor complex_sgn(const Tensor& z) { return div(z, abs_or_one(z)); }

Tensor record_conj(const Tensor& x, const Tensor& out) {
  return record_one_input(
      "ConjBackward0", [](FormulaNode&, const Tensor& g) { return Grads{conj(g)}; }, x, out);
}

// real(z) is linear in x only: the (real) gradient goes to the real part, the engine makes it complex.
// (Named as in PyTorch, whose real/imag are selects of view_as_real.)
Tensor record_real(const Tensor& x, const Tensor& out) {
  return record_dtype_view(
      "SelectBackward0", [](FormulaNode&, const Tensor& g) { return Grads{g}; }, x, out);
}

// imag(z) = y: the gradient goes to the imaginary part, i * g.
Tensor record_imag(const Tensor& x, const Tensor& out) {
  return record_dtype_view(
      "SelectBackward0", [](FormulaNode&, const Tensor& g) { return Grads{mul(g, kI)}; }, x, out);
}

Tensor record_view_as_real(const Tensor& x, const Tensor& out) {
  return record_dtype_view(
      "ViewAsRealBackward0",
      [](FormulaNode&, const Tensor& g) {
        // view_as_complex needs a unit last stride and an even offset: a fresh contiguous copy when g has
        // not.
        Tensor c = contiguous(g);
        if (c.storage_offset() % 2 != 0) c = clone(g);
        return Grads{view_as_complex(c)};
      },
      x, out);
}

Tensor record_view_as_complex(const Tensor& x, const Tensor& out) {
  return record_dtype_view(
      "ViewAsComplexBackward0", [](FormulaNode&, const Tensor& g) { return Grads{view_as_real(g)}; }, x, out);
}

// angle(z) = atan2(y, x): d/dx = -y/|z|^2, d/dy = x/|z|^2, i.e. g * i z / |z|^2 (0 at z == 0, as PyTorch).
Tensor record_angle(const Tensor& x, const Tensor& out) {
  auto node = make_node("AngleBackward0", [](FormulaNode& n, const Tensor& g) {
    Tensor z = n.saved_tensor(0);
    Tensor r = abs_or_one(z);
    return Grads{mul(div(mul(g, z), mul(r, r)), kI)};
  });
  record(node, {&x}, out);
  node->saved.emplace_back(x, false);
  return out;
}

// sgn(z) = z / |z|, not holomorphic: for s = sgn(z) the gradient is (g - s Re(g conj(s))) / |z| (the part of
// g along s is the modulus' change, which sgn drops), 0 at z == 0, as PyTorch's sgn_backward.
Tensor record_sgn(const Tensor& x, const Tensor& out) {
  auto node = make_node("SgnBackward0", [](FormulaNode& n, const Tensor& g) {
    Tensor z = n.saved_tensor(0), s = n.saved_tensor(1);
    Tensor grad = div(sub(g, mul(s, real(mul(g, conj(s))))), abs_or_one(z));
    return Grads{where(eq(z, Scalar(0.0)), full(DimVector{}, Scalar(0.0), grad.dtype()), grad)};
  });
  record(node, {&x}, out);
  node->saved.emplace_back(x, false);
  node->saved.emplace_back(out, true);
  return out;
}

// polar(r, t) = r e^{it}: d/dr = e^{it} (PyTorch uses sgn(result), so 0 where r == 0), d/dt = i * result.
// Real inputs: the real part of conj(g) times each partial.
Tensor record_polar(const Tensor& abs, const Tensor& angle, const Tensor& out) {
  auto node = make_node("PolarBackward0", [](FormulaNode& n, const Tensor& g) {
    Tensor result = n.saved_tensor(0);
    Tensor gc = conj(g);
    Grads r(2);
    if (n.needs_input_grad(0)) r[0] = real(mul(gc, complex_sgn(result)));
    if (n.needs_input_grad(1)) r[1] = real(mul(gc, mul(result, kI)));
    return r;
  });
  set_history(node, {&abs, &angle}, {&out});
  node->saved.emplace_back(out, true);
  return out;
}

Tensor record_make_complex(const Tensor& re, const Tensor& im, const Tensor& out) {
  auto node = make_node("ComplexBackward0", [](FormulaNode& n, const Tensor& g) {
    Grads r(2);
    if (n.needs_input_grad(0)) r[0] = real(g);
    if (n.needs_input_grad(1)) r[1] = imag(g);
    return r;
  });
  set_history(node, {&re, &im}, {&out});
  return out;
}

// The product of complex matrices (a2, b2 at least 2-D): grad_a = g @ b^H, grad_b = a^H @ g.
Tensor record_complex_matmul(const Tensor& a, const Tensor& b, const Tensor& out) {
  auto node = make_node("MatmulBackward0", [](FormulaNode& n, const Tensor& g) {
    Grads r(2);
    if (n.needs_input_grad(0)) r[0] = matmul(g, conj(mT(n.saved_tensor(1))));
    if (n.needs_input_grad(1)) r[1] = matmul(conj(mT(n.saved_tensor(0))), g);
    return r;
  });
  set_history(node, {&a, &b}, {&out});
  node->saved.emplace_back(node->needs_input_grad(1) ? a : Tensor(), false);
  node->saved.emplace_back(node->needs_input_grad(0) ? b : Tensor(), false);
  return out;
}

}  // namespace tandem::autograd
