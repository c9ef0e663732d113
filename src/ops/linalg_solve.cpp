// tandem.linalg's LU family and solvers: lu_factor, lu, lu_solve, solve, inv, det, slogdet,
// solve_triangular, cholesky_solve, cholesky_inverse (ops/linalg_decomp.h).
#include <algorithm>

#include "autograd/formula_node.h"
#include "autograd/formulas_linalg_decomp.h"
#include "core/error.h"
#include "core/profiler.h"
#include "core/warning.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factories.h"
#include "ops/join.h"
#include "ops/linalg.h"
#include "ops/linalg_decomp.h"
#include "ops/linalg_lapack_call.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace tandem {

using namespace linalg_detail;

namespace {

DimVector with_matrix(IntArrayRef batch, int64_t rows, int64_t cols) {
  DimVector s(batch);
  s.push_back(rows);
  s.push_back(cols);
  return s;
}

// The batch shape two operands broadcast to (PyTorch's message when they do not).
DimVector broadcast_batch(const char* op, const Tensor& a, const Tensor& b) {
  return broadcast_shapes(batch_shape(a), batch_shape(b));
}

void check_same_dtype(const char* op, const Tensor& a, const Tensor& b, const char* an, const char* bn) {
  TANDEM_CHECK(a.dtype() == b.dtype(), Runtime, op, ": Expected ", an, " and ", bn,
               " to have the same dtype, but found ", an, " of type ", dtype_title(a.dtype()), " and ", bn,
               " of type ", dtype_title(b.dtype()), " instead", "\nhint: convert one of them, e.g. ", bn,
               ".to(", an, ".dtype)");
}

void check_same_device_linalg(const char* op, const Tensor& a, const Tensor& b, const char* an,
                              const char* bn) {
  check_same_device(op, a, b, an, bn);
}

// LU factors of `a` (square or not) as column-major buffers: (lu (B, n, m), pivots (B, k), info (B)).
struct LuBuffers {
  Tensor lu, pivots, info;
};
LuBuffers lu_buffers(const char* op, const Tensor& a, IntArrayRef batch) {
  const LapackKernels& k = lapack_for(op, a);
  const int64_t m = a.size(-2), n = a.size(-1), count = batch_count(batch);
  LuBuffers r;
  r.lu = column_major_copy(a, batch, a.dtype());
  r.pivots = empty(DimVector{count, std::min(m, n)}, DType::Int32, a.device());
  r.info = full(DimVector{count}, Scalar(int64_t{0}), DType::Int32, a.device());
  if (r.lu.numel() > 0) k.lu_factor(r.lu, r.pivots, r.info);
  return r;
}

// X with A X = B for matrices A (..., n, n) and B (..., n, k), batch dims broadcast; (X, info).
std::tuple<Tensor, Tensor> solve_matrices(const char* op, const Tensor& a, const Tensor& b) {
  DimVector batch = broadcast_batch(op, a, b);
  const int64_t n = a.size(-1), k = b.size(-1);
  LuBuffers lu = lu_buffers(op, a, batch);
  Tensor x = column_major_copy(b, batch, a.dtype());
  if (x.numel() > 0 && n > 0) lapack_for(op, a).lu_solve(lu.lu, lu.pivots, x, false);
  return {from_column_major(x, batch, n, k), reshape(lu.info, batch)};
}

// A^-1 for square matrices A (..., n, n); (X, info). From the LU factors in place where the backend has getri
// (the CPU), else A X = I through lu_solve (cuSOLVER has no getri).
std::tuple<Tensor, Tensor> invert_matrices(const char* op, const Tensor& a) {
  const LapackKernels& lapack = lapack_for(op, a);
  const int64_t n = a.size(-1);
  if (!lapack.lu_inverse) return solve_matrices(op, a, identity(n, a));
  DimVector batch = batch_shape(a);
  LuBuffers lu = lu_buffers(op, a, batch);
  if (lu.lu.numel() > 0) lapack.lu_inverse(lu.lu, lu.pivots, lu.info);
  return {from_column_major(lu.lu, batch, n, n), reshape(lu.info, batch)};
}

// The first failing matrix of `info` (positive entries), as the message `describe(prefix, code)` says.
template <typename Describe>
void raise_on_info(const Tensor& info, bool batched, Describe&& describe) {
  std::vector<int> codes = read_info(info);
  for (size_t i = 0; i < codes.size(); ++i)
    if (codes[i] != 0) throw_linalg_error(describe(batch_prefix(i, batched), codes[i]));
}

// lu_factor's and lu_factor_ex's error for a singular matrix: a plain RuntimeError in PyTorch, not its
// LinAlgError.
void raise_on_zero_pivot(const char* name, const Tensor& info, bool batched) {
  std::vector<int> codes = read_info(info);
  for (size_t i = 0; i < codes.size(); ++i)
    TANDEM_CHECK(
        codes[i] == 0, Runtime, name, ": ", batch_prefix(i, batched), "U[", codes[i], ",", codes[i],
        "] is zero and using it on lu_solve would result in a division by zero. If you still want to "
        "perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, "
        "pivot)");
}

// The errors of a singular matrix, naming the function the user called (PyTorch's _ex forms name themselves).
void raise_singular_solve(const char* name, const Tensor& info, bool batched) {
  raise_on_info(info, batched, [name](const std::string& p, int) {
    return std::string(name) + ": " + p + "The solver failed because the input matrix is singular.";
  });
}
void raise_singular_inverse(const char* name, const Tensor& info, bool batched) {
  raise_on_info(info, batched, [name](const std::string& p, int code) {
    return std::string(name) + ": " + p + "The diagonal element " + std::to_string(code) +
           " is zero, the inversion could not be completed because the input matrix is singular.";
  });
}

// lu_solve's pivots: PyTorch's checks of their shape and dtype, and of their values, which LAPACK reads as
// row numbers (a pivot of 0 or past the rows made getrs read and write outside the matrix: an abort, or a
// wrong answer). The values cost one small device-to-host copy.
void check_lu_pivots(const Tensor& lu, const Tensor& pivots) {
  const int64_t n = lu.size(-1);
  TANDEM_CHECK(pivots.dim() >= 1 && pivots.size(-1) == n, Runtime,
               "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix",
               "\nhint: pass the pivots linalg.lu_factor returned");
  TANDEM_CHECK(pivots.dtype() == DType::Int32, Runtime,
               "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32",
               "\nhint: pass the pivots linalg.lu_factor returned (int32), or pivots.int()");
  const IntArrayRef lead = IntArrayRef(lu.sizes()).first(lu.dim() - 1);
  TANDEM_CHECK(
      std::equal(lead.begin(), lead.end(), pivots.sizes().begin(), pivots.sizes().end()), Runtime,
      "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with shape ",
      pivots.shape_str(), " instead");
  if (pivots.numel() == 0 || pivots.device().is_meta()) return;  // meta pivots have no values to check
  std::vector<int> bounds = read_info(stack({amin(pivots), amax(pivots)}));
  TANDEM_CHECK(
      bounds[0] >= 1, Runtime,
      "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass the result of "
      "lu_factor?");
  TANDEM_CHECK(
      bounds[1] <= lu.size(-2), Runtime,
      "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you properly pass the "
      "result of lu_factor?");
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& a, bool pivot, bool check_errors) {
  profiler::RecordScope profile_scope("aten::linalg_lu_factor_ex", a, pivot, check_errors);
  const char* op = "torch.lu_factor";
  TANDEM_CHECK(a.dim() >= 2, Runtime, op,
               ": Expected tensor with 2 or more dimensions. Got size: ", a.shape_str(), " instead",
               "\nhint: lu_factor takes matrices (..., m, n)");
  check_float("linalg.lu_factor", a, "lu", true);
  TANDEM_CHECK(pivot, Runtime, "linalg.lu_factor: LU without pivoting is not implemented on the CPU",
               "\nhint: call it with pivot=True");
  DimVector batch = batch_shape(a);
  LuBuffers lu = autograd::without_grad([&] { return lu_buffers("linalg.lu_factor", a, batch); });
  const int64_t m = a.size(-2), n = a.size(-1);
  DimVector piv_shape(batch);
  piv_shape.push_back(std::min(m, n));
  Tensor info = reshape(lu.info, batch);
  Tensor factors = from_column_major(lu.lu, batch, m, n), pivots = reshape(lu.pivots, piv_shape);
  if (autograd::should_record(a)) autograd::record_lu_factor(a, factors, pivots);
  if (check_errors) raise_on_zero_pivot("torch.linalg.lu_factor_ex", info, !batch.empty());
  return {factors, pivots, info};
}

std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& a, bool pivot) {
  profiler::RecordScope profile_scope("aten::linalg_lu_factor", a, pivot);
  auto [lu, pivots, info] = linalg_lu_factor_ex(a, pivot, false);
  raise_on_zero_pivot("torch.linalg.lu_factor", info, a.dim() > 2);
  return {lu, pivots};
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& a, bool pivot) {
  profiler::RecordScope profile_scope("aten::linalg_lu", a, pivot);
  // PyTorch's linalg.lu words its rank check itself (lu_factor's is check_matrix's).
  TANDEM_CHECK(a.dim() >= 2, Runtime,
               "linalg.lu: Expected tensor with 2 or more dimensions. Got size: ", a.shape_str(),
               " instead\nhint: pass a matrix or a batch of matrices");
  auto [lu, pivots, info] = linalg_lu_factor_ex(a, pivot, false);
  // L and U are ops on LU, so their gradients reach A through lu_factor's node.
  return lu_unpack_factors(lu, pivots);
}

