// tandem.linalg's factorizations and solvers for float32/float64/complex64/complex128 (PyTorch's torch.linalg
// names and rules), batched over leading dims. The decompositions run in the LAPACK kernel table
// (kernels/lapack_kernels.h); everything here decides shapes, dtypes, batching and errors, and records the
// autograd nodes. Singular / non-convergent inputs raise LinAlgError (a RuntimeError whose ErrorDetails hold
// "linalg_error"), unless an _ex form returns `info` instead.
#pragma once
#include <string>
#include <tuple>

#include "core/tensor.h"

namespace tandem {

// (LU, pivots, info); pivots int32 1-based, info int32 (batch).
std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& a, bool pivot, bool check_errors);
std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& a, bool pivot);
// (P, L, U) with A = P L U.
std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& a, bool pivot);
// (P, L, U) of lu_factor's packed result (L, U differentiable ops on `lu`; P from the pivots).
std::tuple<Tensor, Tensor, Tensor> lu_unpack_factors(const Tensor& lu, const Tensor& pivots);
Tensor linalg_lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool left, bool adjoint);
// (result, info)
std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& a, const Tensor& b, bool left, bool check_errors);
Tensor linalg_solve(const Tensor& a, const Tensor& b, bool left);
std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& a, bool check_errors);
Tensor linalg_inv(const Tensor& a);
Tensor linalg_det(const Tensor& a);
std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& a);  // (sign, logabsdet)
Tensor logdet(const Tensor& a);
Tensor linalg_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular);
// (L, info)
std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& a, bool upper, bool check_errors);
Tensor linalg_cholesky(const Tensor& a, bool upper);
// torch.cholesky_solve(B, L, upper) and torch.cholesky_inverse(L, upper).
Tensor cholesky_solve(const Tensor& b, const Tensor& factor, bool upper);
Tensor cholesky_inverse(const Tensor& factor, bool upper);
// mode: "reduced", "complete" or "r" (Q is then an empty tensor).
std::tuple<Tensor, Tensor> linalg_qr(const Tensor& a, const std::string& mode);
// (eigenvalues, eigenvectors) of a symmetric / Hermitian matrix, eigenvalues real; uplo "L" or "U".
std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& a, const std::string& uplo);
Tensor linalg_eigvalsh(const Tensor& a, const std::string& uplo);
// (eigenvalues, eigenvectors) of a general matrix: complex64/complex128 for every input (real ones too), the
// eigenvectors of norm 1 as LAPACK's geev gives them.
std::tuple<Tensor, Tensor> linalg_eig(const Tensor& a);
Tensor linalg_eigvals(const Tensor& a);
// (U, S, Vh); S real.
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& a, bool full_matrices);
Tensor linalg_svdvals(const Tensor& a);

}  // namespace tandem
