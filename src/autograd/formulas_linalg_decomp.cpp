// Gradients of tandem.linalg's factorizations and solvers (PyTorch's formulas, FunctionsManual.cpp), built
// from public ops so they run on every device and can be differentiated again (create_graph). Written for
// complex matrices (conjugate transposes, PyTorch's convention of conj-Wirtinger gradients); for real ones
// mH is mT and the complex-only terms vanish.
#include "autograd/formulas_linalg_decomp.h"

#include "autograd/formula_node.h"
#include "core/error.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/indexing.h"
#include "ops/join.h"
#include "ops/linalg.h"
#include "ops/linalg_decomp.h"
#include "ops/linalg_lapack_call.h"
#include "ops/reduce.h"
#include "ops/scan.h"
#include "ops/view.h"

namespace tandem::autograd {
namespace {
using Grads = std::vector<Tensor>;
using linalg_detail::identity;
using linalg_detail::mH;
using linalg_detail::triangle;

// A node whose op has several outputs (slogdet, qr, eigh, svd): its formula gets one gradient per output,
// zeros for an output nothing used, and `arrived` says which ones did (eigh, eig and svd leave out the terms
// of vectors no gradient reached, as PyTorch does).
struct MultiOutputNode final : Node {
  using Formula = Grads (*)(MultiOutputNode& node, const Grads& grads);
  MultiOutputNode(const char* name, Formula f) : name_(name), formula(f) {}
  std::string name() const override { return name_; }
  bool fills_missing_gradients() const override { return true; }
  Grads apply(Grads&& grads) override {
    arrived.assign(grads.size(), true);
    for (size_t k = 0; k < grads.size(); ++k) {
      if (grads[k].defined()) continue;
      arrived[k] = false;
      grads[k] = full(outputs[k].sizes, Scalar(0.0), outputs[k].dtype, outputs[k].device);
    }
    return formula(*this, grads);
  }
  void release_saved() override {
    for (SavedTensor& s : saved) s.release();
  }
  Tensor saved_tensor(size_t i) const { return saved[i].unpack(*this); }

