// Gradients of householder_product and ormqr (tandem's own derivation, checked against PyTorch's in
// tests/python/test_linalg_householder.py), written with public ops so they run on every device and can be
// differentiated again; and the nodes of geqrf/ldl_factor/ldl_solve, whose backward raises as PyTorch's does.
//
// Q = H_0 ... H_{k-1} E (E: the first n columns of I_m), H_i = I - tau_i v_i v_i^H. With the gradient gQ
// (dL = Re<gQ, dQ>, PyTorch's conjugate-Wirtinger convention), L_i = H_0 ... H_{i-1} and R_i = H_{i+1} ...
// H_{k-1} E, the gradient reaching H_i is K_i = L_i^H gQ R_i^H, and dH_i = -dtau v v^H - tau (dv v^H + v
// dv^H) gives
//   g_tau_i = -v^H K_i v,   g_v_i = -conj(tau_i) K_i v - tau_i K_i^H v,
// of which the entries below the diagonal are the gradient of a's column i (v_i's diagonal 1 and the zeros
// above it are constants). K_i is never formed: K v = L^H (gQ (R^H v)), K^H v = R (gQ^H (L v)).
#include "autograd/formulas_linalg_householder.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/formula_node.h"
#include "core/error.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factories.h"
#include "ops/join.h"
#include "ops/linalg.h"
#include "ops/linalg_householder.h"
#include "ops/linalg_lapack_call.h"
#include "ops/view.h"

