// The CPU's decomposition slots through LAPACK (OpenBLAS ships it, with the BLAS tandem already links). The
// Fortran entry points are declared here rather than taken from LAPACKE: LAPACKE is a separate -dev package,
// and its row-major convenience would only transpose what the front ends already laid out column-major.
// Character arguments carry gfortran's hidden length arguments (size_t, appended), as LAPACKE passes them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/parallel.h"
#include "kernels/lapack_kernels.h"

#ifdef TANDEM_HAS_LAPACK
extern "C" {
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda,
             const int* ipiv, float* b, const int* ldb, int* info, size_t);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda,
             const int* ipiv, double* b, const int* ldb, int* info, size_t);
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
}
#endif

namespace tandem {

#ifdef TANDEM_HAS_LAPACK
namespace {

// One overload per precision, so each kernel below is written once as a template.
void getrf(int m, int n, float* a, int* ipiv, int* info) { sgetrf_(&m, &n, a, &m, ipiv, info); }
void getrf(int m, int n, double* a, int* ipiv, int* info) { dgetrf_(&m, &n, a, &m, ipiv, info); }
void getrs(char t, int n, int k, const float* a, const int* p, float* b, int* info) {
  sgetrs_(&t, &n, &k, a, &n, p, b, &n, info, 1);
}
void getrs(char t, int n, int k, const double* a, const int* p, double* b, int* info) {
  dgetrs_(&t, &n, &k, a, &n, p, b, &n, info, 1);
}
void potrf(char uplo, int n, float* a, int* info) { spotrf_(&uplo, &n, a, &n, info, 1); }
void potrf(char uplo, int n, double* a, int* info) { dpotrf_(&uplo, &n, a, &n, info, 1); }
void potrs(char uplo, int n, int k, const float* a, float* b, int* info) {
  spotrs_(&uplo, &n, &k, a, &n, b, &n, info, 1);
}
void potrs(char uplo, int n, int k, const double* a, double* b, int* info) {
  dpotrs_(&uplo, &n, &k, a, &n, b, &n, info, 1);
}
void trsm(char uplo, char trans, char diag, int n, int k, const float* a, float* b) {
  const char side = 'L';
  const float one = 1;
  strsm_(&side, &uplo, &trans, &diag, &n, &k, &one, a, &n, b, &n, 1, 1, 1, 1);
}
void trsm(char uplo, char trans, char diag, int n, int k, const double* a, double* b) {
  const char side = 'L';
  const double one = 1;
  dtrsm_(&side, &uplo, &trans, &diag, &n, &k, &one, a, &n, b, &n, 1, 1, 1, 1);
}
void geqrf(int m, int n, float* a, float* tau, float* work, int lwork, int* info) {
  sgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
}
void geqrf(int m, int n, double* a, double* tau, double* work, int lwork, int* info) {
  dgeqrf_(&m, &n, a, &m, tau, work, &lwork, info);
}
void orgqr(int m, int n, int k, float* a, const float* tau, float* work, int lwork, int* info) {
  sorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
void orgqr(int m, int n, int k, double* a, const double* tau, double* work, int lwork, int* info) {
  dorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, info);
}
void syevd(char jobz, char uplo, int n, float* a, float* w, float* work, int lwork, int* iwork, int liwork,
           int* info) {
  ssyevd_(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
void syevd(char jobz, char uplo, int n, double* a, double* w, double* work, int lwork, int* iwork, int liwork,
           int* info) {
  dsyevd_(&jobz, &uplo, &n, a, &n, w, work, &lwork, iwork, &liwork, info, 1, 1);
}
void gesdd(char jobz, int m, int n, float* a, float* s, float* u, int ldu, float* vt, int ldvt, float* work,
           int lwork, int* iwork, int* info) {
  sgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}
void gesdd(char jobz, int m, int n, double* a, double* s, double* u, int ldu, double* vt, int ldvt,
           double* work, int lwork, int* iwork, int* info) {
  dgesdd_(&jobz, &m, &n, a, &m, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}

// fn(b) for every matrix b of the batch. Small matrices run on several threads (OpenBLAS does not thread
// them itself); large ones one after another, each using OpenBLAS's own threads.
template <typename Fn>
void for_each_matrix(int64_t batch, int64_t n, const Fn& fn) {
  const int64_t flops = std::max<int64_t>(1, n * n * n);
  const int64_t grain = n <= 128 ? std::max<int64_t>(1, (int64_t{1} << 18) / flops) : batch + 1;
  parallel_for(0, batch, grain, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) fn(b);
  });
}

// The kernel for the tensor's dtype (float32 or float64: the front ends allow nothing else).
template <template <typename> class K, typename... Args>
void dispatch(DType dtype, Args&&... args) {
  if (dtype == DType::Float64)
    K<double>::run(args...);
  else
    K<float>::run(args...);
}

int as_int(int64_t v) { return static_cast<int>(v); }

template <typename T>
struct LuFactor {
  static void run(const Tensor& a, const Tensor& pivots, const Tensor& info) {
    const int64_t batch = a.size(0), n = a.size(1), m = a.size(2), k = pivots.size(1);
    for_each_matrix(batch, std::max(m, n), [&](int64_t b) {
      getrf(as_int(m), as_int(n), a.data<T>() + b * m * n, pivots.data<int>() + b * k, info.data<int>() + b);
    });
  }
};
// Right-hand sides per call: OpenBLAS sends several small ones through its threaded trsm, whose start-up
// costs several times the solve itself (1000 8x8 inverses: 20 ms against 5 ms column by column).
int64_t rhs_per_call(int64_t n, int64_t k) { return n <= 64 ? 1 : k; }

template <typename T>
struct LuSolve {
  static void run(const Tensor& lu, const Tensor& pivots, const Tensor& rhs, bool transpose) {
    const int64_t batch = lu.size(0), n = lu.size(1), k = rhs.size(1), step = rhs_per_call(n, k);
    for_each_matrix(batch, n, [&](int64_t b) {
      int info = 0;
      for (int64_t c = 0; c < k; c += step)
        getrs(transpose ? 'T' : 'N', as_int(n), as_int(std::min(step, k - c)), lu.data<T>() + b * n * n,
              pivots.data<int>() + b * n, rhs.data<T>() + b * n * k + c * n, &info);
    });
  }
};
template <typename T>
struct Cholesky {
  static void run(const Tensor& a, bool upper, const Tensor& info) {
    const int64_t batch = a.size(0), n = a.size(1);
    for_each_matrix(batch, n, [&](int64_t b) {
      potrf(upper ? 'U' : 'L', as_int(n), a.data<T>() + b * n * n, info.data<int>() + b);
    });
  }
};
template <typename T>
struct CholeskySolve {
  static void run(const Tensor& f, const Tensor& rhs, bool upper) {
    const int64_t batch = f.size(0), n = f.size(1), k = rhs.size(1), step = rhs_per_call(n, k);
    for_each_matrix(batch, n, [&](int64_t b) {
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
        trsm(upper ? 'U' : 'L', transpose ? 'T' : 'N', unit ? 'U' : 'N', as_int(n),
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
      T query = 0;
      T* ap = a.data<T>() + b * m * n;
      geqrf(as_int(m), as_int(n), ap, tau.data<T>() + b * k, &query, -1, &info);
      std::vector<T> work(std::max<size_t>(1, static_cast<size_t>(query)));
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
      T query = 0;
      T* qp = q.data<T>() + b * m * n;
      const T* tp = tau.data<T>() + b * k;
      orgqr(as_int(m), as_int(n), as_int(k), qp, tp, &query, -1, &info);
      std::vector<T> work(std::max<size_t>(1, static_cast<size_t>(query)));
      orgqr(as_int(m), as_int(n), as_int(k), qp, tp, work.data(), as_int(work.size()), &info);
    });
  }
};
template <typename T>
struct Eigh {
  static void run(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info) {
    const int64_t batch = a.size(0), n = a.size(1);
    const char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
    for_each_matrix(batch, n, [&](int64_t b) {
      T* ap = a.data<T>() + b * n * n;
      T* wp = w.data<T>() + b * n;
      int* ip = info.data<int>() + b;
      T wq = 0;
      int iq = 0;
      syevd(jobz, uplo, as_int(n), ap, wp, &wq, -1, &iq, -1, ip);
      std::vector<T> work(std::max<size_t>(1, static_cast<size_t>(wq)));
      std::vector<int> iwork(std::max(1, iq));
      syevd(jobz, uplo, as_int(n), ap, wp, work.data(), as_int(work.size()), iwork.data(),
            as_int(iwork.size()), ip);
    });
  }
};
template <typename T>
struct Svd {
  static void run(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vt, const Tensor& info) {
    const int64_t batch = a.size(0), n = a.size(1), m = a.size(2);
    const bool vectors = u.defined();
    const bool full = vectors && u.size(1) == m && m != n;
    const char jobz = !vectors ? 'N' : (full ? 'A' : 'S');
    const int64_t ucols = vectors ? u.size(1) : 0;
    for_each_matrix(batch, m, [&](int64_t b) {
      T* ap = a.data<T>() + b * m * n;
      T* sp = s.data<T>() + b * n;
      T dummy = 0;
      T* up = vectors ? u.data<T>() + b * m * ucols : &dummy;
      T* vp = vectors ? vt.data<T>() + b * n * n : &dummy;
      const int ldu = vectors ? as_int(m) : 1, ldvt = vectors ? as_int(n) : 1;
      int* ip = info.data<int>() + b;
      std::vector<int> iwork(static_cast<size_t>(8 * std::max<int64_t>(1, n)));
      T query = 0;
      gesdd(jobz, as_int(m), as_int(n), ap, sp, up, ldu, vp, ldvt, &query, -1, iwork.data(), ip);
      std::vector<T> work(std::max<size_t>(1, static_cast<size_t>(query)));
      gesdd(jobz, as_int(m), as_int(n), ap, sp, up, ldu, vp, ldvt, work.data(), as_int(work.size()),
            iwork.data(), ip);
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
  t.eigh = [](const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info) {
    dispatch<Eigh>(a.dtype(), a, w, vectors, upper, info);
  };
  t.svd = [](const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vt, const Tensor& info) {
    dispatch<Svd>(a.dtype(), a, s, u, vt, info);
  };
}
#else
// Built without LAPACK: the slots stay empty and the front ends say so.
void register_lapack_cpu_kernels(LapackKernels&) {}
#endif

}  // namespace tandem
