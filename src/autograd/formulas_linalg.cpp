// Gradients of the matrix products: each is again a matrix product of the incoming gradient with the other
// operand (transposed), so they run on every device through the same gemm slot and are differentiable. For
// complex operands the other operand is conjugated (g @ b^H, a^H @ g: PyTorch's convention, see
// formulas_complex.cpp); conj() of a real tensor is the tensor itself, so real products do no extra work.
#include "autograd/formulas.h"
#include "ops/complex.h"
#include "ops/elementwise.h"
#include "ops/linalg.h"
#include "ops/view.h"

namespace tandem::autograd {
namespace {
using Grads = std::vector<Tensor>;

std::shared_ptr<FormulaNode> two_operand_node(const char* name, FormulaNode::Formula f, const Tensor& a,
                                              const Tensor& b, const Tensor& out) {
  auto node = make_node(name, f);
  set_history(node, {&a, &b}, {&out});
  // Each operand is needed only for the other's gradient.
  node->saved.emplace_back(node->needs_input_grad(1) ? a : Tensor(), false);
  node->saved.emplace_back(node->needs_input_grad(0) ? b : Tensor(), false);
  return node;
}
}  // namespace

Tensor record_mm(const Tensor& a, const Tensor& b, const Tensor& out) {
  two_operand_node(
      "MmBackward0",
      [](FormulaNode& n, const Tensor& g) {
        Grads r(2);
        if (n.needs_input_grad(0)) r[0] = mm(g, conj(t(n.saved_tensor(1))));
        if (n.needs_input_grad(1)) r[1] = mm(conj(t(n.saved_tensor(0))), g);
        return r;
      },
      a, b, out);
  return out;
}

Tensor record_bmm(const Tensor& a, const Tensor& b, const Tensor& out) {
  two_operand_node(
      "BmmBackward0",
      [](FormulaNode& n, const Tensor& g) {
        Grads r(2);
        if (n.needs_input_grad(0)) r[0] = bmm(g, conj(transpose(n.saved_tensor(1), 1, 2)));
        if (n.needs_input_grad(1)) r[1] = bmm(conj(transpose(n.saved_tensor(0), 1, 2)), g);
        return r;
      },
      a, b, out);
  return out;
}

Tensor record_batched_matmul(const Tensor& a, const Tensor& b, const Tensor& out) {
  // Broadcast batch dims are summed back by the engine (the gradients come out with the batch shape).
  two_operand_node(
      "MatmulBackward0",
      [](FormulaNode& n, const Tensor& g) {
        Grads r(2);
        if (n.needs_input_grad(0)) r[0] = matmul(g, mT(n.saved_tensor(1)));
        if (n.needs_input_grad(1)) r[1] = matmul(mT(n.saved_tensor(0)), g);
        return r;
      },
      a, b, out);
  return out;
}

Tensor record_mv(const Tensor& mat, const Tensor& vec, const Tensor& out) {
  two_operand_node(
      "MvBackward0",
      [](FormulaNode& n, const Tensor& g) {
        Grads r(2);
        if (n.needs_input_grad(0)) r[0] = outer(g, conj(n.saved_tensor(1)));
        if (n.needs_input_grad(1)) r[1] = mv(conj(t(n.saved_tensor(0))), g);
        return r;
      },
      mat, vec, out);
  return out;
}

Tensor record_dot(const Tensor& a, const Tensor& b, const Tensor& out) {
  two_operand_node(
      "DotBackward0",
      [](FormulaNode& n, const Tensor& g) {
        Grads r(2);
        if (n.needs_input_grad(0)) r[0] = mul(g, conj(n.saved_tensor(1)));
        if (n.needs_input_grad(1)) r[1] = mul(g, conj(n.saved_tensor(0)));
        return r;
      },
      a, b, out);
  return out;
}

Tensor record_addmm(const Tensor& input, const Tensor& m1, const Tensor& m2, const Scalar& beta,
                    const Scalar& alpha, const Tensor& out) {
  auto node = make_node("AddmmBackward0", [](FormulaNode& n, const Tensor& g) {
    Grads r(3);
    // beta/alpha of 1 (nn.Linear) cost nothing (complex ones are real: addmm refuses others); the input's
    // gradient is summed to its shape by the engine.
    auto scaled = [](const Tensor& t, const Scalar& s) { return s.to_double() == 1.0 ? t : mul(t, s); };
    if (n.needs_input_grad(0)) r[0] = scaled(g, n.scalar);
    if (n.needs_input_grad(1)) r[1] = scaled(mm(g, conj(t(n.saved_tensor(1)))), n.scalar2);
    if (n.needs_input_grad(2)) r[2] = scaled(mm(conj(t(n.saved_tensor(0))), g), n.scalar2);
    return r;
  });
  node->scalar = beta;
  node->scalar2 = alpha;
  set_history(node, {&input, &m1, &m2}, {&out});
  node->saved.emplace_back(node->needs_input_grad(2) ? m1 : Tensor(), false);
  node->saved.emplace_back(node->needs_input_grad(1) ? m2 : Tensor(), false);
  return out;
}

}  // namespace tandem::autograd
