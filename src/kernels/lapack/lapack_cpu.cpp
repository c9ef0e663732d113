// The CPU's decomposition slots through LAPACK (OpenBLAS ships it, with the BLAS tandem already links). The
// Fortran entry points are declared here rather than taken from LAPACKE: LAPACKE is a separate -dev package,
// and its row-major convenience would only transpose what the front ends already laid out column-major.
// Character arguments carry gfortran's hidden length arguments (size_t, appended), as LAPACKE passes them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/complex.h"
#include "core/parallel.h"
#include "kernels/lapack/small_matrix.h"
#ifdef TANDEM_HAS_LAPACK
#include "kernels/blas_threads.h"
#endif
#include "kernels/lapack_kernels.h"

#ifdef TANDEM_HAS_LAPACK
using cf = tandem::complex<float>;
using zd = tandem::complex<double>;
extern "C" {
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda,
             const int* ipiv, float* b, const int* ldb, int* info, size_t);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, size_t);
void sgetri_(const int* n, float* a, const int* lda, const int* ipiv, float* work, const int* lwork,
             int* info);
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work, const int* lwork,
             int* info);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t);
void spotrs_(const char* uplo, const int* n, const int* nrhs, const float* a, const int* lda, float* b,
             const int* ldb, int* info, size_t);
void dpotrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda, double* b,
             const int* ldb, int* info, size_t);
void strsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
            const int* n, const float* alpha, const float* a, const int* lda, float* b, const int* ldb,
            size_t, size_t, size_t, size_t);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
            const int* n, const double* alpha, const double* a, const int* lda, double* b, const int* ldb,
            size_t, size_t, size_t, size_t);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
             int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau,
             float* work, const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau,
             double* work, const int* lwork, int* info);
void sormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, float* a,
             const int* lda, const float* tau, float* c, const int* ldc, float* work, const int* lwork,
             int* info, size_t, size_t);
void dormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, double* a,
             const int* lda, const double* tau, double* c, const int* ldc, double* work, const int* lwork,
             int* info, size_t, size_t);
void ssytrf_(const char* uplo, const int* n, float* a, const int* lda, int* ipiv, float* work,
             const int* lwork, int* info, size_t);
void dsytrf_(const char* uplo, const int* n, double* a, const int* lda, int* ipiv, double* work,
             const int* lwork, int* info, size_t);
void ssytrs_(const char* uplo, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info, size_t);
void dsytrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, size_t);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w,
             float* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
             double* work, const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u,
             const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info,
             size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork,
             int* info, size_t);
// The complex routines take LAPACK's COMPLEX / COMPLEX*16, laid out as tandem's complex<float> /
// complex<double> (real part first); cf = complex<float>, zd = complex<double>.
void cgetrf_(const int* m, const int* n, cf* a, const int* lda, int* ipiv, int* info);
void zgetrf_(const int* m, const int* n, zd* a, const int* lda, int* ipiv, int* info);
void cgetrs_(const char* trans, const int* n, const int* nrhs, const cf* a, const int* lda, const int* ipiv,
             cf* b, const int* ldb, int* info, size_t);
void zgetrs_(const char* trans, const int* n, const int* nrhs, const zd* a, const int* lda, const int* ipiv,
             zd* b, const int* ldb, int* info, size_t);
void cgetri_(const int* n, cf* a, const int* lda, const int* ipiv, cf* work, const int* lwork, int* info);
void zgetri_(const int* n, zd* a, const int* lda, const int* ipiv, zd* work, const int* lwork, int* info);
void cpotrf_(const char* uplo, const int* n, cf* a, const int* lda, int* info, size_t);
void zpotrf_(const char* uplo, const int* n, zd* a, const int* lda, int* info, size_t);
void cpotrs_(const char* uplo, const int* n, const int* nrhs, const cf* a, const int* lda, cf* b,
             const int* ldb, int* info, size_t);
void zpotrs_(const char* uplo, const int* n, const int* nrhs, const zd* a, const int* lda, zd* b,
             const int* ldb, int* info, size_t);
void ctrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
            const int* n, const cf* alpha, const cf* a, const int* lda, cf* b, const int* ldb, size_t, size_t,
            size_t, size_t);
void ztrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
            const int* n, const zd* alpha, const zd* a, const int* lda, zd* b, const int* ldb, size_t, size_t,
            size_t, size_t);
void cgeqrf_(const int* m, const int* n, cf* a, const int* lda, cf* tau, cf* work, const int* lwork,
             int* info);
void zgeqrf_(const int* m, const int* n, zd* a, const int* lda, zd* tau, zd* work, const int* lwork,
             int* info);
void cungqr_(const int* m, const int* n, const int* k, cf* a, const int* lda, const cf* tau, cf* work,
             const int* lwork, int* info);