std::tuple<Tensor, Tensor, Tensor> lu_unpack_factors(const Tensor& lu, const Tensor& pivots) {
  const Tensor& a = lu;
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  Tensor l = add(narrow(triangle(lu, false, -1), -1, 0, k), eye(m, k, a.dtype(), a.device()));
  Tensor u = narrow(triangle(lu, true), -2, 0, k);
  // P from LAPACK's row swaps, applied in order to the identity's rows (on the host: k small steps each).
  // The batch count given explicitly: reshape cannot infer -1 when k == 0.
  const int64_t count = batch_count(batch_shape(a));
  Tensor piv = contiguous(to_device(reshape(pivots, DimVector{count, k}), Device(), std::nullopt, false));
  Tensor perm_host = empty(DimVector{count, m}, DType::Int64, Device());
  for (int64_t b = 0; b < count; ++b) {
    int64_t* perm = perm_host.data<int64_t>() + b * m;
    for (int64_t i = 0; i < m; ++i) perm[i] = i;
    const int* p = piv.data<int>() + b * k;
    for (int64_t i = 0; i < k; ++i) std::swap(perm[i], perm[p[i] - 1]);
  }
  // P[perm[i], i] = 1: A = P L U with row i of L U being row perm[i] of A.
  Tensor perm = to_device(perm_host, a.device(), std::nullopt, false);
  Tensor rows = arange(Scalar(int64_t{0}), Scalar(m), Scalar(int64_t{1}), DType::Int64, a.device());
  Tensor p = to_dtype(eq(unsqueeze(rows, -1), unsqueeze(perm, -2)), a.dtype());
  DimVector batch = batch_shape(a);
  return {reshape(p, with_matrix(batch, m, m)), l, u};
}

