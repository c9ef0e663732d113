// float32/float64 and complex64/complex128 matrix products through OpenBLAS, and the larger float32 ones
// through oneDNN's sgemm where the build found oneDNN. Strided operands go to BLAS as they are, a transposed
// view as CblasTrans; only a matrix with neither stride 1 is copied first.
#include <cblas.h>
#include <omp.h>
#if defined(TANDEM_HAS_ONEDNN)
#include <oneapi/dnnl/dnnl.h>
#endif

#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

#include "core/long_work.h"
#include "core/parallel.h"
#include "kernels/blas_threads.h"
#include "kernels/cpu/gemm_batch.h"
#include "kernels/cpu/isa_region.h"

TANDEM_CPU_KERNELS_BEGIN

namespace {

// OpenBLAS's thread count is shared with the LAPACK kernels (kernels/blas_threads.h).
void sync_blas_threads() { blas_threads::follow_tandem(); }
void single_blas_thread() { blas_threads::single(); }

// A batch of small products (below 2**22 multiply-adds each, ~0.1 ms on one core) runs one product per
// thread, each BLAS call on one thread. OpenBLAS's own threads would meet once per product, and after each
// call they spin-wait a while for more work on the cores that tandem's next parallel region needs:
// convolutions issue one product per batch element between im2col/col2im regions, and at 2 threads on a
// loaded machine that ran Conv1d slower than on 1 thread. Larger products keep OpenBLAS's threads (SDPA's
// 256 x 256 x 64 heads, exactly 2**22, among them: not measured either way yet).
constexpr int64_t kSmallBatchedGemm = int64_t{1} << 22;

// How a rows x cols matrix with element strides (rs, cs) is handed to row-major BLAS: as it is (ld = rs),
// transposed (ld = cs), or not at all. A stride along a size-1 dim never matters.
struct BlasView {
  bool usable;
  CBLAS_TRANSPOSE trans;
  int ld;
};
BlasView blas_view(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  const int64_t min_row_ld = std::max<int64_t>(1, cols), min_col_ld = std::max<int64_t>(1, rows);
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= min_row_ld) && rs <= INT_MAX)
    return {true, CblasNoTrans, static_cast<int>(rows == 1 ? min_row_ld : rs)};
  if ((rs == 1 || rows == 1) && (cols == 1 || cs >= min_col_ld) && cs <= INT_MAX)
    return {true, CblasTrans, static_cast<int>(cols == 1 ? min_col_ld : cs)};
  return {false, CblasNoTrans, 0};
}

// A strided matrix that BLAS can read: the original memory, or a row-major copy of it.
template <typename T>
struct BlasMatrix {
  const T* data;
  BlasView view;
  std::vector<T> copy;
  BlasMatrix(const T* p, int64_t rows, int64_t cols, int64_t rs, int64_t cs)
      : data(p), view(blas_view(rows, cols, rs, cs)) {
    if (view.usable) return;
    copy.resize(static_cast<size_t>(rows * cols));
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) copy[i * cols + j] = p[i * rs + j * cs];
    data = copy.data();
    view = {true, CblasNoTrans, static_cast<int>(std::max<int64_t>(1, cols))};
  }
};

// Products of a million multiply-adds or more (and matrix-vector products of a million elements) run in a
// LongWorkRegion (other Python threads run meanwhile).
constexpr int64_t kLongGemm = int64_t{1} << 20;

#if defined(TANDEM_HAS_ONEDNN)
// float32 products of 2**20 multiply-adds or more go to oneDNN's sgemm (JIT-compiled for the CPU it runs on,
// as MKL's): on the shapes of convolutions, LSTM gates, attention heads and Linear layers it ran 1.1-1.7x
// faster than OpenBLAS 0.3.21 (docs/core.md, "Matrix products"). Below that its dispatch costs more than it
// saves (64 x 64 x 64 ran at 0.9x OpenBLAS's speed, 64 x 128 x 128 at 1.3x), and k = 0 never gets here
// (oneDNN leaves C as it is where BLAS scales it by beta). oneDNN's threads are OpenMP's, tandem's own pool:
// they follow tandem's count (the calling thread's OpenMP setting is made to match), and inside one of
// tandem's parallel regions oneDNN runs on the calling thread alone.
constexpr int64_t kOneDnnGemm = int64_t{1} << 20;