void zungqr_(const int* m, const int* n, const int* k, zd* a, const int* lda, const zd* tau, zd* work,
             const int* lwork, int* info);
void cunmqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, cf* a,
             const int* lda, const cf* tau, cf* c, const int* ldc, cf* work, const int* lwork, int* info,
             size_t, size_t);
void zunmqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, zd* a,
             const int* lda, const zd* tau, zd* c, const int* ldc, zd* work, const int* lwork, int* info,
             size_t, size_t);
void csytrf_(const char* uplo, const int* n, cf* a, const int* lda, int* ipiv, cf* work, const int* lwork,
             int* info, size_t);
void zsytrf_(const char* uplo, const int* n, zd* a, const int* lda, int* ipiv, zd* work, const int* lwork,
             int* info, size_t);
void chetrf_(const char* uplo, const int* n, cf* a, const int* lda, int* ipiv, cf* work, const int* lwork,
             int* info, size_t);
void zhetrf_(const char* uplo, const int* n, zd* a, const int* lda, int* ipiv, zd* work, const int* lwork,
             int* info, size_t);
void csytrs_(const char* uplo, const int* n, const int* nrhs, const cf* a, const int* lda, const int* ipiv,
             cf* b, const int* ldb, int* info, size_t);
void zsytrs_(const char* uplo, const int* n, const int* nrhs, const zd* a, const int* lda, const int* ipiv,
             zd* b, const int* ldb, int* info, size_t);
void chetrs_(const char* uplo, const int* n, const int* nrhs, const cf* a, const int* lda, const int* ipiv,
             cf* b, const int* ldb, int* info, size_t);
void zhetrs_(const char* uplo, const int* n, const int* nrhs, const zd* a, const int* lda, const int* ipiv,
             zd* b, const int* ldb, int* info, size_t);
void cheevd_(const char* jobz, const char* uplo, const int* n, cf* a, const int* lda, float* w, cf* work,
             const int* lwork, float* rwork, const int* lrwork, int* iwork, const int* liwork, int* info,
             size_t, size_t);
void zheevd_(const char* jobz, const char* uplo, const int* n, zd* a, const int* lda, double* w, zd* work,
             const int* lwork, double* rwork, const int* lrwork, int* iwork, const int* liwork, int* info,
             size_t, size_t);
void cgesdd_(const char* jobz, const int* m, const int* n, cf* a, const int* lda, float* s, cf* u,
             const int* ldu, cf* vt, const int* ldvt, cf* work, const int* lwork, float* rwork, int* iwork,
             int* info, size_t);
void zgesdd_(const char* jobz, const int* m, const int* n, zd* a, const int* lda, double* s, zd* u,
             const int* ldu, zd* vt, const int* ldvt, zd* work, const int* lwork, double* rwork, int* iwork,
             int* info, size_t);
void sgeev_(const char* jobvl, const char* jobvr, const int* n, float* a, const int* lda, float* wr,
            float* wi, float* vl, const int* ldvl, float* vr, const int* ldvr, float* work, const int* lwork,
            int* info, size_t, size_t);
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda, double* wr,
            double* wi, double* vl, const int* ldvl, double* vr, const int* ldvr, double* work,
            const int* lwork, int* info, size_t, size_t);
void cgeev_(const char* jobvl, const char* jobvr, const int* n, cf* a, const int* lda, cf* w, cf* vl,
            const int* ldvl, cf* vr, const int* ldvr, cf* work, const int* lwork, float* rwork, int* info,
            size_t, size_t);
void zgeev_(const char* jobvl, const char* jobvr, const int* n, zd* a, const int* lda, zd* w, zd* vl,
            const int* ldvl, zd* vr, const int* ldvr, zd* work, const int* lwork, double* rwork, int* info,
            size_t, size_t);
}
#endif