Tensor linalg_lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool left, bool adjoint) {
  profiler::RecordScope profile_scope("aten::linalg_lu_solve", lu, pivots, b, left, adjoint);
  const char* op = "linalg.lu_solve";
  check_square("torch.linalg.lu_solve", lu, "A");
  check_matrix(op, b, "B");
  check_float(op, lu);
  check_same_dtype(op, lu, b, "LU", "B");
  const int64_t n = lu.size(-1);
  TANDEM_CHECK((left ? b.size(-2) : b.size(-1)) == n, Runtime, op,
               ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B", " (", n, "x",
               n, " and ", b.size(-2), "x", b.size(-1), ")", "\nhint: B's ", left ? "rows" : "columns",
               " must match A's size");
  check_lu_pivots(lu, pivots);
  // B^H for XA = B: A^H X^H = B^H, one (conjugate-)transposed solve; X A^H = B is A X^H = B^H.
  Tensor rhs = left ? b : mH(b);
  const bool transpose = left ? adjoint : !adjoint;
  DimVector batch = broadcast_shapes(batch_shape(lu), batch_shape(rhs));
  Tensor x = autograd::without_grad([&] {
    Tensor lu_buf = column_major_copy(lu, batch, lu.dtype());
    DimVector piv_shape(batch);
    piv_shape.push_back(n);
    Tensor piv = contiguous(reshape(contiguous(expand(pivots, piv_shape)), DimVector{batch_count(batch), n}));
    Tensor x = column_major_copy(rhs, batch, lu.dtype());
    if (x.numel() > 0 && n > 0) lapack_for(op, lu).lu_solve(lu_buf, piv, x, transpose);
    Tensor out = from_column_major(x, batch, n, rhs.size(-1));
    return left ? out : mH(out);
  });
  return autograd::should_record(lu, b) ? autograd::record_lu_solve(lu, pivots, b, left, adjoint, x) : x;
}

std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& a, const Tensor& b, bool left, bool check_errors) {
  profiler::RecordScope profile_scope("aten::linalg_solve_ex", a, b, left, check_errors);
  const char* op = "linalg.solve";
  check_square(op, a);
  check_float(op, a, "lu");
  check_same_dtype(op, a, b, "A", "B");
  check_same_device_linalg(op, a, b, "A", "B");
  // B is a vector (or a batch of them) when it has one dim less than A and A's leading shape (PyTorch's
  // rule).
  const bool vector_case =
      b.dim() == 1 ||
      (b.dim() == a.dim() - 1 && std::equal(b.sizes().begin(), b.sizes().end(), a.sizes().begin()));
  Tensor bm = vector_case ? unsqueeze(b, -1) : b;
  const int64_t n = a.size(-1);
  TANDEM_CHECK(bm.dim() >= 2 && (left ? bm.size(-2) : bm.size(-1)) == n, Runtime, op,
               ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B", " (", n, "x",
               n, " and ", bm.dim() >= 2 ? bm.size(-2) : bm.size(-1), "x", bm.dim() >= 2 ? bm.size(-1) : 1,
               ")", "\nhint: B must be (..., ", n, ", k) or a vector of size ", n);
  Tensor am = left ? a : mT(a);
  Tensor rhs = left ? bm : mT(bm);
  auto [x, info] = autograd::without_grad([&] { return solve_matrices(op, am, rhs); });
  if (autograd::should_record(am, rhs)) autograd::record_linalg_solve(am, rhs, x);
  if (!left) x = mT(x);
  if (vector_case) x = squeeze(x, DimVector{-1});
  if (check_errors) raise_singular_solve("torch.linalg.solve_ex", info, a.dim() > 2);
  return {x, info};
}

Tensor linalg_solve(const Tensor& a, const Tensor& b, bool left) {
  profiler::RecordScope profile_scope("aten::linalg_solve", a, b, left);
  auto [x, info] = linalg_solve_ex(a, b, left, false);
  raise_singular_solve("torch.linalg.solve", info, a.dim() > 2);
  return x;
}

std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& a, bool check_errors) {
  profiler::RecordScope profile_scope("aten::linalg_inv_ex", a, check_errors);
  const char* op = "linalg.inv";
  check_square(op, a);
  check_float(op, a);
  auto [x, info] = autograd::without_grad([&] { return invert_matrices(op, a); });
  if (autograd::should_record(a)) autograd::record_linalg_solve(a, identity(a.size(-1), a), x);
  if (check_errors) raise_singular_inverse("linalg.inv_ex", info, a.dim() > 2);
  return {x, info};
}

