// tandem.linalg's symmetric and orthogonal factorizations: cholesky, qr, eigh/eigvalsh, svd/svdvals
// (ops/linalg_decomp.h).
#include "ops/linalg_decomp.h"

#include <algorithm>

#include "autograd/formula_node.h"
#include "autograd/formulas_linalg_decomp.h"
#include "core/error.h"
#include "core/profiler.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factories.h"
#include "ops/linalg_lapack_call.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace tandem {

using namespace linalg_detail;

namespace {
// Cholesky's error for a matrix that is not positive-definite, naming the function the user called.
void raise_not_positive_definite(const char* name, const Tensor& info, bool batched) {
  std::vector<int> codes = read_info(info);
  for (size_t i = 0; i < codes.size(); ++i)
    if (codes[i] > 0)
      throw_linalg_error(
          std::string(name) + ": " + batch_prefix(i, batched) +
          "The factorization could not be completed because the input is not positive-definite "
          "(the leading minor of order " +
          std::to_string(codes[i]) + " is not positive-definite).");
}
}  // namespace

std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& a, bool upper, bool check_errors) {
  profiler::RecordScope profile_scope("aten::linalg_cholesky_ex", a, upper, check_errors);
  const char* op = "linalg.cholesky";
  check_square(op, a);
  check_float(op, a, "cholesky");
  DimVector batch = batch_shape(a);
  const int64_t n = a.size(-1);
  auto [factor, info] = autograd::without_grad([&] {
    const LapackKernels& k = lapack_for(op, a);
    // No transposes in or out: the row-major buffer read as column-major is A^T = conj(A) (A is Hermitian),
    // and the other triangle's factor U of that, U^H U = conj(A), read back row-major is U^T = L with L L^H =
    // A (and the other way round for upper). It reads the same entries in the same order as the lower factor
    // of a column-major copy would, so the factor and `info` are the same.
    Tensor rows = empty(a.sizes(), a.dtype(), a.device());
    copy_(rows, a);
    Tensor info = full(DimVector{batch_count(batch)}, Scalar(int64_t{0}), DType::Int32, a.device());
    if (rows.numel() > 0) k.cholesky(reshape(rows, DimVector{batch_count(batch), n, n}), !upper, info);
    return std::make_tuple(triangle(rows, upper), reshape(info, batch));
  });
  if (autograd::should_record(a)) autograd::record_cholesky(a, upper, factor);
  if (check_errors) raise_not_positive_definite("linalg.cholesky_ex", info, !batch.empty());
  return {factor, info};
}

Tensor linalg_cholesky(const Tensor& a, bool upper) {
  profiler::RecordScope profile_scope("aten::linalg_cholesky", a, upper);
  auto [factor, info] = linalg_cholesky_ex(a, upper, false);
  raise_not_positive_definite("linalg.cholesky", info, a.dim() > 2);
  return factor;
}

std::tuple<Tensor, Tensor> linalg_qr(const Tensor& a, const std::string& mode) {
  profiler::RecordScope profile_scope("aten::linalg_qr", a, mode);
  const char* op = "linalg.qr";
  TANDEM_CHECK(mode == "reduced" || mode == "complete" || mode == "r", Runtime,
               "qr received unrecognized mode '", mode,
               "' but expected one of 'reduced' (default), 'r', or 'complete'",
               "\nhint: pass mode='reduced', 'complete' or 'r'");
  check_matrix(op, a);
  check_float(op, a, "geqrf");
  DimVector batch = batch_shape(a);
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n), count = batch_count(batch);
  const bool complete = mode == "complete";
  const int64_t q_cols = complete ? m : k, r_rows = complete ? m : k;
  auto [q, r] = autograd::without_grad([&] {
    const LapackKernels& kern = lapack_for(op, a);
    Tensor buf = column_major_copy(a, batch, a.dtype());
    Tensor tau = empty(DimVector{count, k}, a.dtype(), a.device());
    if (buf.numel() > 0) kern.qr_factor(buf, tau);
    Tensor r = narrow(triangle(from_column_major(buf, batch, m, n), true), -2, 0, r_rows);
    if (mode == "r") return std::make_tuple(empty(DimVector{0}, a.dtype(), a.device()), contiguous(r));
    // Q's column-major buffer starts as the Householder vectors (first min(m, n) columns) and orgqr expands
    // it.
    Tensor q_buf = full(DimVector{count, q_cols, m}, Scalar(0.0), a.dtype(), a.device());
    copy_(narrow(q_buf, 1, 0, std::min(n, q_cols)), narrow(buf, 1, 0, std::min(n, q_cols)));
    if (q_buf.numel() > 0) kern.qr_q(q_buf, tau);
    return std::make_tuple(from_column_major(q_buf, batch, m, q_cols), contiguous(r));
  });
  // As in PyTorch, mode='r' and a complete QR of a tall matrix are recorded and raise in backward.
  if (autograd::should_record(a)) autograd::record_qr(a, q, r, mode);
  return {q, r};
}