namespace tandem {

#ifdef TANDEM_HAS_LAPACK
namespace {

// One overload per precision and domain, so each kernel below is written once as a template. The complex
// routines are LAPACK's c/z names (ungqr for orgqr, heevd for syevd, with their real rwork arrays).
#define TANDEM_LAPACK_4(macro) macro(float, s) macro(double, d) macro(cf, c) macro(zd, z)

#define TANDEM_GETRF(T, p) \
  void getrf(int m, int n, T* a, int* ipiv, int* info) { p##getrf_(&m, &n, a, &m, ipiv, info); }
#define TANDEM_GETRS(T, p)                                                        \
  void getrs(char t, int n, int k, const T* a, const int* piv, T* b, int* info) { \
    p##getrs_(&t, &n, &k, a, &n, piv, b, &n, info, 1);                            \
  }
#define TANDEM_GETRI(T, p)                                                  \
  void getri(int n, T* a, const int* ipiv, T* work, int lwork, int* info) { \
    p##getri_(&n, a, &n, ipiv, work, &lwork, info);                         \
  }
#define TANDEM_POTRF(T, p) \
  void potrf(char uplo, int n, T* a, int* info) { p##potrf_(&uplo, &n, a, &n, info, 1); }
#define TANDEM_POTRS(T, p)                                           \
  void potrs(char uplo, int n, int k, const T* a, T* b, int* info) { \
    p##potrs_(&uplo, &n, &k, a, &n, b, &n, info, 1);                 \
  }
#define TANDEM_TRSM(T, p)                                                          \
  void trsm(char uplo, char trans, char diag, int n, int k, const T* a, T* b) {    \
    const char side = 'L';                                                         \
    const T one(1);                                                                \
    p##trsm_(&side, &uplo, &trans, &diag, &n, &k, &one, a, &n, b, &n, 1, 1, 1, 1); \
  }
#define TANDEM_GEQRF(T, p)                                                \
  void geqrf(int m, int n, T* a, T* tau, T* work, int lwork, int* info) { \
    p##geqrf_(&m, &n, a, &m, tau, work, &lwork, info);                    \
  }
TANDEM_LAPACK_4(TANDEM_GETRF)
TANDEM_LAPACK_4(TANDEM_GETRS)
TANDEM_LAPACK_4(TANDEM_GETRI)
TANDEM_LAPACK_4(TANDEM_POTRF)
TANDEM_LAPACK_4(TANDEM_POTRS)
TANDEM_LAPACK_4(TANDEM_TRSM)
TANDEM_LAPACK_4(TANDEM_GEQRF)
#undef TANDEM_GETRF
#undef TANDEM_GETRS
#undef TANDEM_GETRI
#undef TANDEM_POTRF
#undef TANDEM_POTRS
#undef TANDEM_TRSM
#undef TANDEM_GEQRF
#undef TANDEM_LAPACK_4

void orgqr(int m, int n, int k, float* a, const float* tau, float* work, int lwork, int* info) {
  sorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
void orgqr(int m, int n, int k, double* a, const double* tau, double* work, int lwork, int* info) {
  dorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
void orgqr(int m, int n, int k, cf* a, const cf* tau, cf* work, int lwork, int* info) {
  cungqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
void orgqr(int m, int n, int k, zd* a, const zd* tau, zd* work, int lwork, int* info) {
  zungqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
// ormqr / unmqr: 'T' is the real routines' transpose, 'C' the complex ones' conjugate transpose.
void ormqr(char side, bool transpose, int m, int n, int k, float* a, int lda, const float* tau, float* c,
           float* work, int lwork, int* info) {
  const char trans = transpose ? 'T' : 'N';
  sormqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &m, work, &lwork, info, 1, 1);
}
void ormqr(char side, bool transpose, int m, int n, int k, double* a, int lda, const double* tau, double* c,
           double* work, int lwork, int* info) {
  const char trans = transpose ? 'T' : 'N';
  dormqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &m, work, &lwork, info, 1, 1);
}
void ormqr(char side, bool transpose, int m, int n, int k, cf* a, int lda, const cf* tau, cf* c, cf* work,
           int lwork, int* info) {
  const char trans = transpose ? 'C' : 'N';
  cunmqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &m, work, &lwork, info, 1, 1);
}
void ormqr(char side, bool transpose, int m, int n, int k, zd* a, int lda, const zd* tau, zd* c, zd* work,
           int lwork, int* info) {
  const char trans = transpose ? 'C' : 'N';
  zunmqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &m, work, &lwork, info, 1, 1);
}
// sytrf / sytrs on the lower triangle; `hermitian` picks hetrf / hetrs for complex matrices (a real symmetric
// matrix is Hermitian, so the real routines ignore it).
void sytrf(bool, int n, float* a, int* ipiv, float* work, int lwork, int* info) {
  ssytrf_("L", &n, a, &n, ipiv, work, &lwork, info, 1);
}
void sytrf(bool, int n, double* a, int* ipiv, double* work, int lwork, int* info) {
  dsytrf_("L", &n, a, &n, ipiv, work, &lwork, info, 1);
}
void sytrf(bool hermitian, int n, cf* a, int* ipiv, cf* work, int lwork, int* info) {
  (hermitian ? chetrf_ : csytrf_)("L", &n, a, &n, ipiv, work, &lwork, info, 1);
}
void sytrf(bool hermitian, int n, zd* a, int* ipiv, zd* work, int lwork, int* info) {
  (hermitian ? zhetrf_ : zsytrf_)("L", &n, a, &n, ipiv, work, &lwork, info, 1);
}
void sytrs(bool, int n, int k, const float* a, const int* ipiv, float* b, int* info) {
  ssytrs_("L", &n, &k, a, &n, ipiv, b, &n, info, 1);
}
void sytrs(bool, int n, int k, const double* a, const int* ipiv, double* b, int* info) {
  dsytrs_("L", &n, &k, a, &n, ipiv, b, &n, info, 1);
}
void sytrs(bool hermitian, int n, int k, const cf* a, const int* ipiv, cf* b, int* info) {
  (hermitian ? chetrs_ : csytrs_)("L", &n, &k, a, &n, ipiv, b, &n, info, 1);
}
void sytrs(bool hermitian, int n, int k, const zd* a, const int* ipiv, zd* b, int* info) {
  (hermitian ? zhetrs_ : zsytrs_)("L", &n, &k, a, &n, ipiv, b, &n, info, 1);
}
// syevd / heevd; rwork is unused (and may be null) for the real routines.
void syevd(char jobz, char uplo, int n, float* a, float* w, float* work, int lwork, float*, int, int* iwork,
           int liwork, int* info) {
  ssyevd_(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
void syevd(char jobz, char uplo, int n, double* a, double* w, double* work, int lwork, double*, int,
           int* iwork, int liwork, int* info) {
  dsyevd_(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
void syevd(char jobz, char uplo, int n, cf* a, float* w, cf* work, int lwork, float* rwork, int lrwork,
           int* iwork, int liwork, int* info) {
  cheevd_(&jobz, &uplo, &n, a, &n, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info, 1, 1);
}
void syevd(char jobz, char uplo, int n, zd* a, double* w, zd* work, int lwork, double* rwork, int lrwork,
           int* iwork, int liwork, int* info) {
  zheevd_(&jobz, &uplo, &n, a, &n, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info, 1, 1);
}
void gesdd(char jobz, int m, int n, float* a, float* s, float* u, int ldu, float* vt, int ldvt, float* work,
           int lwork, float*, int* iwork, int* info) {
  sgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}
void gesdd(char jobz, int m, int n, double* a, double* s, double* u, int ldu, double* vt, int ldvt,
           double* work, int lwork, double*, int* iwork, int* info) {
  dgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}
void gesdd(char jobz, int m, int n, cf* a, float* s, cf* u, int ldu, cf* vt, int ldvt, cf* work, int lwork,
           float* rwork, int* iwork, int* info) {
  cgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, info, 1);
}
void gesdd(char jobz, int m, int n, zd* a, double* s, zd* u, int ldu, zd* vt, int ldvt, zd* work, int lwork,
           double* rwork, int* iwork, int* info) {
  zgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, info, 1);
}

// A workspace size LAPACK returned from a query (in the real part for the complex routines).
size_t work_size(float q) { return std::max<size_t>(1, static_cast<size_t>(q)); }
size_t work_size(double q) { return std::max<size_t>(1, static_cast<size_t>(q)); }
template <typename T>
size_t work_size(complex<T> q) {
  return work_size(q.re);
}

// fn(begin, end) over chunks of the batch (a kernel allocates its workspace once per chunk, not per matrix).
// Small matrices run on several threads, OpenBLAS on one thread in each (it does not thread them itself);
// large ones one after another, each on OpenBLAS's threads at tandem's count (a batch of small products
// before would have left them at one).
template <typename Fn>
void for_each_chunk(int64_t batch, int64_t n, const Fn& fn) {
  const int64_t flops = std::max<int64_t>(1, n * n * n);
  const bool small = n <= 128;
  if (small)
    blas_threads::single();
  else
    blas_threads::follow_tandem();
  const int64_t grain = small ? std::max<int64_t>(1, (int64_t{1} << 18) / flops) : batch + 1;
  parallel_for(0, batch, grain, fn);
}
// fn(b) for every matrix b of the batch.
template <typename Fn>
void for_each_matrix(int64_t batch, int64_t n, const Fn& fn) {
  for_each_chunk(batch, n, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) fn(b);
  });
}
bool small_order(int64_t n) { return n <= small_matrix::kMaxOrder; }

// The kernel for the tensor's dtype (float32, float64, complex64 or complex128: the front ends allow nothing
// else).
template <template <typename> class K, typename... Args>
void dispatch(DType dtype, Args&&... args) {
  switch (dtype) {
    case DType::Float64:
      return K<double>::run(args...);
    case DType::Complex64:
      return K<cf>::run(args...);
    case DType::Complex128:
      return K<zd>::run(args...);
    default:
      return K<float>::run(args...);
  }
}

int as_int(int64_t v) { return static_cast<int>(v); }
// Spare elements after a LAPACK workspace: OpenBLAS's vector kernels may read a little past a vector's end
// (column_major_copy in ops/linalg_lapack_call.cpp pads the matrices for the same reason).
constexpr size_t kVectorOverread = 16;

template <typename T>
struct LuFactor {
  static void run(const Tensor& a, const Tensor& pivots, const Tensor& info) {
    const int64_t batch = a.size(0), n = a.size(1), m = a.size(2), k = pivots.size(1);
    const bool small = small_order(std::max(m, n));
    for_each_matrix(batch, std::max(m, n), [&](int64_t b) {
      T* ap = a.data<T>() + b * m * n;
      if (small)
        small_matrix::getrf(m, n, ap, pivots.data<int>() + b * k, info.data<int>() + b);
      else
        getrf(as_int(m), as_int(n), ap, pivots.data<int>() + b * k, info.data<int>() + b);
    });
  }
};
// Right-hand sides per call: OpenBLAS sends several small ones through its threaded trsm, whose start-up
// costs several times the solve itself (1000 8x8 inverses: 20 ms against 5 ms column by column).
int64_t rhs_per_call(int64_t n, int64_t k) { return n <= 64 ? 1 : k; }

// 'C' is the conjugate transpose for the complex routines and the transpose for the real ones.
template <typename T>
struct LuSolve {
  static void run(const Tensor& lu, const Tensor& pivots, const Tensor& rhs, bool transpose) {
    const int64_t batch = lu.size(0), n = lu.size(1), k = rhs.size(1), step = rhs_per_call(n, k);
    for_each_matrix(batch, n, [&](int64_t b) {
      if (small_order(n))
        return small_matrix::getrs(transpose, n, k, lu.data<T>() + b * n * n, pivots.data<int>() + b * n,
                                   rhs.data<T>() + b * n * k);
      int info = 0;
      for (int64_t c = 0; c < k; c += step)
        getrs(transpose ? 'C' : 'N', as_int(n), as_int(std::min(step, k - c)), lu.data<T>() + b * n * n,
              pivots.data<int>() + b * n, rhs.data<T>() + b * n * k + c * n, &info);
    });
  }
};
// The inverse from the LU factors in place: getri takes about 3/4 of the flops of getrs on the identity's n
// columns (512x512 float64 through OpenBLAS: 6.4 ms against 8.0 ms on 2 threads, 9.2 against 13.4 on one).
// Small orders, and singular matrices (getri would stop and leave the factors), solve on the identity.
template <typename T>
struct LuInverse {
  static void run(const Tensor& lu, const Tensor& pivots, const Tensor& info) {
    const int64_t batch = lu.size(0), n = lu.size(1);
    std::vector<T> work;
    if (!small_order(n)) {
      T query{};
      int status = 0;
      getri(as_int(n), nullptr, nullptr, &query, -1, &status);
      work.resize(work_size(query));
    }
    for_each_matrix(batch, n, [&](int64_t b) {
      T* a = lu.data<T>() + b * n * n;
      const int* piv = pivots.data<int>() + b * n;
      int status = 0;
      if (!small_order(n) && info.data<int>()[b] == 0) {
        if (batch == 1) return getri(as_int(n), a, piv, work.data(), as_int(work.size()), &status);
        std::vector<T> own(work.size());  // matrices of a batch run on several threads
        return getri(as_int(n), a, piv, own.data(), as_int(own.size()), &status);
      }
      auto solve_identity = [&](T* x) {
        std::fill(x, x + n * n, T(0));
        for (int64_t i = 0; i < n; ++i) x[i * n + i] = T(1);
        if (small_order(n))
          small_matrix::getrs(false, n, n, a, piv, x);
        else
          getrs('N', as_int(n), as_int(n), a, piv, x, &status);
        std::copy(x, x + n * n, a);
      };
      if (small_order(n)) {
        T x[small_matrix::kMaxOrder * small_matrix::kMaxOrder];
        return solve_identity(x);
      }
      std::vector<T> x(n * n);
      solve_identity(x.data());
    });
  }
};
template <typename T>
struct Cholesky {
  static void run(const Tensor& a, bool upper, const Tensor& info) {
    const int64_t batch = a.size(0), n = a.size(1);
    for_each_matrix(batch, n, [&](int64_t b) {
      if (small_order(n))
        small_matrix::potrf(upper, n, a.data<T>() + b * n * n, info.data<int>() + b);
      else
        potrf(upper ? 'U' : 'L', as_int(n), a.data<T>() + b * n * n, info.data<int>() + b);
    });
  }
};
template <typename T>
struct CholeskySolve {
  static void run(const Tensor& f, const Tensor& rhs, bool upper) {
    const int64_t batch = f.size(0), n = f.size(1), k = rhs.size(1), step = rhs_per_call(n, k);
    for_each_matrix(batch, n, [&](int64_t b) {
      if (small_order(n))
        return small_matrix::potrs(upper, n, k, f.data<T>() + b * n * n, rhs.data<T>() + b * n * k);
      int info = 0;
      for (int64_t c = 0; c < k; c += step)
        potrs(upper ? 'U' : 'L', as_int(n), as_int(std::min(step, k - c)), f.data<T>() + b * n * n,
              rhs.data<T>() + b * n * k + c * n, &info);
    });
  }
};
template <typename T>
struct TriangularSolve {
  static void run(const Tensor& a, const Tensor& rhs, bool upper, bool transpose, bool unit) {
    const int64_t batch = a.size(0), n = a.size(1), k = rhs.size(1), step = rhs_per_call(n, k);
    for_each_matrix(batch, n, [&](int64_t b) {
      for (int64_t c = 0; c < k; c += step)
        trsm(upper ? 'U' : 'L', transpose ? 'C' : 'N', unit ? 'U' : 'N', as_int(n),
             as_int(std::min(step, k - c)), a.data<T>() + b * n * n, rhs.data<T>() + b * n * k + c * n);
    });
  }
};
template <typename T>
struct QrFactor {
  static void run(const Tensor& a, const Tensor& tau) {
    const int64_t batch = a.size(0), n = a.size(1), m = a.size(2), k = tau.size(1);
    for_each_matrix(batch, std::max(m, n), [&](int64_t b) {
      int info = 0;
      T query(0);
      T* ap = a.data<T>() + b * m * n;
      geqrf(as_int(m), as_int(n), ap, tau.data<T>() + b * k, &query, -1, &info);
      std::vector<T> work(work_size(query));
      geqrf(as_int(m), as_int(n), ap, tau.data<T>() + b * k, work.data(), as_int(work.size()), &info);
    });
  }
};
template <typename T>
struct QrQ {
  static void run(const Tensor& q, const Tensor& tau) {
    const int64_t batch = q.size(0), n = q.size(1), m = q.size(2), k = tau.size(1);
    for_each_matrix(batch, m, [&](int64_t b) {
      int info = 0;
      T query(0);
      T* qp = q.data<T>() + b * m * n;
      const T* tp = tau.data<T>() + b * k;
      orgqr(as_int(m), as_int(n), as_int(k), qp, tp, &query, -1, &info);
      std::vector<T> work(work_size(query));
      orgqr(as_int(m), as_int(n), as_int(k), qp, tp, work.data(), as_int(work.size()), &info);
    });
  }
};
template <typename T>
struct QrMultiply {
  static void run(const Tensor& a, const Tensor& tau, const Tensor& c, bool left, bool transpose) {
    const int64_t batch = c.size(0), cols = c.size(1), rows = c.size(2), k = tau.size(1);
    const int64_t a_cols = a.size(1), a_rows = a.size(2);
    const char side = left ? 'L' : 'R';
    for_each_matrix(batch, std::max(rows, cols), [&](int64_t b) {
      int info = 0;
      T query(0);
      T* ap = a.data<T>() + b * a_rows * a_cols;
      T* cp = c.data<T>() + b * rows * cols;
      const T* tp = tau.data<T>() + b * k;
      ormqr(side, transpose, as_int(rows), as_int(cols), as_int(k), ap, as_int(a_rows), tp, cp, &query, -1,
            &info);
      std::vector<T> work(work_size(query));
      ormqr(side, transpose, as_int(rows), as_int(cols), as_int(k), ap, as_int(a_rows), tp, cp, work.data(),
            as_int(work.size()), &info);
    });
  }
};
template <typename T>
struct LdlFactor {
  static void run(const Tensor& a, const Tensor& pivots, bool hermitian, const Tensor& info) {
    const int64_t batch = a.size(0), n = a.size(1);
    for_each_matrix(batch, n, [&](int64_t b) {
      T* ap = a.data<T>() + b * n * n;
      int* pp = pivots.data<int>() + b * n;
      int* ip = info.data<int>() + b;
      T query(0);
      sytrf(hermitian, as_int(n), ap, pp, &query, -1, ip);
      std::vector<T> work(work_size(query));
      sytrf(hermitian, as_int(n), ap, pp, work.data(), as_int(work.size()), ip);
    });
  }
};
template <typename T>
struct LdlSolve {
  static void run(const Tensor& ld, const Tensor& pivots, const Tensor& rhs, bool hermitian) {
    const int64_t batch = ld.size(0), n = ld.size(1), k = rhs.size(1);
    for_each_matrix(batch, n, [&](int64_t b) {
      int info = 0;
      sytrs(hermitian, as_int(n), as_int(k), ld.data<T>() + b * n * n, pivots.data<int>() + b * n,
            rhs.data<T>() + b * n * k, &info);
    });
  }
};
// w is real (float32/float64) for every T.
template <typename T>
struct Eigh {
  static void run(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info) {
    using R = real_t<T>;
    const int64_t batch = a.size(0), n = a.size(1);
    const char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
    for_each_matrix(batch, n, [&](int64_t b) {
      T* ap = a.data<T>() + b * n * n;
      R* wp = w.data<R>() + b * n;
      int* ip = info.data<int>() + b;
      T wq(0);
      R rq(0);
      int iq = 0;
      syevd(jobz, uplo, as_int(n), ap, wp, &wq, -1, &rq, -1, &iq, -1, ip);
      std::vector<T> work(work_size(wq));
      std::vector<R> rwork(work_size(rq));
      std::vector<int> iwork(std::max(1, iq));
      syevd(jobz, uplo, as_int(n), ap, wp, work.data(), as_int(work.size()), rwork.data(),
            as_int(rwork.size()), iwork.data(), as_int(iwork.size()), ip);
    });
  }
};
// s is real for every T; vt holds V^H for the complex routines.
template <typename T>
struct Svd {
  static void run(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vt, const Tensor& info) {
    using R = real_t<T>;
    const int64_t batch = a.size(0), n = a.size(1), m = a.size(2);
    const bool vectors = u.defined();
    const bool full = vectors && u.size(1) == m && m != n;
    const char jobz = !vectors ? 'N' : (full ? 'A' : 'S');
    const int64_t ucols = vectors ? u.size(1) : 0;
    // cgesdd's real workspace (LAPACK's documented bound, at least 7 min(m, n) for jobz = 'N').
    const int64_t mn = std::min(m, n), mx = std::max(m, n);
    const int64_t lrwork =
        is_complex_type_v<T>
            ? std::max({7 * mn, 5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn, int64_t{1}})
            : 1;
    const int ldu = vectors ? as_int(m) : 1, ldvt = vectors ? as_int(n) : 1;
    // One workspace query for the whole batch (the size depends only on the shape), one allocation per chunk.
    T query(0), dummy(0);
    {
      int qinfo = 0;
      std::vector<int> iwork(static_cast<size_t>(8 * std::max<int64_t>(1, n)));
      std::vector<R> rwork(static_cast<size_t>(lrwork));
      gesdd(jobz, as_int(m), as_int(n), a.data<T>(), s.data<R>(), &dummy, ldu, &dummy, ldvt, &query, -1,
            rwork.data(), iwork.data(), &qinfo);
    }
    const size_t lwork = work_size(query);
    for_each_chunk(batch, m, [&](int64_t begin, int64_t end) {
      std::vector<int> iwork(static_cast<size_t>(8 * std::max<int64_t>(1, n)));
      std::vector<R> rwork(static_cast<size_t>(lrwork));
      std::vector<T> work(lwork + kVectorOverread);
      T unused(0);
      for (int64_t b = begin; b < end; ++b) {
        T* ap = a.data<T>() + b * m * n;
        R* sp = s.data<R>() + b * n;
        T* up = vectors ? u.data<T>() + b * m * ucols : &unused;
        T* vp = vectors ? vt.data<T>() + b * n * n : &unused;
        gesdd(jobz, as_int(m), as_int(n), ap, sp, up, ldu, vp, ldvt, work.data(), as_int(lwork), rwork.data(),
              iwork.data(), info.data<int>() + b);
      }
    });
  }
};

// geev for a real matrix: LAPACK returns the eigenvalues as (wr, wi) and a complex-conjugate pair's vectors
// as two real columns (re, im) of vr; they are unpacked into the complex w and v.
template <typename R>
void geev_real(char jobv, int n, R* a, complex<R>* w, complex<R>* v, int* info) {
  std::vector<R> wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n));
  std::vector<R> vr(jobv == 'V' ? static_cast<size_t>(n) * n : 1);
  const int ldv = jobv == 'V' ? n : 1, ldvl = 1;
  R dummy = 0, query = 0;
  const char jobvl = 'N';
  auto call = [&](R* work, int lw) {
    if constexpr (std::is_same_v<R, float>)
      sgeev_(&jobvl, &jobv, &n, a, &n, wr.data(), wi.data(), &dummy, &ldvl, vr.data(), &ldv, work, &lw, info,
             1, 1);
    else
      dgeev_(&jobvl, &jobv, &n, a, &n, wr.data(), wi.data(), &dummy, &ldvl, vr.data(), &ldv, work, &lw, info,
             1, 1);
  };
  call(&query, -1);
  std::vector<R> work(work_size(query));
  call(work.data(), as_int(work.size()));
  for (int j = 0; j < n; ++j) w[j] = complex<R>(wr[j], wi[j]);
  if (jobv != 'V') return;
  const size_t sn = static_cast<size_t>(n);
  for (int j = 0; j < n; ++j) {
    const R* re = vr.data() + j * sn;
    complex<R>* col = v + j * sn;
    if (wi[j] == 0 || j + 1 == n) {
      for (size_t i = 0; i < sn; ++i) col[i] = complex<R>(re[i], 0);
      continue;
    }
    // Columns j, j + 1 hold re and im of the vector of wr[j] + i wi[j] (wi[j] > 0); its conjugate pair's
    // vector is the conjugate.
    const R* im = re + sn;
    for (size_t i = 0; i < sn; ++i) {
      col[i] = complex<R>(re[i], im[i]);
      col[i + sn] = complex<R>(re[i], -im[i]);
    }
    ++j;
  }
}
template <typename R>
void geev_complex(char jobv, int n, complex<R>* a, complex<R>* w, complex<R>* v, int* info) {
  using C = complex<R>;
  std::vector<R> rwork(2 * static_cast<size_t>(std::max(n, 1)));
  C dummy(0), query(0);
  C* vp = jobv == 'V' ? v : &dummy;
  const int ldv = jobv == 'V' ? n : 1, ldvl = 1;
  const char jobvl = 'N';
  auto call = [&](C* work, int lw) {
    if constexpr (std::is_same_v<R, float>)
      cgeev_(&jobvl, &jobv, &n, a, &n, w, &dummy, &ldvl, vp, &ldv, work, &lw, rwork.data(), info, 1, 1);
    else
      zgeev_(&jobvl, &jobv, &n, a, &n, w, &dummy, &ldvl, vp, &ldv, work, &lw, rwork.data(), info, 1, 1);
  };
  call(&query, -1);
  std::vector<C> work(work_size(query));
  call(work.data(), as_int(work.size()));
}
// a (B, n, n) of T, destroyed; w (B, n) and v (B, n, n) complex.
template <typename T>
struct Eig {
  static void run(const Tensor& a, const Tensor& w, const Tensor& v, const Tensor& info) {
    using C = complex<real_t<T>>;
    const int64_t batch = a.size(0), n = a.size(1);
    const char jobv = v.defined() ? 'V' : 'N';
    for_each_matrix(batch, n, [&](int64_t b) {
      T* ap = a.data<T>() + b * n * n;
      C* wp = w.data<C>() + b * n;
      C* vp = v.defined() ? v.data<C>() + b * n * n : nullptr;
      if constexpr (is_complex_type_v<T>)
        geev_complex(jobv, as_int(n), ap, wp, vp, info.data<int>() + b);
      else
        geev_real(jobv, as_int(n), ap, wp, vp, info.data<int>() + b);
    });
  }
};

}  // namespace

void register_lapack_cpu_kernels(LapackKernels& t) {
  t.lu_factor = [](const Tensor& a, const Tensor& p, const Tensor& info) {
    dispatch<LuFactor>(a.dtype(), a, p, info);
  };
  t.lu_solve = [](const Tensor& lu, const Tensor& p, const Tensor& b, bool tr) {
    dispatch<LuSolve>(lu.dtype(), lu, p, b, tr);
  };
  t.lu_inverse = [](const Tensor& lu, const Tensor& p, const Tensor& info) {
    dispatch<LuInverse>(lu.dtype(), lu, p, info);
  };
  t.cholesky = [](const Tensor& a, bool upper, const Tensor& info) {
    dispatch<Cholesky>(a.dtype(), a, upper, info);
  };
  t.cholesky_solve = [](const Tensor& f, const Tensor& b, bool upper) {
    dispatch<CholeskySolve>(f.dtype(), f, b, upper);
  };
  t.triangular_solve = [](const Tensor& a, const Tensor& b, bool upper, bool tr, bool unit) {
    dispatch<TriangularSolve>(a.dtype(), a, b, upper, tr, unit);
  };
  t.qr_factor = [](const Tensor& a, const Tensor& tau) { dispatch<QrFactor>(a.dtype(), a, tau); };
  t.qr_q = [](const Tensor& q, const Tensor& tau) { dispatch<QrQ>(q.dtype(), q, tau); };
  t.qr_multiply = [](const Tensor& a, const Tensor& tau, const Tensor& c, bool left, bool transpose) {
    dispatch<QrMultiply>(a.dtype(), a, tau, c, left, transpose);
  };
  t.ldl_factor = [](const Tensor& a, const Tensor& pivots, bool hermitian, const Tensor& info) {
    dispatch<LdlFactor>(a.dtype(), a, pivots, hermitian, info);
  };
  t.ldl_hermitian = true;
  t.ldl_solve = [](const Tensor& ld, const Tensor& pivots, const Tensor& b, bool hermitian) {
    dispatch<LdlSolve>(ld.dtype(), ld, pivots, b, hermitian);
  };
  t.eigh = [](const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info) {
    dispatch<Eigh>(a.dtype(), a, w, vectors, upper, info);
  };
  t.svd = [](const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vt, const Tensor& info) {
    dispatch<Svd>(a.dtype(), a, s, u, vt, info);
  };
  t.eig = [](const Tensor& a, const Tensor& w, const Tensor& v, const Tensor& info) {
    dispatch<Eig>(a.dtype(), a, w, v, info);
  };
  t.complex = true;
}
#else
// Built without LAPACK: the slots stay empty and the front ends say so.
void register_lapack_cpu_kernels(LapackKernels&) {}
#endif

}  // namespace tandem
