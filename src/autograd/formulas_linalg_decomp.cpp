// Gradients of tandem.linalg's factorizations and solvers (PyTorch's formulas, FunctionsManual.cpp), built
// from public ops so they run on every device and can be differentiated again (create_graph).
#include "autograd/formulas_linalg_decomp.h"

#include "autograd/formula_node.h"
#include "ops/elementwise.h"
#include "ops/linalg.h"
#include "ops/linalg_decomp.h"
#include "ops/linalg_lapack_call.h"
#include "ops/view.h"

namespace tandem::autograd {
namespace {
using Grads = std::vector<Tensor>;
using linalg_detail::identity;
using linalg_detail::triangle;

// A node whose op has several outputs (slogdet, qr, eigh, svd): its formula gets one gradient per output
// (the engine zero-fills those of outputs nothing used; `used[i]` tells the formula which ones arrived).
struct MultiOutputNode final : Node {
  using Formula = Grads (*)(MultiOutputNode& node, const Grads& grads);
  MultiOutputNode(const char* name, Formula f) : name_(name), formula(f) {}
  std::string name() const override { return name_; }
  Grads apply(Grads&& grads) override { return formula(*this, grads); }
  void release_saved() override {
    for (SavedTensor& s : saved) s.release();
  }
  Tensor saved_tensor(size_t i) const { return saved[i].unpack(*this); }

  const char* name_;
  Formula formula;
  std::vector<SavedTensor> saved;
  bool flag = false;
};

Tensor eye_mask(const Tensor& x) { return identity(x.size(-1), x); }
// diag(v): (..., n) -> (..., n, n).
Tensor diag_embed_of(const Tensor& v) { return mul(unsqueeze(v, -1), identity(v.size(-1), v)); }
// X - X^T
Tensor skew(const Tensor& x) { return sub(x, mT(x)); }
// E_ij = v_j - v_i off the diagonal, 1 on it (so dividing by it leaves a zero diagonal alone).
Tensor gaps(const Tensor& v) {
  Tensor e = sub(unsqueeze(v, -2), unsqueeze(v, -1));
  return add(e, eye_mask(e));
}
}  // namespace

Tensor record_linalg_solve(const Tensor& a, const Tensor& b, const Tensor& x) {
  auto node = make_node("LinalgSolveExBackward0", [](FormulaNode& n, const Tensor& g) {
    Grads r(2);
    Tensor a = n.saved_tensor(0);
    Tensor gb = linalg_solve(mT(a), g, true);
    if (n.needs_input_grad(0)) r[0] = neg(matmul(gb, mT(n.saved_tensor(1))));
    if (n.needs_input_grad(1)) r[1] = gb;
    return r;
  });
  set_history(node, {&a, &b}, {&x});
  node->saved.emplace_back(a, false);
  node->saved.emplace_back(x, true);
  return x;
}

Tensor record_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool unitriangular,
                               const Tensor& x) {
  auto node = make_node("LinalgSolveTriangularBackward0", [](FormulaNode& n, const Tensor& g) {
    Grads r(2);
    const bool upper = n.variant & 1, unit = n.variant & 2;
    Tensor gb = linalg_solve_triangular(mT(n.saved_tensor(0)), g, !upper, true, unit);
    if (n.needs_input_grad(0)) {
      Tensor ga = neg(matmul(gb, mT(n.saved_tensor(1))));
      r[0] = triangle(ga, upper, unit ? (upper ? 1 : -1) : 0);
    }
    if (n.needs_input_grad(1)) r[1] = gb;
    return r;
  });
  node->variant = static_cast<int8_t>((upper ? 1 : 0) | (unitriangular ? 2 : 0));
  set_history(node, {&a, &b}, {&x});
  node->saved.emplace_back(a, false);
  node->saved.emplace_back(x, true);
  return x;
}

Tensor record_det(const Tensor& a, const Tensor& det) {
  auto node = make_node("LinalgDetBackward0", [](FormulaNode& n, const Tensor& g) {
    // d det / dA = det * A^{-T} (nonsingular A).
    Tensor scale = unsqueeze(unsqueeze(mul(g, n.saved_tensor(1)), -1), -1);
    return Grads{mul(scale, mT(linalg_inv(n.saved_tensor(0))))};
  });
  set_history(node, {&a}, {&det});
  node->saved.emplace_back(a, false);
  node->saved.emplace_back(det, true);
  return det;
}

void record_slogdet(const Tensor& a, const Tensor& sign, const Tensor& logabsdet) {
  auto node =
      std::make_shared<MultiOutputNode>("LinalgSlogdetBackward0", [](MultiOutputNode& n, const Grads& g) {
        Tensor scale = unsqueeze(unsqueeze(g[1], -1), -1);
        return Grads{mul(scale, mT(linalg_inv(n.saved_tensor(0))))};
      });
  set_history(node, {&a}, {&sign, &logabsdet});
  node->saved.emplace_back(a, false);
}