namespace tandem::autograd {
namespace {
using linalg_detail::mH;
using linalg_detail::triangle;

// (..., rows, cols) zeros of x's dtype and device with x's batch dims.
Tensor zeros_matrix(const Tensor& x, int64_t rows, int64_t cols) {
  const auto& sizes = x.sizes();
  DimVector shape(IntArrayRef(sizes.data(), sizes.size() - 2));
  shape.push_back(rows);
  shape.push_back(cols);
  return full(shape, Scalar(0.0), x.dtype(), x.device());
}

// x (..., m, c) with its columns cut or zero-padded to `cols`.
Tensor with_columns(const Tensor& x, int64_t cols) {
  const int64_t c = x.size(-1);
  if (c == cols) return x;
  if (c > cols) return narrow(x, -1, 0, cols);
  return cat({x, zeros_matrix(x, x.size(-2), cols - c)}, -1);
}

// The gradients (for a, for tau) of Q = householder_product(a, tau) given gQ (see the top of the file).
std::pair<Tensor, Tensor> householder_product_grads(const Tensor& a, const Tensor& tau, const Tensor& gq) {
  const int64_t m = a.size(-2), n = a.size(-1), k = tau.size(-1);
  if (k == 0) return {zeros_matrix(a, m, n), mul(tau, Scalar(0.0))};
  Tensor v_all = add(triangle(a, false, -1), eye(m, n, a.dtype(), a.device()));
  std::vector<Tensor> v(k), t(k), r(k);
  for (int64_t i = 0; i < k; ++i) {
    v[i] = narrow(v_all, -1, i, 1);               // (..., m, 1)
    t[i] = unsqueeze(narrow(tau, -1, i, 1), -1);  // (..., 1, 1)
  }
  // R_{k-1} = E, R_{i-1} = H_i R_i.
  r[k - 1] = eye(m, n, a.dtype(), a.device());
  for (int64_t i = k - 1; i > 0; --i) r[i - 1] = sub(r[i], mul(t[i], matmul(v[i], matmul(mH(v[i]), r[i]))));
  Tensor l = eye(m, std::nullopt, a.dtype(), a.device());  // L_0 = I, L_{i+1} = L_i H_i
  std::vector<Tensor> ga(k), gt(k);
  for (int64_t i = 0; i < k; ++i) {
    Tensor lv = matmul(l, v[i]);
    Tensor kv = matmul(mH(l), matmul(gq, matmul(mH(r[i]), v[i])));
    Tensor khv = matmul(r[i], matmul(mH(gq), lv));
    gt[i] = squeeze(neg(matmul(mH(v[i]), kv)), DimVector{-1});  // (..., 1)
    ga[i] = neg(add(mul(conj(t[i]), kv), mul(t[i], khv)));
    if (i + 1 < k) l = sub(l, mul(t[i], matmul(lv, mH(v[i]))));
  }
  Tensor g_a = with_columns(triangle(cat(ga, -1), false, -1), n);
  return {g_a, cat(gt, -1)};
}

// Householder vectors of ormqr's a (..., m, n) as the m x m matrix whose householder_product is the full Q.
Tensor square_reflectors(const Tensor& a) { return with_columns(a, a.size(-2)); }

struct NotImplementedNode final : Node {
  explicit NotImplementedNode(const char* op) : op_(op) {}
  std::string name() const override { return "torch::autograd::NotImplemented"; }
  std::vector<Tensor> apply(std::vector<Tensor>&&) override {
    TANDEM_THROW(Runtime, "derivative for ", op_, " is not implemented",
                 "\nhint: PyTorch has no gradient for this op either; compute the result under no_grad() or "
                 "use a differentiable alternative (e.g. linalg.solve)");
  }
  const char* op_;
};

}  // namespace

void record_geqrf(const Tensor& a, const Tensor& qr, const Tensor& tau) {
  auto node = make_node("GeqrfBackward0", [](FormulaNode&, const Tensor&) -> std::vector<Tensor> {
    TANDEM_THROW(NotImplemented, "the derivative for 'geqrf' is not implemented.",
                 "\nhint: differentiate through linalg.qr (or linalg.householder_product) instead");
  });
  set_history(node, {&a}, {&qr, &tau});
}

void record_householder_product(const Tensor& a, const Tensor& tau, const Tensor& q) {
  auto node = make_node("LinalgHouseholderProductBackward0", [](FormulaNode& n, const Tensor& g) {
    auto [ga, gt] = householder_product_grads(n.saved_tensor(0), n.saved_tensor(1), g);
    return std::vector<Tensor>{n.needs_input_grad(0) ? ga : Tensor(), n.needs_input_grad(1) ? gt : Tensor()};
  });
  set_history(node, {&a, &tau}, {&q});
  node->saved.emplace_back(a, false);
  node->saved.emplace_back(tau, false);
}

void record_ormqr(const Tensor& a, const Tensor& tau, const Tensor& other, bool left, bool transpose,
                  const Tensor& out) {
  auto node = make_node("OrmqrBackward0", [](FormulaNode& n, const Tensor& g) {
    const bool left = n.variant & 1, transpose = n.variant & 2;
    Tensor a = n.saved_tensor(0), tau = n.saved_tensor(1), c = n.saved_tensor(2);
    std::vector<Tensor> r(3);
    // out = op(Q) C: gC = op(Q)^H g; out = C op(Q): gC = g op(Q)^H.
    if (n.needs_input_grad(2)) r[2] = ormqr(a, tau, g, left, !transpose);
    if (n.needs_input_grad(0) || n.needs_input_grad(1)) {
      // The gradient reaching the full Q (m x m): Q C -> g C^H, Q^H C -> C g^H, C Q -> C^H g, C Q^H -> g^H C.
      Tensor gq = left ? (transpose ? matmul(c, mH(g)) : matmul(g, mH(c)))
                       : (transpose ? matmul(mH(g), c) : matmul(mH(c), g));
      auto [ga, gt] = householder_product_grads(square_reflectors(a), tau, gq);
      if (n.needs_input_grad(0)) r[0] = with_columns(ga, a.size(-1));
      if (n.needs_input_grad(1)) r[1] = gt;
    }
    return r;
  });
  node->variant = static_cast<int8_t>((left ? 1 : 0) | (transpose ? 2 : 0));
  set_history(node, {&a, &tau, &other}, {&out});
  node->saved.emplace_back(a, false);
  node->saved.emplace_back(tau, false);
  node->saved.emplace_back(other, false);
}

void record_not_implemented(const char* aten_name, std::initializer_list<const Tensor*> inputs,
                            std::initializer_list<const Tensor*> outputs) {
  set_history(std::make_shared<NotImplementedNode>(aten_name), inputs, outputs);
}

}  // namespace tandem::autograd