  const char* name_;
  Formula formula;
  std::vector<SavedTensor> saved;
  std::vector<bool> arrived;  // of the last apply(): which outputs a gradient reached
  bool flag = false;
  bool flag_real_input = false;
  int8_t variant = 0;  // qr: its mode  // eig of a real matrix: its gradient is the real part
};

// x's shape without its last dim.
DimVector batch_shape_of(const Tensor& x) {
  const auto& sizes = x.sizes();
  return DimVector(IntArrayRef(sizes.data(), sizes.size() - 1));
}
Tensor eye_mask(const Tensor& x) { return identity(x.size(-1), x); }
// diag(v): (..., n) -> (..., n, n).
Tensor diag_embed_of(const Tensor& v) { return mul(unsqueeze(v, -1), identity(v.size(-1), v)); }
// X - X^H
Tensor skew(const Tensor& x) { return sub(x, mH(x)); }
// The main diagonal (..., n) of square matrices (a differentiable reduction, not a view).
Tensor diag_of(const Tensor& x) { return sum(mul(x, eye_mask(x)), DimVector{-1}); }
// x with its main diagonal zeroed.
Tensor off_diagonal(const Tensor& x) { return sub(x, mul(x, eye_mask(x))); }
// x as `like`'s dtype (real matrices entering a complex product).
Tensor as_dtype_of(const Tensor& x, const Tensor& like) {
  return x.dtype() == like.dtype() ? x : to_dtype(x, like.dtype());
}
// PyTorch's check that a loss does not depend on the phase of complex singular / eigen vectors:
// allclose(a, b, rtol=1e-2, atol=1e-2) (RuntimeError otherwise, with PyTorch's message).
void check_phase_invariant(const Tensor& a, const Tensor& b, const char* message) {
  Tensor close = le(abs(sub(a, b)), add(mul(abs(b), Scalar(1e-2)), Scalar(1e-2)));
  TANDEM_CHECK(item(all(close)).to_bool(), Runtime, message,
               "\nhint: make the loss depend on the vectors only through phase-invariant quantities, e.g. "
               "abs() of their entries or products v v^H");
}
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
    Tensor gb = linalg_solve(mH(a), g, true);
    if (n.needs_input_grad(0)) r[0] = neg(matmul(gb, mH(n.saved_tensor(1))));
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
    Tensor gb = linalg_solve_triangular(mH(n.saved_tensor(0)), g, !upper, true, unit);
    if (n.needs_input_grad(0)) {
      Tensor ga = neg(matmul(gb, mH(n.saved_tensor(1))));
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

Tensor record_cholesky_solve(const Tensor& b, const Tensor& factor, bool upper, const Tensor& x) {
  auto node = make_node("CholeskySolveBackward0", [](FormulaNode& n, const Tensor& g) {
    Grads r(2);
    const bool upper = n.variant;
    Tensor factor = n.saved_tensor(0);
    Tensor gb = cholesky_solve(g, factor, upper);
    if (n.needs_input_grad(0)) r[0] = gb;
    if (n.needs_input_grad(1)) {
      Tensor common = matmul(gb, mH(n.saved_tensor(1)));
      common = add(common, mH(common));
      r[1] = neg(upper ? matmul(factor, common) : matmul(common, factor));
    }
    return r;
  });
  node->variant = upper ? 1 : 0;
  set_history(node, {&b, &factor}, {&x});
  node->saved.emplace_back(factor, false);
  node->saved.emplace_back(x, true);
  return x;
}

namespace {
// g * d prod(x) / dx along the last dim without dividing by x (zeros allowed): the exclusive products from
// the left and from the right (PyTorch's prod_safe_zeros_backward).
Tensor prod_safe_zeros_backward(const Tensor& g, const Tensor& x) {
  const int64_t n = x.size(-1);
  if (n == 0) return expand(g, x.sizes());
  DimVector ones_shape(batch_shape_of(x));
  ones_shape.push_back(1);
  Tensor ones = full(ones_shape, Scalar(1.0), x.dtype(), x.device());
  Tensor left = cumprod(cat({ones, narrow(x, -1, 0, n - 1)}, -1), -1);
  Tensor right =
      flip(cumprod(cat({ones, flip(narrow(x, -1, 1, n - 1), DimVector{-1})}, -1), -1), DimVector{-1});
  return mul(g, conj(mul(left, right)));
}
}  // namespace

Tensor record_det(const Tensor& a, const Tensor& det) {
  auto node = make_node("LinalgDetBackward0", [](FormulaNode& n, const Tensor& g) {
    // gA = g conj(det) A^{-H} for a nonsingular A. When some matrix of the batch is (nearly) singular,
    // |det| < 100 eps, the whole batch takes PyTorch's adjugate form through the SVD A = U S V^H instead:
    // gA = U diag(conj(det(U) det(V^H)) g d prod(S) / dS) V^H (the same value where both apply).
    Tensor a = n.saved_tensor(0), det = n.saved_tensor(1);
    const double eps =
        complex_value_dtype(a.dtype()) == DType::Float32 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
    const bool singular = a.numel() > 0 && item(any(lt(abs(det), Scalar(100 * eps)))).to_bool();
    if (!singular) {
      Tensor scale = unsqueeze(unsqueeze(mul(g, conj(det)), -1), -1);
      return Grads{mul(scale, mH(linalg_inv(a)))};
    }
    auto [u, s, vh] = linalg_svd(a, true);
    Tensor alpha = mul(conj(mul(linalg_det(u), linalg_det(vh))), g);
    Tensor d = prod_safe_zeros_backward(unsqueeze(alpha, -1), s);
    return Grads{matmul(mul(u, unsqueeze(as_dtype_of(d, u), -2)), vh)};
  });
  set_history(node, {&a}, {&det});
  node->saved.emplace_back(a, false);
  node->saved.emplace_back(det, true);
  return det;
}

void record_slogdet(const Tensor& a, const Tensor& sign, const Tensor& logabsdet) {
  auto node =
      std::make_shared<MultiOutputNode>("LinalgSlogdetBackward0", [](MultiOutputNode& n, const Grads& g) {
        // gA = (g_logabsdet - i Im(conj(g_sign) sign)) A^{-H}; the sign of a real matrix is piecewise
        // constant (its gradient is dropped).
        Tensor a = n.saved_tensor(0);
        Tensor coef = g[1];
        if (is_complex(a.dtype())) coef = make_complex(g[1], neg(imag(mul(conj(g[0]), n.saved_tensor(1)))));
        Tensor scale = unsqueeze(unsqueeze(coef, -1), -1);
        return Grads{mul(scale, mH(linalg_inv(a)))};
      });
  set_history(node, {&a}, {&sign, &logabsdet});
  node->saved.emplace_back(a, false);
  node->saved.emplace_back(sign, true);
}

Tensor record_cholesky(const Tensor& a, bool upper, const Tensor& factor) {
  auto node = make_node("LinalgCholeskyExBackward0", [](FormulaNode& n, const Tensor& g) {
    const bool upper = n.variant;
    Tensor l = n.saved_tensor(0);
    Tensor gl = g;
    if (upper) {
      l = mH(l);
      gl = mH(gl);
    }
    // gA = sym(L^{-H} Phi(L^H gL) L^{-1}), Phi: the lower triangle with a halved diagonal, sym(X) = (X +
    // X^H)/2.
    Tensor phi = triangle(matmul(mH(l), gl), false);
    phi = sub(phi, mul(mul(phi, eye_mask(phi)), Scalar(0.5)));
    Tensor l_inv = linalg_solve_triangular(l, identity(l.size(-1), l), false, true, false);
    Tensor ga = matmul(matmul(mH(l_inv), phi), l_inv);
    return Grads{mul(add(ga, mH(ga)), Scalar(0.5))};
  });
  node->variant = upper ? 1 : 0;
  set_history(node, {&a}, {&factor});
  node->saved.emplace_back(factor, true);
  return factor;
}

void record_qr(const Tensor& a, const Tensor& q, const Tensor& r, const std::string& mode) {
  auto node = std::make_shared<MultiOutputNode>("LinalgQrBackward0", [](MultiOutputNode& n, const Grads& g) {
    TANDEM_CHECK(n.variant != 1, Runtime,
                 "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                 "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.",
                 "\nhint: use mode='reduced'");
    Tensor q = n.saved_tensor(0), r = n.saved_tensor(1);
    const int64_t m = q.size(-2), cols = r.size(-1);
    TANDEM_CHECK(n.variant != 2 || m <= cols, Runtime,
                 "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.",
                 "\nhint: use mode='reduced' (the extra columns of Q are not determined by A)");
    Tensor gq = g[0], gr = g[1];
    // X = gR R^H - Q^H gQ.
    Tensor x = sub(matmul(gr, mH(r)), matmul(mH(q), gq));
    if (m >= cols) {
      // gA = (gQ + Q syminvadj(triu(X))) R^{-H}, syminvadj(T) = T + T^H with the real part of its diagonal
      // halved: the strict upper triangle of X, its adjoint, and Re(diag X).
      Tensor upper = triangle(x, true, 1);
      Tensor re_x = real(x);
      Tensor sym = add(add(upper, mH(upper)), as_dtype_of(mul(re_x, eye_mask(re_x)), x));
      return Grads{linalg_solve_triangular(mH(r), add(gq, matmul(q, sym)), false, false, false)};
    }
    // Wide A = Q [R1 R2]: gA = [Q trilImInvAdjSkew(-X) R1^{-H}, 0] + Q gR, trilImInvAdjSkew(Y) = tril(Y -
    // Y^H) with the imaginary part of its diagonal halved (the diagonal of Y - Y^H is 2i Im(diag Y)).
    Tensor y = neg(x);
    Tensor d = sub(y, mH(y));
    Tensor skew = add(triangle(d, false, -1), mul(mul(d, eye_mask(d)), Scalar(0.5)));
    Tensor ga = linalg_solve_triangular(mH(narrow(r, -1, 0, m)), matmul(q, skew), false, false, false);
    DimVector zeros_shape(batch_shape_of(ga));
    zeros_shape.push_back(cols - m);
    ga = cat({ga, full(zeros_shape, Scalar(0.0), ga.dtype(), ga.device())}, -1);
    return Grads{add(ga, matmul(q, gr))};
  });
  node->variant = mode == "r" ? 1 : (mode == "complete" ? 2 : 0);
  if (mode == "r") {
    set_history(node, {&a}, {&r});
    return;
  }
  set_history(node, {&a}, {&q, &r});
  node->saved.emplace_back(q, true);
  node->saved.emplace_back(r, true);
}

void record_eigh(const Tensor& a, const Tensor& values, const Tensor& vectors, bool vectors_output) {
  auto node = std::make_shared<MultiOutputNode>("LinalgEighBackward0", [](MultiOutputNode& n,
                                                                          const Grads& g) {
    Tensor w = n.saved_tensor(0), v = n.saved_tensor(1);
    Tensor inner = as_dtype_of(diag_embed_of(g[0]), v);
    if (n.flag && n.arrived[1]) {
      // The skew-Hermitian part of V^H gV over the eigenvalue gaps (diagonal dropped), plus diag(gL).
      Tensor vhgv = matmul(mH(v), g[1]);
      if (is_complex(v.dtype()))
        check_phase_invariant(imag(diag_of(vhgv)), mul(w, Scalar(0.0)),
                              "linalg_eigh_backward: The eigenvectors in the complex case are specified up "
                              "to multiplication by e^{i phi}. The specified loss function depends on this "
                              "quantity, so it is ill-defined.");
      Tensor vgv = off_diagonal(mul(skew(vhgv), Scalar(0.5)));
      inner = add(inner, div(vgv, gaps(w)));
    }
    return Grads{matmul(v, matmul(inner, mH(v)))};
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
    const int64_t m = u.size(-2), cols = vh.size(-1), k = s.size(-1);
    if (!n.flag || (!n.arrived[0] && !n.arrived[2])) {
      // Only S was used: U diag(gS) Vh over the first min(m, n) columns (PyTorch's shortcut, no gaps).
      if (n.flag) {
        u = narrow(u, -1, 0, k);
        vh = narrow(vh, -2, 0, k);
      }
      return Grads{matmul(mul(u, unsqueeze(gs, -2)), vh)};
    }
    Tensor gu = g[0], gvh = g[2];
    // full_matrices: the extra columns of U (rows of Vh) are not determined by A; PyTorch drops them.
    if (u.size(-1) != k) {
      u = narrow(u, -1, 0, k);
      gu = narrow(gu, -1, 0, k);
    }
    if (vh.size(-2) != k) {
      vh = narrow(vh, -2, 0, k);
      gvh = narrow(gvh, -2, 0, k);
    }
    Tensor uhgu = skew(matmul(mH(u), gu)), vhgv = skew(matmul(vh, mH(gvh)));
    const bool complex = is_complex(u.dtype());
    if (complex)
      check_phase_invariant(
          imag(diag_of(uhgu)), neg(imag(diag_of(vhgv))),
          "svd_backward: The singular vectors in the complex case are specified up to "
          "multiplication by e^{i phi}. The specified loss function depends on this phase term, "
          "making it ill-defined.");
    Tensor s2 = mul(s, s);
    Tensor inner = div(add(mul(uhgu, unsqueeze(s, -2)), mul(unsqueeze(s, -1), vhgv)), gaps(s2));
    inner = add(inner, as_dtype_of(diag_embed_of(gs), inner));
    // The complex case's diagonal term i Im(diag(U^H gU)) / S (diag(skew(U^H gU)) / (2 S)).
    if (complex) inner = add(inner, diag_embed_of(div(diag_of(uhgu), mul(s, Scalar(2.0)))));
    if (m > cols) {
      // gA = [U inner + (I - U U^H) gU S^{-1}] Vh
      Tensor gu_sinv = div(gu, unsqueeze(s, -2));
      Tensor ga = add(matmul(u, inner), sub(gu_sinv, matmul(u, matmul(mH(u), gu_sinv))));
      return Grads{matmul(ga, vh)};
    }
    if (m < cols) {
      // gA = U [inner Vh + S^{-1} gV^H (I - V V^H)]
      Tensor sinv_gvh = div(gvh, unsqueeze(s, -1));
      Tensor ga = add(matmul(inner, vh), sub(sinv_gvh, matmul(matmul(sinv_gvh, mH(vh)), vh)));
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

void record_eig(const Tensor& a, const Tensor& values, const Tensor& vectors, bool vectors_output) {
  auto node = std::make_shared<MultiOutputNode>("LinalgEigBackward0", [](MultiOutputNode& n, const Grads& g) {
    // gA = V^{-H} (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / conj(E)) V^H, E_ij = L_j - L_i off the
    // diagonal (PyTorch's linalg_eig_backward; the second term keeps the eigenvectors of norm 1). A real
    // input gets the real part.
    Tensor l = n.saved_tensor(0), v = n.saved_tensor(1);
    Tensor vh = mH(v);
    Tensor inner = diag_embed_of(as_dtype_of(g[0], v));
    if (n.flag && n.arrived[1]) {
      Tensor vhgv = matmul(vh, g[1]);
      Tensor diag = diag_of(vhgv);
      check_phase_invariant(
          imag(diag), mul(real(diag), Scalar(0.0)),
          "linalg_eig_backward: The eigenvectors in the complex case are specified up to "
          "multiplication by e^{i phi}. The specified loss function depends on this quantity, "
          "so it is ill-defined.");
      vhgv = sub(vhgv, matmul(vh, mul(v, unsqueeze(real(diag), -2))));
      inner = add(inner, div(off_diagonal(vhgv), gaps(conj(l))));
    }
    Tensor ga = linalg_solve(vh, matmul(inner, vh), true);
    return Grads{n.flag_real_input ? real(ga) : ga};
  });
  node->flag = vectors_output;
  node->flag_real_input = !is_complex(a.dtype());
  if (vectors_output)
    set_history(node, {&a}, {&values, &vectors});
  else
    set_history(node, {&a}, {&values});
  node->saved.emplace_back(values, true);
  node->saved.emplace_back(vectors, vectors_output);
}

namespace {
// PyTorch's linalg_lu_backward for A = P L U (L (..., m, k) unit lower, U (..., k, n) upper, k = min(m, n)):
// the factors' gradients pulled back through the two triangular solves; a wide or tall A carries the extra
// block of U (or L) straight through. Only the strictly lower part of gL and the upper part of gU count.
Tensor lu_backward(const Tensor& gl, const Tensor& gu, const Tensor& p, const Tensor& l, const Tensor& u) {
  const int64_t m = l.size(-2), n = u.size(-1), k = std::min(m, n);
  Tensor ga;
  if (m == n) {
    // P L^{-H} [L^H gL o 1_L + gU U^H o 1_U] U^{-H}
    ga = add(triangle(matmul(mH(l), gl), false, -1), triangle(matmul(gu, mH(u)), true));
    ga = linalg_solve_triangular(mH(u), ga, false, false, false);
    ga = linalg_solve_triangular(mH(l), ga, true, true, true);
  } else if (m < n) {
    // [P L^{-H} (gU1 o 1_U + (L^H gL - (gU o 1_U) U^H) o 1_L U1^{-H}),  P L^{-H} gU2]
    Tensor u1 = narrow(u, -1, 0, k);
    ga = sub(matmul(mH(l), gl), matmul(triangle(gu, true), mH(u)));
    ga = linalg_solve_triangular(mH(u1), triangle(ga, false, -1), false, false, false);
    ga = cat({add(ga, triangle(narrow(gu, -1, 0, k), true)), narrow(gu, -1, k, n - k)}, -1);
    ga = linalg_solve_triangular(mH(l), ga, true, true, true);
  } else {
    // [P (gL1 o 1_L + L1^{-H} (gU U^H - L^H (gL o 1_L)) o 1_U) U^{-H};  P gL2 U^{-H}]
    Tensor l1 = narrow(l, -2, 0, k);
    ga = sub(matmul(gu, mH(u)), matmul(mH(l), triangle(gl, false, -1)));
    ga = linalg_solve_triangular(mH(l1), triangle(ga, true), true, true, true);
    ga = cat({add(ga, triangle(narrow(gl, -2, 0, k), false, -1)), narrow(gl, -2, k, m - k)}, -2);
    ga = linalg_solve_triangular(mH(u), ga, false, false, false);
  }
  return matmul(p, ga);
}
}  // namespace

void record_lu_factor(const Tensor& a, const Tensor& lu, const Tensor& pivots) {
  auto node = make_node("LinalgLuFactorExBackward0", [](FormulaNode& n, const Tensor& g) {
    Tensor lu = n.saved_tensor(0);
    auto [p, l, u] = lu_unpack_factors(lu, n.saved_tensor(1));
    const int64_t k = std::min(lu.size(-2), lu.size(-1));
    return Grads{lu_backward(narrow(g, -1, 0, k), narrow(g, -2, 0, k), p, l, u)};
  });
  set_history(node, {&a}, {&lu});
  node->saved.emplace_back(lu, true);
  node->saved.emplace_back(pivots, false);
}

Tensor record_lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool left, bool adjoint,
                       const Tensor& x) {
  auto node = make_node("LinalgLuSolveBackward0", [](FormulaNode& n, const Tensor& g) {
    // PyTorch's linalg_lu_solve_LU: with op_1 the system's (A or A^H) and op_2 X or X^H as left says,
    // left != adjoint: gR = U^{-H} op_2(-gX) op_2(X)^H, gLU = (L^{-H} gR U^H) o 1_L + gR o 1_U;
    // else: gR = -P^T op_3(X) op_1(op_2(gX)) P L^{-H}, gLU = gR o 1_L + (L^H gR U^{-H}) o 1_U.
    Grads r(2);
    const bool left = n.variant & 1, adjoint = n.variant & 2;
    Tensor lu = n.saved_tensor(0), pivots = n.saved_tensor(1), x = n.saved_tensor(2);
    if (n.needs_input_grad(1)) r[1] = linalg_lu_solve(lu, pivots, g, left, !adjoint);
    if (n.needs_input_grad(0)) {
      auto [p, l, u] = lu_unpack_factors(lu, pivots);
      if (left != adjoint) {
        Tensor gr = linalg_solve_triangular(mH(u), neg(matmul(left ? g : mH(g), left ? mH(x) : x)), false,
                                            true, false);
        Tensor gl = linalg_solve_triangular(mH(l), matmul(gr, mH(u)), true, true, true);
        r[0] = add(triangle(gl, false, -1), triangle(gr, true));
      } else {
        Tensor gr = neg(matmul(matmul(matmul(mT(p), left ? x : mH(x)), left ? mH(g) : g), p));
        gr = linalg_solve_triangular(mH(l), gr, true, false, true);
        Tensor gu = linalg_solve_triangular(mH(u), matmul(mH(l), gr), false, false, false);
        r[0] = add(triangle(gr, false, -1), triangle(gu, true));
      }
    }
    return r;
  });
  node->variant = static_cast<int8_t>((left ? 1 : 0) | (adjoint ? 2 : 0));
  set_history(node, {&lu, &b}, {&x});
  node->saved.emplace_back(lu, false);
  node->saved.emplace_back(pivots, false);
  node->saved.emplace_back(x, true);
  return x;
}

}  // namespace tandem::autograd