namespace {
// PyTorch's error for the first matrix whose eigen-decomposition did not converge (LAPACK info > 0).
void check_eigen_converged(const char* op, const Tensor& info, bool batched) {
  std::vector<int> codes = read_info(info);
  for (size_t i = 0; i < codes.size(); ++i)
    if (codes[i] != 0)
      throw_linalg_error(
          std::string(op) + ": " + batch_prefix(i, batched) +
          "The algorithm failed to converge because the input matrix is ill-conditioned or has "
          "too many repeated eigenvalues (error code: " +
          std::to_string(codes[i]) + ").");
}

std::tuple<Tensor, Tensor> eigh_impl(const char* op, const Tensor& a, const std::string& uplo, bool vectors) {
  TANDEM_CHECK(uplo == "L" || uplo == "U" || uplo == "l" || uplo == "u", Runtime,
               "Expected UPLO argument to be 'L' or 'U', but got ", uplo,
               "\nhint: pass UPLO='L' or UPLO='U'");
  check_square(op, a);
  check_float(op, a, "linalg_eigh", true);
  DimVector batch = batch_shape(a);
  const int64_t n = a.size(-1), count = batch_count(batch);
  // Vectors are computed whenever a gradient will be needed (eigvalsh's backward uses them).
  const bool need_vectors = vectors || autograd::should_record(a);
  auto [w, v] = autograd::without_grad([&] {
    const LapackKernels& k = lapack_for(op, a);
    Tensor buf = column_major_copy(a, batch, a.dtype());
    Tensor w = empty(DimVector{count, n}, complex_value_dtype(a.dtype()), a.device());
    Tensor info = full(DimVector{count}, Scalar(int64_t{0}), DType::Int32, a.device());
    if (buf.numel() > 0) k.eigh(buf, w, need_vectors, uplo == "U" || uplo == "u", info);
    check_eigen_converged(op, info, !batch.empty());
    return std::make_tuple(reshape(w, with_last(batch, n)),
                           need_vectors ? from_column_major(buf, batch, n, n) : Tensor());
  });
  if (autograd::should_record(a)) autograd::record_eigh(a, w, v, vectors);
  return {w, vectors ? v : Tensor()};
}

// True when any entry of a is NaN or infinite (only asked after LAPACK reported a failure).
bool has_non_finite(const Tensor& a) { return !item(all(isfinite(a))).to_bool(); }

std::tuple<Tensor, Tensor, Tensor> svd_impl(const char* op, const Tensor& a, bool full_matrices,
                                            bool vectors) {
  check_matrix(op, a);
  check_float(op, a, "linalg_svd");
  const int64_t m = a.size(-2), n = a.size(-1);
  // The kernels take tall matrices: a wide A is the adjoint of the tall A^H = U' S Vh', A = Vh'^H S U'^H.
  if (m < n) {
    auto [u, s, vh] = svd_impl(op, mH(a), full_matrices, vectors);
    return {vectors ? mH(vh) : Tensor(), s, vectors ? mH(u) : Tensor()};
  }
  DimVector batch = batch_shape(a);
  const int64_t count = batch_count(batch);
  const bool need_vectors = vectors || autograd::should_record(a);
  const int64_t u_cols = full_matrices && vectors ? m : n;
  auto [u, s, vh] = autograd::without_grad([&] {
    const LapackKernels& k = lapack_for(op, a);
    Tensor buf = column_major_copy(a, batch, a.dtype());
    Tensor s = empty(DimVector{count, n}, complex_value_dtype(a.dtype()), a.device());
    Tensor u = need_vectors ? empty(DimVector{count, u_cols, m}, a.dtype(), a.device()) : Tensor();
    Tensor vt = need_vectors ? empty(DimVector{count, n, n}, a.dtype(), a.device()) : Tensor();
    Tensor info = full(DimVector{count}, Scalar(int64_t{0}), DType::Int32, a.device());
    if (buf.numel() > 0) {
      k.svd(buf, s, u, vt, info);
    } else if (need_vectors) {
      // An empty matrix (m or n is 0): LAPACK is not called, and the singular vectors that exist anyway (U of
      // a 3x0 matrix with full_matrices) are the identity, as PyTorch returns them; empty() left them unset.
      u = contiguous(expand(eye(u_cols, m, a.dtype(), a.device()), DimVector{count, u_cols, m}));
      vt = contiguous(expand(eye(n, n, a.dtype(), a.device()), DimVector{count, n, n}));
    }
    std::vector<int> codes = read_info(info);
    for (size_t i = 0; i < codes.size(); ++i) {
      if (codes[i] == 0) continue;
      const std::string prefix = std::string(op) + ": " + batch_prefix(i, !batch.empty());
      if (has_non_finite(a))
        throw_linalg_error(prefix +
                           "The algorithm failed to converge because the input matrix contained "
                           "non-finite values.");
      throw_linalg_error(prefix +
                         "The algorithm failed to converge because the input matrix is ill-conditioned "
                         "or has too many repeated singular values (error code: " +
                         std::to_string(codes[i]) + ").");
    }
    return std::make_tuple(need_vectors ? from_column_major(u, batch, m, u_cols) : Tensor(),
                           reshape(s, with_last(batch, n)),
                           need_vectors ? from_column_major(vt, batch, n, n) : Tensor());
  });
  if (autograd::should_record(a)) autograd::record_svd(a, u, s, vh, vectors);
  return {vectors ? u : Tensor(), s, vectors ? vh : Tensor()};
}
}  // namespace