Tensor linalg_inv(const Tensor& a) {
  profiler::RecordScope profile_scope("aten::linalg_inv", a);
  auto [x, info] = linalg_inv_ex(a, false);
  raise_singular_inverse("linalg.inv", info, a.dim() > 2);
  return x;
}

namespace {
// (sign of the row permutation, diagonal of U) of the LU factors of a (square, batched).
std::tuple<Tensor, Tensor> lu_sign_and_diagonal(const char* op, const Tensor& a) {
  DimVector batch = batch_shape(a);
  const int64_t n = a.size(-1);
  LuBuffers lu = lu_buffers(op, a, batch);
  Tensor diag = diagonal_view(from_column_major(lu.lu, batch, n, n));
  Tensor expected = arange(Scalar(int64_t{1}), Scalar(n + 1), Scalar(int64_t{1}), DType::Int32, a.device());
  Tensor swaps = sum(ne(lu.pivots, expected), DimVector{-1});
  // (-1)^swaps = 1 - 2 (swaps mod 2)
  Tensor sign = sub(Scalar(1.0), mul(to_dtype(remainder(swaps, Scalar(int64_t{2})), a.dtype()), Scalar(2.0)));
  return {reshape(sign, batch), diag};
}
}  // namespace

Tensor linalg_det(const Tensor& a) {
  profiler::RecordScope profile_scope("aten::linalg_det", a);
  const char* op = "linalg.det";
  check_square(op, a);
  check_float(op, a, "lu");
  Tensor det = autograd::without_grad([&] {
    auto [sign, diag] = lu_sign_and_diagonal(op, a);
    return mul(to_dtype(sign, a.dtype()), prod(diag, -1));
  });
  return autograd::should_record(a) ? autograd::record_det(a, det) : det;
}