// Whether oneDNN ran the product. It does not throw: products run inside tandem's parallel regions (a batch of
// products, a convolution per batch element), where an exception would end the process. A failure (its
// workspace could not be allocated) leaves the product to OpenBLAS, which needs none.
bool onednn_sgemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha, const float* a,
                  int lda, const float* b, int ldb, float beta, float* c, int ldc) {
  const int threads = omp_in_parallel() ? 1 : get_num_threads();
  if (omp_get_max_threads() != threads) omp_set_num_threads(threads);
  return dnnl_sgemm(ta == CblasTrans ? 'T' : 'N', tb == CblasTrans ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb,
                    beta, c, ldc) == dnnl_success;
}
#endif

template <typename T>
void blas_gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, T alpha, const T* a, int lda,
               const T* b, int ldb, T beta, T* c, int ldc) {
  std::optional<LongWorkRegion> region;
  const int64_t size = int64_t{m} * n * k;
  if (size >= kLongGemm) region.emplace();
  if constexpr (std::is_same_v<T, float>) {
#if defined(TANDEM_HAS_ONEDNN)
    if (size >= kOneDnnGemm && onednn_sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)) return;
#endif
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  } else {
    cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
}
template <typename T>
void blas_gemv(CBLAS_TRANSPOSE t, int rows, int cols, T alpha, const T* a, int lda, const T* x, int incx,
               T beta, T* y, int incy) {
  std::optional<LongWorkRegion> region;
  if (int64_t{rows} * cols >= kLongGemm) region.emplace();
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemv(CblasRowMajor, t, rows, cols, alpha, a, lda, x, incx, beta, y, incy);
  else
    cblas_dgemv(CblasRowMajor, t, rows, cols, alpha, a, lda, x, incx, beta, y, incy);
}
template <typename T>
T blas_dot(int n, const T* x, int incx, const T* y, int incy) {
  if constexpr (std::is_same_v<T, float>)
    return cblas_sdot(n, x, incx, y, incy);
  else
    return cblas_ddot(n, x, incx, y, incy);
}

// y (rows, stride incy) = alpha * M x + beta * y for M rows x cols with strides (rs, cs), x with stride incx.
template <typename T>
void matrix_vector(const T* mat, int64_t rows, int64_t cols, int64_t rs, int64_t cs, const T* x, int64_t incx,
                   T* y, int64_t incy, T alpha, T beta) {
  std::vector<T> x_copy;
  if (incx == 0 || incx > INT_MAX) {  // a broadcast vector (stride 0) is not valid BLAS input
    x_copy.assign(static_cast<size_t>(cols), T(0));
    for (int64_t j = 0; j < cols; ++j) x_copy[j] = x[j * incx];
    x = x_copy.data();
    incx = 1;
  }
  // beta == 0 must not read y, which may hold garbage (NaN); zero it first.
  if (beta == T(0))
    for (int64_t i = 0; i < rows; ++i) y[i * incy] = T(0);
  BlasMatrix<T> m(mat, rows, cols, rs, cs);
  const bool trans = m.view.trans == CblasTrans;
  // BLAS describes the stored matrix: transposed storage is cols x rows.
  blas_gemv<T>(m.view.trans, static_cast<int>(trans ? cols : rows), static_cast<int>(trans ? rows : cols),
               alpha, m.data, m.view.ld, x, static_cast<int>(incx), beta, y, static_cast<int>(incy));
}

template <typename T>
void gemm_one(const GemmArgs& g, const T* a, const T* b, T* out) {
  const T alpha = static_cast<T>(g.alpha), beta = static_cast<T>(g.beta);
  const int64_t ldc = g.m == 1 ? std::max<int64_t>(1, g.n) : g.out.row_stride;
  if (g.m == 1 && g.n == 1) {
    T acc = g.k == 1 ? a[0] * b[0] : T(0);
    if (g.k > 1) {
      std::vector<T> xa, xb;  // dot needs nonzero strides
      auto dense = [&](const T* p, int64_t inc, std::vector<T>& buf) {
        if (inc != 0 && inc <= INT_MAX) return std::pair<const T*, int>(p, static_cast<int>(inc));
        buf.assign(static_cast<size_t>(g.k), p[0]);
        return std::pair<const T*, int>(buf.data(), 1);
      };
      auto [pa, ia] = dense(a, g.a.col_stride, xa);
      auto [pb, ib] = dense(b, g.b.row_stride, xb);
      acc = blas_dot<T>(static_cast<int>(g.k), pa, ia, pb, ib);
    }
    out[0] = alpha * acc + (beta == T(0) ? T(0) : beta * out[0]);
  } else if (g.n == 1) {
    matrix_vector<T>(a, g.m, g.k, g.a.row_stride, g.a.col_stride, b, g.b.row_stride, out, g.out.row_stride,
                     alpha, beta);
  } else if (g.m == 1) {
    // out row = a row @ B = B^T a: B^T is n x k with strides (cs, rs) of B.
    matrix_vector<T>(b, g.n, g.k, g.b.col_stride, g.b.row_stride, a, g.a.col_stride, out, 1, alpha, beta);
  } else {
    BlasMatrix<T> ma(a, g.m, g.k, g.a.row_stride, g.a.col_stride);
    BlasMatrix<T> mb(b, g.k, g.n, g.b.row_stride, g.b.col_stride);
    blas_gemm<T>(ma.view.trans, mb.view.trans, static_cast<int>(g.m), static_cast<int>(g.n),
                 static_cast<int>(g.k), alpha, ma.data, ma.view.ld, mb.data, mb.view.ld, beta, out,
                 static_cast<int>(ldc));
  }
}

