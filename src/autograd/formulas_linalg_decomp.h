// Recording entry points of tandem.linalg's factorizations and solvers (ops/linalg_decomp.h): each takes
// the inputs and the outputs the front end computed with grad mode off, and attaches the node. The formulas
// (formulas_linalg_decomp.cpp) are PyTorch's (FunctionsManual.cpp), written with public ops, so they run on
// every device and are differentiable again. Matrices only: front ends turn vectors into (n, 1) first.
#pragma once
#include <string>

#include "core/tensor.h"

namespace tandem::autograd {

// LU (..., m, n) of lu_factor (pivots int32, not differentiable); PyTorch's lu_factor_ex_backward.
void record_lu_factor(const Tensor& a, const Tensor& lu, const Tensor& pivots);
// X of lu_solve(LU, pivots, B, left, adjoint); gradients for LU and B.
Tensor record_lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool left, bool adjoint,
                       const Tensor& x);
// X with A X = B (A square, both batched; broadcast batch dims are summed back by the engine).
Tensor record_linalg_solve(const Tensor& a, const Tensor& b, const Tensor& x);
Tensor record_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool unitriangular,
                               const Tensor& x);
// X of cholesky_solve(B, factor, upper). The factor's gradient is PyTorch's, not projected onto the triangle
// (code that builds the factor from a full matrix, such as linear_operator's, relies on it).
Tensor record_cholesky_solve(const Tensor& b, const Tensor& factor, bool upper, const Tensor& x);
Tensor record_det(const Tensor& a, const Tensor& det);
// logabsdet gets the gradient; sign is piecewise constant.
void record_slogdet(const Tensor& a, const Tensor& sign, const Tensor& logabsdet);
Tensor record_cholesky(const Tensor& a, bool upper, const Tensor& factor);
// QR in `mode` (q empty for "r"); the formula raises PyTorch's errors for mode "r" and for a complete QR of a
// tall matrix.
void record_qr(const Tensor& a, const Tensor& q, const Tensor& r, const std::string& mode);
// vectors undefined: eigvalsh (only the eigenvalues were computed, and saved vectors are needed: the front
// end passes them anyway, so `vectors` is always defined here; `vectors_output` says whether it is an
// output).
void record_eigh(const Tensor& a, const Tensor& values, const Tensor& vectors, bool vectors_output);
// eig / eigvals (vectors always computed and saved; `vectors_output` says whether they are an output).
void record_eig(const Tensor& a, const Tensor& values, const Tensor& vectors, bool vectors_output);
// SVD (reduced or full: the formula uses the first min(m, n) columns of U and rows of Vh); `uv_output` false
// for svdvals (U and Vh only saved).
void record_svd(const Tensor& a, const Tensor& u, const Tensor& s, const Tensor& vh, bool uv_output);

}  // namespace tandem::autograd