std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& a) {
  profiler::RecordScope profile_scope("aten::linalg_slogdet", a);
  const char* op = "linalg.slogdet";
  check_square(op, a);
  check_float(op, a);
  auto [sign_out, logabs] = autograd::without_grad([&] {
    auto [perm_sign, diag] = lu_sign_and_diagonal(op, a);
    // The sign is the product of the diagonal's phases z / |z| (its signs for real matrices), 0 if singular.
    return std::make_tuple(mul(to_dtype(perm_sign, a.dtype()), prod(sgn(diag), -1)),
                           sum(log(abs(diag)), DimVector{-1}));
  });
  if (autograd::should_record(a)) autograd::record_slogdet(a, sign_out, logabs);
  return {sign_out, logabs};
}

Tensor logdet(const Tensor& a) {
  profiler::RecordScope profile_scope("aten::logdet", a);
  check_square("logdet", a);
  check_float("logdet", a);
  auto [sign, logabs] = linalg_slogdet(a);
  // Complex: log(sign) + log|det| (the principal logarithm of det).
  if (is_complex(a.dtype())) return add(log(sign), logabs);
  // log of a negative determinant is nan, of zero -inf (PyTorch's rule).
  Tensor nan = full(DimVector{}, Scalar(std::numeric_limits<double>::quiet_NaN()), a.dtype(), a.device());
  return where(lt(sign, Scalar(0.0)), nan, logabs);
}