// complex64/complex128 through cblas_cgemm/zgemm (alpha and beta by pointer). Every shape takes gemm: the
// vector forms (m or n of 1) pass the vector as a one-row or one-column matrix.
template <typename C>
void complex_gemm_one(const GemmArgs& g, const C* a, const C* b, C* out) {
  using V = typename C::value_type;
  const C alpha(static_cast<V>(g.alpha)), beta(static_cast<V>(g.beta));
  const int64_t ldc = g.m == 1 ? std::max<int64_t>(1, g.n) : g.out.row_stride;
  BlasMatrix<C> ma(a, g.m, g.k, g.a.row_stride, g.a.col_stride);
  BlasMatrix<C> mb(b, g.k, g.n, g.b.row_stride, g.b.col_stride);
  std::optional<LongWorkRegion> region;
  if (g.m * g.n * g.k >= kLongGemm / 4) region.emplace();  // a complex multiply-add is 4 real ones
  if constexpr (std::is_same_v<V, float>)
    cblas_cgemm(CblasRowMajor, ma.view.trans, mb.view.trans, static_cast<int>(g.m), static_cast<int>(g.n),
                static_cast<int>(g.k), &alpha, ma.data, ma.view.ld, mb.data, mb.view.ld, &beta, out,
                static_cast<int>(ldc));
  else
    cblas_zgemm(CblasRowMajor, ma.view.trans, mb.view.trans, static_cast<int>(g.m), static_cast<int>(g.n),
                static_cast<int>(g.k), &alpha, ma.data, ma.view.ld, mb.data, mb.view.ld, &beta, out,
                static_cast<int>(ldc));
}

}  // namespace

void gemm_blas_complex(const GemmArgs& g) {
  sync_blas_threads();
  dispatch_complex(g.dtype, [&](auto tag) {
    using C = typename decltype(tag)::type;
    for_each_batch<C>(g, [&](C* a, C* b, C* out) { complex_gemm_one<C>(g, a, b, out); });
  });
}

void gemm_blas(const GemmArgs& g) {
  // BLAS takes 32-bit sizes; anything larger takes the plain loop.
  if (g.m > INT_MAX || g.n > INT_MAX || g.k > INT_MAX || g.out.row_stride > INT_MAX) return gemm_loop(g);
  int64_t count = 1;
  for (int64_t s : g.batch_sizes) count *= s;
  if (count > 1 && get_num_threads() > 1 && g.m * g.n * g.k < kSmallBatchedGemm) {
    single_blas_thread();
    // Tasks of at least ~32k multiply-adds: below that a parallel region costs more than it saves.
    const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(1, g.m * g.n * g.k));
    parallel_for(0, count, grain, [&](int64_t begin, int64_t end) {
      if (g.dtype == DType::Float32)
        for_batch_range<float>(g, begin, end,
                               [&](float* a, float* b, float* out) { gemm_one<float>(g, a, b, out); });
      else
        for_batch_range<double>(g, begin, end,
                                [&](double* a, double* b, double* out) { gemm_one<double>(g, a, b, out); });
    });
    return;
  }
  sync_blas_threads();
  if (g.dtype == DType::Float32) {
    for_each_batch<float>(g, [&](float* a, float* b, float* out) { gemm_one<float>(g, a, b, out); });
  } else {
    for_each_batch<double>(g, [&](double* a, double* b, double* out) { gemm_one<double>(g, a, b, out); });
  }
}

TANDEM_CPU_KERNELS_END