namespace {
// eig/eigvals: the kernel runs where the device's table has one, else on the CPU (cuSOLVER has no geev for
// the CUDA versions tandem supports; PyTorch also computes eig on the host there).
std::tuple<Tensor, Tensor> eig_impl(const char* op, const Tensor& a, bool vectors) {
  check_square(op, a);
  // PyTorch's errors: eig looks up the complex dtype of its input first, then the kernel for it.
  const DType d = a.dtype();
  TANDEM_CHECK(is_floating(d) || is_complex(d), Runtime, "Unknown Complex ScalarType for ", dtype_title(d),
               "\nhint: convert the input with .double() (or .float()) first");
  TANDEM_CHECK(d != DType::Float16 && d != DType::BFloat16, NotImplemented,
               "\"linalg_eig_out_cpu\" not implemented for '", dtype_title(d), "'",
               "\nhint: convert the input with .float() or .double() first");
  check_float(op, a);
  DimVector batch = batch_shape(a);
  const int64_t n = a.size(-1), count = batch_count(batch);
  const bool need_vectors = vectors || autograd::should_record(a);
  const DType out_dtype = complex_dtype_for(a.dtype());
  auto [w, v] = autograd::without_grad([&] {
    const LapackKernels& device_k = lapack_for(op, a);
    const bool on_host = !device_k.eig;
    const LapackKernels& k = on_host ? lapack_kernels(DeviceType::CPU) : device_k;
    Tensor src = on_host ? to_device(a, Device(), std::nullopt, false) : a;
    TANDEM_CHECK(k.eig, Runtime, op, ": tandem was built without LAPACK for the CPU",
                 "\nhint: rebuild tandem with OpenBLAS's LAPACK (libopenblas-dev)");
    // eig refuses non-finite input (PyTorch's check); eigvals lets LAPACK return NaN eigenvalues for it.
    if (vectors && src.numel() > 0)
      TANDEM_CHECK(item(all(isfinite(src))).to_bool(), Runtime,
                   "torch.linalg.eig: input tensor should not contain infs or NaNs.",
                   "\nhint: check A for inf/nan entries, e.g. A.isfinite().all()");
    Tensor buf = column_major_copy(src, batch, a.dtype());
    Tensor w = empty(DimVector{count, n}, out_dtype, src.device());
    Tensor v = need_vectors ? empty(DimVector{count, n, n}, out_dtype, src.device()) : Tensor();
    Tensor info = full(DimVector{count}, Scalar(int64_t{0}), DType::Int32, src.device());
    if (buf.numel() > 0) k.eig(buf, w, v, info);
    check_eigen_converged(op, info, !batch.empty());
    Tensor values = reshape(w, with_last(batch, n));
    Tensor vecs = need_vectors ? from_column_major(v, batch, n, n) : Tensor();
    if (on_host) {
      values = to_device(values, a.device(), std::nullopt, false);
      if (need_vectors) vecs = to_device(vecs, a.device(), std::nullopt, false);
    }
    return std::make_tuple(values, vecs);
  });
  if (autograd::should_record(a)) autograd::record_eig(a, w, v, vectors);
  return {w, vectors ? v : Tensor()};
}
}  // namespace

std::tuple<Tensor, Tensor> linalg_eig(const Tensor& a) {
  profiler::RecordScope profile_scope("aten::linalg_eig", a);
  return eig_impl("linalg.eig", a, true);
}
Tensor linalg_eigvals(const Tensor& a) {
  profiler::RecordScope profile_scope("aten::linalg_eigvals", a);
  return std::get<0>(eig_impl("linalg.eigvals", a, false));
}

std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& a, const std::string& uplo) {
  profiler::RecordScope profile_scope("aten::linalg_eigh", a, uplo);
  return eigh_impl("linalg.eigh", a, uplo, true);
}
Tensor linalg_eigvalsh(const Tensor& a, const std::string& uplo) {
  profiler::RecordScope profile_scope("aten::linalg_eigvalsh", a, uplo);
  // PyTorch's eigvalsh runs eigh's checks, so its messages name linalg.eigh.
  return std::get<0>(eigh_impl("linalg.eigh", a, uplo, false));
}
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& a, bool full_matrices) {
  profiler::RecordScope profile_scope("aten::linalg_svd", a, full_matrices);
  return svd_impl("linalg.svd", a, full_matrices, true);
}
Tensor linalg_svdvals(const Tensor& a) {
  profiler::RecordScope profile_scope("aten::linalg_svdvals", a);
  return std::get<1>(svd_impl("linalg.svd", a, false, false));
}

}  // namespace tandem