Tensor record_cholesky(const Tensor& a, bool upper, const Tensor& factor) {
  auto node = make_node("LinalgCholeskyExBackward0", [](FormulaNode& n, const Tensor& g) {
    const bool upper = n.variant;
    Tensor l = n.saved_tensor(0);
    Tensor gl = g;
    if (upper) {
      l = mT(l);
      gl = mT(gl);
    }
    // gA = sym(L^{-T} Phi(L^T gL) L^{-1}), Phi: the lower triangle with a halved diagonal.
    Tensor phi = triangle(matmul(mT(l), gl), false);
    phi = sub(phi, mul(mul(phi, eye_mask(phi)), Scalar(0.5)));
    Tensor l_inv = linalg_solve_triangular(l, identity(l.size(-1), l), false, true, false);
    Tensor ga = matmul(matmul(mT(l_inv), phi), l_inv);
    return Grads{mul(add(ga, mT(ga)), Scalar(0.5))};
  });
  node->variant = upper ? 1 : 0;
  set_history(node, {&a}, {&factor});
  node->saved.emplace_back(factor, true);
  return factor;
}

void record_qr(const Tensor& a, const Tensor& q, const Tensor& r) {
  auto node = std::make_shared<MultiOutputNode>("LinalgQrBackward0", [](MultiOutputNode& n, const Grads& g) {
    Tensor q = n.saved_tensor(0), r = n.saved_tensor(1);
    // gA = (gQ + Q copyltu(M)) R^{-T}, M = R gR^T - gQ^T Q, copyltu(M) = tril(M) + tril(M, -1)^T.
    Tensor m = sub(matmul(r, mT(g[1])), matmul(mT(g[0]), q));
    Tensor sym = add(triangle(m, false), mT(triangle(m, false, -1)));
    Tensor rhs = add(g[0], matmul(q, sym));
    return Grads{linalg_solve_triangular(mT(r), rhs, false, false, false)};
  });
  set_history(node, {&a}, {&q, &r});
  node->saved.emplace_back(q, true);
  node->saved.emplace_back(r, true);
}

void record_eigh(const Tensor& a, const Tensor& values, const Tensor& vectors, bool vectors_output) {
  auto node =
      std::make_shared<MultiOutputNode>("LinalgEighBackward0", [](MultiOutputNode& n, const Grads& g) {
        Tensor w = n.saved_tensor(0), v = n.saved_tensor(1);
        Tensor inner = diag_embed_of(g[0]);
        if (n.flag) {
          // The skew part of V^T gV over the eigenvalue gaps (zero diagonal), plus diag(gL).
          Tensor vgv = mul(skew(matmul(mT(v), g[1])), Scalar(0.5));
          inner = add(inner, div(vgv, gaps(w)));
        }
        return Grads{matmul(v, matmul(inner, mT(v)))};
      });
  node->flag = vectors_output;
  if (vectors_output)
    set_history(node, {&a}, {&values, &vectors});
  else
    set_history(node, {&a}, {&values});
  node->saved.emplace_back(values, true);
  node->saved.emplace_back(vectors, vectors_output);
}

void record_svd(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, bool uv_output) {
  auto node = std::make_shared<MultiOutputNode>("LinalgSvdBackward0", [](MultiOutputNode& n, const Grads& g) {
    Tensor u = n.saved_tensor(0), s = n.saved_tensor(1), vh = n.saved_tensor(2);
    const Tensor& gs = n.flag ? g[1] : g[0];
    const int64_t m = u.size(-2), k = s.size(-1), cols = vh.size(-1);
    if (!n.flag) return Grads{matmul(mul(u, unsqueeze(gs, -2)), vh)};
    Tensor gu = g[0], gvh = g[2];
    Tensor v = mT(vh), gv = mT(gvh);
    Tensor uhgu = skew(matmul(mT(u), gu)), vhgv = skew(matmul(mT(v), gv));
    Tensor s2 = mul(s, s);
    Tensor inner = div(add(mul(uhgu, unsqueeze(s, -2)), mul(unsqueeze(s, -1), vhgv)), gaps(s2));
    inner = add(inner, diag_embed_of(gs));
    (void)k;
    if (m > cols) {
      // gA = [U inner + (I - U U^T) gU S^{-1}] Vh
      Tensor gu_sinv = div(gu, unsqueeze(s, -2));
      Tensor ga = add(matmul(u, inner), sub(gu_sinv, matmul(u, matmul(mT(u), gu_sinv))));
      return Grads{matmul(ga, vh)};
    }
    if (m < cols) {
      // gA = U [inner Vh + S^{-1} gV^T (I - V V^T)]
      Tensor sinv_gvh = div(gvh, unsqueeze(s, -1));
      Tensor ga = add(matmul(inner, vh), sub(sinv_gvh, matmul(matmul(sinv_gvh, v), vh)));
      return Grads{matmul(u, ga)};
    }
    return Grads{matmul(u, matmul(inner, vh))};
  });
  node->flag = uv_output;
  if (uv_output)
    set_history(node, {&a}, {&u, &s, &vh});
  else
    set_history(node, {&a}, {&s});
  node->saved.emplace_back(u, uv_output);
  node->saved.emplace_back(s, true);
  node->saved.emplace_back(vh, uv_output);
}

}  // namespace tandem::autograd