Tensor linalg_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left, bool unitriangular) {
  profiler::RecordScope profile_scope("aten::linalg_solve_triangular", a, b, upper, left, unitriangular);
  const char* op = "linalg.solve_triangular";
  check_square(op, a);
  check_matrix(op, b, "B");
  check_float(op, a, "triangular_solve", true);
  if (a.dtype() != b.dtype()) {  // PyTorch solves in A's dtype: B is converted to it, whichever is wider
    if (is_complex(b.dtype()) && !is_complex(a.dtype())) {
      warn("Casting complex values to real discards the imaginary part");
      return linalg_solve_triangular(a, to_dtype(real(b), a.dtype()), upper, left, unitriangular);
    }
    return linalg_solve_triangular(a, to_dtype(b, a.dtype()), upper, left, unitriangular);
  }
  check_same_device_linalg(op, a, b, "A", "B");
  const int64_t n = a.size(-1);
  TANDEM_CHECK((left ? b.size(-2) : b.size(-1)) == n, Runtime, op,
               ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B", " (", n, "x",
               n, " and ", b.size(-2), "x", b.size(-1), ")", "\nhint: B's ", left ? "rows" : "columns",
               " must match A's size");
  if (!left) return mT(linalg_solve_triangular(mT(a), mT(b), !upper, true, unitriangular));
  DimVector batch = broadcast_shapes(batch_shape(a), batch_shape(b));
  Tensor x = autograd::without_grad([&] {
    Tensor a_buf = column_major_copy(a, batch, a.dtype());
    Tensor x_buf = column_major_copy(b, batch, a.dtype());
    if (x_buf.numel() > 0 && n > 0)
      lapack_for(op, a).triangular_solve(a_buf, x_buf, upper, false, unitriangular);
    return from_column_major(x_buf, batch, n, b.size(-1));
  });
  return autograd::should_record(a, b) ? autograd::record_solve_triangular(a, b, upper, unitriangular, x) : x;
}

Tensor cholesky_solve(const Tensor& b, const Tensor& factor, bool upper) {
  profiler::RecordScope profile_scope("aten::cholesky_solve", b, factor, upper);
  const char* op = "cholesky_solve";
  // PyTorch's checks, in its order and words.
  TANDEM_CHECK(b.dim() >= 2, Runtime, "b should have at least 2 dimensions, but has ", b.dim(),
               " dimensions instead", "\nhint: B is (..., n, k); unsqueeze a vector with B.unsqueeze(-1)");
  TANDEM_CHECK(factor.dim() >= 2, Runtime, "u should have at least 2 dimensions, but has ", factor.dim(),
               " dimensions instead", "\nhint: pass the Cholesky factor (..., n, n)");
  TANDEM_CHECK(b.dtype() == factor.dtype(), Runtime,
               "Expected b and A to have the same dtype, but found b of type ", dtype_title(b.dtype()),
               " and A of type ", dtype_title(factor.dtype()), " instead.",
               "\nhint: convert one of them, e.g. B.to(L.dtype)");
  check_lapack_dtype("cholesky_solve", factor);
  TANDEM_CHECK(factor.size(-1) == factor.size(-2), Runtime,
               "A must be batches of square matrices, but they are ", factor.size(-2), " by ",
               factor.size(-1), " matrices", "\nhint: the last two dims are the matrix; got shape ",
               factor.shape_str());
  const int64_t n = factor.size(-1);
  TANDEM_CHECK(b.size(-2) == n, Runtime, "Incompatible matrix sizes for cholesky_solve: each A matrix is ", n,
               " by ", n, " but each b matrix is ", b.size(-2), " by ", b.size(-1),
               "\nhint: B's rows must match the factor's size");
  DimVector batch = broadcast_shapes(batch_shape(factor), batch_shape(b));
  Tensor x = autograd::without_grad([&] {
    Tensor f_buf = column_major_copy(factor, batch, factor.dtype());
    Tensor x_buf = column_major_copy(b, batch, factor.dtype());
    if (x_buf.numel() > 0 && n > 0) lapack_for(op, factor).cholesky_solve(f_buf, x_buf, upper);
    return from_column_major(x_buf, batch, n, b.size(-1));
  });
  return autograd::should_record(b, factor) ? autograd::record_cholesky_solve(b, factor, upper, x) : x;
}

Tensor cholesky_inverse(const Tensor& factor, bool upper) {
  profiler::RecordScope profile_scope("aten::cholesky_inverse", factor, upper);
  check_square("cholesky_inverse", factor, "A");
  check_lapack_dtype("cholesky_inverse_out", factor);
  return cholesky_solve(identity(factor.size(-1), factor), factor, upper);
}

}  // namespace tandem
