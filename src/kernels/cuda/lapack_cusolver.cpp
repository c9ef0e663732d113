// The CUDA decomposition slots through cuSOLVER (one call per matrix, queued on the current stream; info
// goes straight into the front end's device tensor) and cuBLAS's trsm, for float32/float64 and (cuSOLVER's
// C/Z routines: ungqr, unmqr, heevd, gesvd with a real S) complex64/complex128. Workspace comes from the
// caching allocator, freed in stream order. No geev slot: eig runs on the host (ops/linalg_decomp.cpp), as in
// PyTorch; no sytrs slot (cuSOLVER's Xsytrs takes 64-bit pivots) and no hetrf: ldl_solve and a Hermitian
// complex ldl_factor run on the host too (ops/linalg_ldl.cpp).
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <unordered_map>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "core/complex.h"
#include "core/error.h"
#include "kernels/lapack_kernels.h"

namespace tandem::cuda {

namespace {

void check(cusolverStatus_t s, const char* what) {
  TANDEM_CHECK(s == CUSOLVER_STATUS_SUCCESS, Runtime, "cuSOLVER error ", static_cast<int>(s), " in ", what);
}
void check(cublasStatus_t s, const char* what) {
  TANDEM_CHECK(s == CUBLAS_STATUS_SUCCESS, Runtime, "cuBLAS error ", static_cast<int>(s), " in ", what);
}

// The calling thread's cuSOLVER handle for `device`, bound to its current stream.
cusolverDnHandle_t solver_handle(Device device) {
  thread_local std::unordered_map<int, cusolverDnHandle_t> handles;
  cusolverDnHandle_t& h = handles[device.index];
  if (!h) check(cusolverDnCreate(&h), "cusolverDnCreate");
  check(cusolverDnSetStream(h, current_stream(device)), "cusolverDnSetStream");
  return h;
}

using cf = complex<float>;
using zd = complex<double>;
// tandem's complex<float>/complex<double> as cuComplex/cuDoubleComplex (the same layout: real part first).
cuComplex* cu(cf* p) { return reinterpret_cast<cuComplex*>(p); }
const cuComplex* cu(const cf* p) { return reinterpret_cast<const cuComplex*>(p); }
cuDoubleComplex* cu(zd* p) { return reinterpret_cast<cuDoubleComplex*>(p); }
const cuDoubleComplex* cu(const zd* p) { return reinterpret_cast<const cuDoubleComplex*>(p); }

// The conjugate transpose for complex matrices, the transpose for real ones.
template <typename T>
cublasOperation_t adjoint_op() {
  return std::is_same_v<T, real_t<T>> ? CUBLAS_OP_T : CUBLAS_OP_C;
}

template <typename T>
T* workspace(DataPtr& keep, int64_t count, Device device) {
  keep = allocate_scratch(static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(T), device);
  return static_cast<T*>(keep.ptr);
}

// One overload set per cuSOLVER routine, float and double.

cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, float* a, int* lw) {
  return cusolverDnSgetrf_bufferSize(h, m, n, a, m, lw);
}
cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, double* a, int* lw) {
  return cusolverDnDgetrf_bufferSize(h, m, n, a, m, lw);
}
cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, float* a, float* w, int* p, int* info) {
  return cusolverDnSgetrf(h, m, n, a, m, w, p, info);
}
cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, double* a, double* w, int* p, int* info) {
  return cusolverDnDgetrf(h, m, n, a, m, w, p, info);
}
cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, int k, const float* a, const int* p,
                       float* b, int* info) {
  return cusolverDnSgetrs(h, t, n, k, a, n, p, b, n, info);
}
cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, int k, const double* a, const int* p,
                       double* b, int* info) {
  return cusolverDnDgetrs(h, t, n, k, a, n, p, b, n, info);
}
cusolverStatus_t potrf_size(cusolverDnHandle_t h, cublasFillMode_t u, int n, float* a, int* lw) {
  return cusolverDnSpotrf_bufferSize(h, u, n, a, n, lw);
}
cusolverStatus_t potrf_size(cusolverDnHandle_t h, cublasFillMode_t u, int n, double* a, int* lw) {
  return cusolverDnDpotrf_bufferSize(h, u, n, a, n, lw);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t u, int n, float* a, float* w, int lw,
                       int* info) {
  return cusolverDnSpotrf(h, u, n, a, n, w, lw, info);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t u, int n, double* a, double* w, int lw,
                       int* info) {
  return cusolverDnDpotrf(h, u, n, a, n, w, lw, info);
}
cusolverStatus_t potrs(cusolverDnHandle_t h, cublasFillMode_t u, int n, int k, const float* a, float* b,
                       int* info) {
  return cusolverDnSpotrs(h, u, n, k, a, n, b, n, info);
}
cusolverStatus_t potrs(cusolverDnHandle_t h, cublasFillMode_t u, int n, int k, const double* a, double* b,
                       int* info) {
  return cusolverDnDpotrs(h, u, n, k, a, n, b, n, info);
}
cublasStatus_t trsm(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int n,
                    int k, const float* a, float* b) {
  const float one = 1;
  return cublasStrsm(h, CUBLAS_SIDE_LEFT, u, t, d, n, k, &one, a, n, b, n);
}
cublasStatus_t trsm(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int n,
                    int k, const double* a, double* b) {
  const double one = 1;
  return cublasDtrsm(h, CUBLAS_SIDE_LEFT, u, t, d, n, k, &one, a, n, b, n);
}
cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, float* a, int* lw) {
  return cusolverDnSgeqrf_bufferSize(h, m, n, a, m, lw);
}
cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, double* a, int* lw) {
  return cusolverDnDgeqrf_bufferSize(h, m, n, a, m, lw);
}
cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, float* a, float* tau, float* w, int lw,
                       int* info) {
  return cusolverDnSgeqrf(h, m, n, a, m, tau, w, lw, info);
}
cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, double* a, double* tau, double* w, int lw,
                       int* info) {
  return cusolverDnDgeqrf(h, m, n, a, m, tau, w, lw, info);
}
cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int n, int k, const float* a, const float* tau,
                            int* lw) {
  return cusolverDnSorgqr_bufferSize(h, m, n, k, a, m, tau, lw);
}
cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int n, int k, const double* a, const double* tau,
                            int* lw) {
  return cusolverDnDorgqr_bufferSize(h, m, n, k, a, m, tau, lw);
}
cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, float* a, const float* tau, float* w,
                       int lw, int* info) {
  return cusolverDnSorgqr(h, m, n, k, a, m, tau, w, lw, info);
}
cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, double* a, const double* tau, double* w,
                       int lw, int* info) {
  return cusolverDnDorgqr(h, m, n, k, a, m, tau, w, lw, info);
}
cusolverStatus_t syevd_size(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n,
                            const float* a, const float* w, int* lw) {
  return cusolverDnSsyevd_bufferSize(h, j, u, n, a, n, w, lw);
}
cusolverStatus_t syevd_size(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n,
                            const double* a, const double* w, int* lw) {
  return cusolverDnDsyevd_bufferSize(h, j, u, n, a, n, w, lw);
}
cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, float* a,
                       float* w, float* work, int lw, int* info) {
  return cusolverDnSsyevd(h, j, u, n, a, n, w, work, lw, info);
}
cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, double* a,
                       double* w, double* work, int lw, int* info) {
  return cusolverDnDsyevd(h, j, u, n, a, n, w, work, lw, info);
}
cusolverStatus_t gesvd_size(cusolverDnHandle_t h, int m, int n, float*, int* lw) {
  return cusolverDnSgesvd_bufferSize(h, m, n, lw);
}
cusolverStatus_t gesvd_size(cusolverDnHandle_t h, int m, int n, double*, int* lw) {
  return cusolverDnDgesvd_bufferSize(h, m, n, lw);
}
cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char ju, signed char jv, int m, int n, float* a, float* s,
                       float* u, int ldu, float* vt, int ldvt, float* w, int lw, int* info) {
  return cusolverDnSgesvd(h, ju, jv, m, n, a, m, s, u, ldu, vt, ldvt, w, lw, nullptr, info);
}
cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char ju, signed char jv, int m, int n, double* a,
                       double* s, double* u, int ldu, double* vt, int ldvt, double* w, int lw, int* info) {
  return cusolverDnDgesvd(h, ju, jv, m, n, a, m, s, u, ldu, vt, ldvt, w, lw, nullptr, info);
}

// The complex overloads of the routines above (cuSOLVER's C and Z names).
cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, cf* a, int* lw) {
  return cusolverDnCgetrf_bufferSize(h, m, n, cu(a), m, lw);
}
cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, zd* a, int* lw) {
  return cusolverDnZgetrf_bufferSize(h, m, n, cu(a), m, lw);
}
cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, cf* a, cf* w, int* p, int* info) {
  return cusolverDnCgetrf(h, m, n, cu(a), m, cu(w), p, info);
}
cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, zd* a, zd* w, int* p, int* info) {
  return cusolverDnZgetrf(h, m, n, cu(a), m, cu(w), p, info);
}
cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, int k, const cf* a, const int* p,
                       cf* b, int* info) {
  return cusolverDnCgetrs(h, t, n, k, cu(a), n, p, cu(b), n, info);
}
cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, int k, const zd* a, const int* p,
                       zd* b, int* info) {
  return cusolverDnZgetrs(h, t, n, k, cu(a), n, p, cu(b), n, info);
}
cusolverStatus_t potrf_size(cusolverDnHandle_t h, cublasFillMode_t u, int n, cf* a, int* lw) {
  return cusolverDnCpotrf_bufferSize(h, u, n, cu(a), n, lw);
}
cusolverStatus_t potrf_size(cusolverDnHandle_t h, cublasFillMode_t u, int n, zd* a, int* lw) {
  return cusolverDnZpotrf_bufferSize(h, u, n, cu(a), n, lw);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t u, int n, cf* a, cf* w, int lw, int* info) {
  return cusolverDnCpotrf(h, u, n, cu(a), n, cu(w), lw, info);
}
cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t u, int n, zd* a, zd* w, int lw, int* info) {
  return cusolverDnZpotrf(h, u, n, cu(a), n, cu(w), lw, info);
}
cusolverStatus_t potrs(cusolverDnHandle_t h, cublasFillMode_t u, int n, int k, const cf* a, cf* b,
                       int* info) {
  return cusolverDnCpotrs(h, u, n, k, cu(a), n, cu(b), n, info);
}
cusolverStatus_t potrs(cusolverDnHandle_t h, cublasFillMode_t u, int n, int k, const zd* a, zd* b,
                       int* info) {
  return cusolverDnZpotrs(h, u, n, k, cu(a), n, cu(b), n, info);
}
cublasStatus_t trsm(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int n,
                    int k, const cf* a, cf* b) {
  const cuComplex one{1, 0};
  return cublasCtrsm(h, CUBLAS_SIDE_LEFT, u, t, d, n, k, &one, cu(a), n, cu(b), n);
}
cublasStatus_t trsm(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t, cublasDiagType_t d, int n,
                    int k, const zd* a, zd* b) {
  const cuDoubleComplex one{1, 0};
  return cublasZtrsm(h, CUBLAS_SIDE_LEFT, u, t, d, n, k, &one, cu(a), n, cu(b), n);
}
cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, cf* a, int* lw) {
  return cusolverDnCgeqrf_bufferSize(h, m, n, cu(a), m, lw);
}
cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, zd* a, int* lw) {
  return cusolverDnZgeqrf_bufferSize(h, m, n, cu(a), m, lw);
}
cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, cf* a, cf* tau, cf* w, int lw, int* info) {
  return cusolverDnCgeqrf(h, m, n, cu(a), m, cu(tau), cu(w), lw, info);
}
cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, zd* a, zd* tau, zd* w, int lw, int* info) {
  return cusolverDnZgeqrf(h, m, n, cu(a), m, cu(tau), cu(w), lw, info);
}
cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int n, int k, const cf* a, const cf* tau, int* lw) {
  return cusolverDnCungqr_bufferSize(h, m, n, k, cu(a), m, cu(tau), lw);
}
cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int n, int k, const zd* a, const zd* tau, int* lw) {
  return cusolverDnZungqr_bufferSize(h, m, n, k, cu(a), m, cu(tau), lw);
}
cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, cf* a, const cf* tau, cf* w, int lw,
                       int* info) {
  return cusolverDnCungqr(h, m, n, k, cu(a), m, cu(tau), cu(w), lw, info);
}
cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, zd* a, const zd* tau, zd* w, int lw,
                       int* info) {
  return cusolverDnZungqr(h, m, n, k, cu(a), m, cu(tau), cu(w), lw, info);
}
cusolverStatus_t syevd_size(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, const cf* a,
                            const float* w, int* lw) {
  return cusolverDnCheevd_bufferSize(h, j, u, n, cu(a), n, w, lw);
}
cusolverStatus_t syevd_size(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, const zd* a,
                            const double* w, int* lw) {
  return cusolverDnZheevd_bufferSize(h, j, u, n, cu(a), n, w, lw);
}
cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, cf* a, float* w,
                       cf* work, int lw, int* info) {
  return cusolverDnCheevd(h, j, u, n, cu(a), n, w, cu(work), lw, info);
}
cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, zd* a, double* w,
                       zd* work, int lw, int* info) {
  return cusolverDnZheevd(h, j, u, n, cu(a), n, w, cu(work), lw, info);
}
cusolverStatus_t gesvd_size(cusolverDnHandle_t h, int m, int n, cf*, int* lw) {
  return cusolverDnCgesvd_bufferSize(h, m, n, lw);
}
cusolverStatus_t gesvd_size(cusolverDnHandle_t h, int m, int n, zd*, int* lw) {
  return cusolverDnZgesvd_bufferSize(h, m, n, lw);
}
cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char ju, signed char jv, int m, int n, cf* a, float* s,
                       cf* u, int ldu, cf* vt, int ldvt, cf* w, int lw, int* info) {
  return cusolverDnCgesvd(h, ju, jv, m, n, cu(a), m, s, cu(u), ldu, cu(vt), ldvt, cu(w), lw, nullptr, info);
}
cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char ju, signed char jv, int m, int n, zd* a, double* s,
                       zd* u, int ldu, zd* vt, int ldvt, zd* w, int lw, int* info) {
  return cusolverDnZgesvd(h, ju, jv, m, n, cu(a), m, s, cu(u), ldu, cu(vt), ldvt, cu(w), lw, nullptr, info);
}

// ormqr (unmqr) and sytrf, one overload per dtype.
cusolverStatus_t ormqr_size(cusolverDnHandle_t h, cublasSideMode_t s, cublasOperation_t t, int m, int n,
                            int k, const float* a, int lda, const float* tau, const float* c, int* lw) {
  return cusolverDnSormqr_bufferSize(h, s, t, m, n, k, a, lda, tau, c, m, lw);
}
cusolverStatus_t ormqr_size(cusolverDnHandle_t h, cublasSideMode_t s, cublasOperation_t t, int m, int n,
                            int k, const double* a, int lda, const double* tau, const double* c, int* lw) {
  return cusolverDnDormqr_bufferSize(h, s, t, m, n, k, a, lda, tau, c, m, lw);
}
cusolverStatus_t ormqr_size(cusolverDnHandle_t h, cublasSideMode_t s, cublasOperation_t t, int m, int n,
                            int k, const cf* a, int lda, const cf* tau, const cf* c, int* lw) {
  return cusolverDnCunmqr_bufferSize(h, s, t, m, n, k, cu(a), lda, cu(tau), cu(c), m, lw);
}
cusolverStatus_t ormqr_size(cusolverDnHandle_t h, cublasSideMode_t s, cublasOperation_t t, int m, int n,
                            int k, const zd* a, int lda, const zd* tau, const zd* c, int* lw) {
  return cusolverDnZunmqr_bufferSize(h, s, t, m, n, k, cu(a), lda, cu(tau), cu(c), m, lw);
}
cusolverStatus_t ormqr(cusolverDnHandle_t h, cublasSideMode_t s, cublasOperation_t t, int m, int n, int k,
                       const float* a, int lda, const float* tau, float* c, float* w, int lw, int* info) {
  return cusolverDnSormqr(h, s, t, m, n, k, a, lda, tau, c, m, w, lw, info);
}
cusolverStatus_t ormqr(cusolverDnHandle_t h, cublasSideMode_t s, cublasOperation_t t, int m, int n, int k,
                       const double* a, int lda, const double* tau, double* c, double* w, int lw, int* info) {
  return cusolverDnDormqr(h, s, t, m, n, k, a, lda, tau, c, m, w, lw, info);
}
cusolverStatus_t ormqr(cusolverDnHandle_t h, cublasSideMode_t s, cublasOperation_t t, int m, int n, int k,
                       const cf* a, int lda, const cf* tau, cf* c, cf* w, int lw, int* info) {
  return cusolverDnCunmqr(h, s, t, m, n, k, cu(a), lda, cu(tau), cu(c), m, cu(w), lw, info);
}
cusolverStatus_t ormqr(cusolverDnHandle_t h, cublasSideMode_t s, cublasOperation_t t, int m, int n, int k,
                       const zd* a, int lda, const zd* tau, zd* c, zd* w, int lw, int* info) {
  return cusolverDnZunmqr(h, s, t, m, n, k, cu(a), lda, cu(tau), cu(c), m, cu(w), lw, info);
}
cusolverStatus_t sytrf_size(cusolverDnHandle_t h, int n, float* a, int* lw) {
  return cusolverDnSsytrf_bufferSize(h, n, a, n, lw);
}
cusolverStatus_t sytrf_size(cusolverDnHandle_t h, int n, double* a, int* lw) {
  return cusolverDnDsytrf_bufferSize(h, n, a, n, lw);
}
cusolverStatus_t sytrf_size(cusolverDnHandle_t h, int n, cf* a, int* lw) {
  return cusolverDnCsytrf_bufferSize(h, n, cu(a), n, lw);
}
cusolverStatus_t sytrf_size(cusolverDnHandle_t h, int n, zd* a, int* lw) {
  return cusolverDnZsytrf_bufferSize(h, n, cu(a), n, lw);
}
cusolverStatus_t sytrf(cusolverDnHandle_t h, int n, float* a, int* p, float* w, int lw, int* info) {
  return cusolverDnSsytrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, p, w, lw, info);
}
cusolverStatus_t sytrf(cusolverDnHandle_t h, int n, double* a, int* p, double* w, int lw, int* info) {
  return cusolverDnDsytrf(h, CUBLAS_FILL_MODE_LOWER, n, a, n, p, w, lw, info);
}
cusolverStatus_t sytrf(cusolverDnHandle_t h, int n, cf* a, int* p, cf* w, int lw, int* info) {
  return cusolverDnCsytrf(h, CUBLAS_FILL_MODE_LOWER, n, cu(a), n, p, cu(w), lw, info);
}
cusolverStatus_t sytrf(cusolverDnHandle_t h, int n, zd* a, int* p, zd* w, int lw, int* info) {
  return cusolverDnZsytrf(h, CUBLAS_FILL_MODE_LOWER, n, cu(a), n, p, cu(w), lw, info);
}

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
cublasFillMode_t fill(bool upper) { return upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER; }

template <typename T>
struct LuFactor {
  static void run(const Tensor& a, const Tensor& pivots, const Tensor& info) {
    const int64_t batch = a.size(0), n = a.size(1), m = a.size(2), k = pivots.size(1);
    DeviceGuard guard(a.device());
    cusolverDnHandle_t h = solver_handle(a.device());
    int lw = 0;
    check(getrf_size(h, as_int(m), as_int(n), a.data<T>(), &lw), "getrf_bufferSize");
    DataPtr keep;
    T* w = workspace<T>(keep, lw, a.device());
    for (int64_t b = 0; b < batch; ++b)
      check(getrf(h, as_int(m), as_int(n), a.data<T>() + b * m * n, w, pivots.data<int>() + b * k,
                  info.data<int>() + b),
            "getrf");
  }
};
template <typename T>
struct LuSolve {
  static void run(const Tensor& lu, const Tensor& pivots, const Tensor& rhs, bool transpose) {
    const int64_t batch = lu.size(0), n = lu.size(1), k = rhs.size(1);
    DeviceGuard guard(lu.device());
    cusolverDnHandle_t h = solver_handle(lu.device());
    DataPtr keep;
    int* info = workspace<int>(keep, 1, lu.device());
    for (int64_t b = 0; b < batch; ++b)
      check(getrs(h, transpose ? adjoint_op<T>() : CUBLAS_OP_N, as_int(n), as_int(k),
                  lu.data<T>() + b * n * n, pivots.data<int>() + b * n, rhs.data<T>() + b * n * k, info),
            "getrs");
  }
};
template <typename T>
struct Cholesky {
  static void run(const Tensor& a, bool upper, const Tensor& info) {
    const int64_t batch = a.size(0), n = a.size(1);
    DeviceGuard guard(a.device());
    cusolverDnHandle_t h = solver_handle(a.device());
    int lw = 0;
    check(potrf_size(h, fill(upper), as_int(n), a.data<T>(), &lw), "potrf_bufferSize");
    DataPtr keep;
    T* w = workspace<T>(keep, lw, a.device());
    for (int64_t b = 0; b < batch; ++b)
      check(potrf(h, fill(upper), as_int(n), a.data<T>() + b * n * n, w, lw, info.data<int>() + b), "potrf");
  }
};
template <typename T>
struct CholeskySolve {
  static void run(const Tensor& f, const Tensor& rhs, bool upper) {
    const int64_t batch = f.size(0), n = f.size(1), k = rhs.size(1);
    DeviceGuard guard(f.device());
    cusolverDnHandle_t h = solver_handle(f.device());
    DataPtr keep;
    int* info = workspace<int>(keep, 1, f.device());
    for (int64_t b = 0; b < batch; ++b)
      check(potrs(h, fill(upper), as_int(n), as_int(k), f.data<T>() + b * n * n, rhs.data<T>() + b * n * k,
                  info),
            "potrs");
  }
};
template <typename T>
struct TriangularSolve {
  static void run(const Tensor& a, const Tensor& rhs, bool upper, bool transpose, bool unit) {
    const int64_t batch = a.size(0), n = a.size(1), k = rhs.size(1);
    DeviceGuard guard(a.device());
    cublasHandle_t h = cublas_handle(a.device());
    for (int64_t b = 0; b < batch; ++b)
      check(trsm(h, fill(upper), transpose ? adjoint_op<T>() : CUBLAS_OP_N,
                 unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, as_int(n), as_int(k),
                 a.data<T>() + b * n * n, rhs.data<T>() + b * n * k),
            "trsm");
  }
};
template <typename T>
struct QrFactor {
  static void run(const Tensor& a, const Tensor& tau) {
    const int64_t batch = a.size(0), n = a.size(1), m = a.size(2), k = tau.size(1);
    DeviceGuard guard(a.device());
    cusolverDnHandle_t h = solver_handle(a.device());
    int lw = 0;
    check(geqrf_size(h, as_int(m), as_int(n), a.data<T>(), &lw), "geqrf_bufferSize");
    DataPtr keep, keep_info;
    T* w = workspace<T>(keep, lw, a.device());
    int* info = workspace<int>(keep_info, 1, a.device());
    for (int64_t b = 0; b < batch; ++b)
      check(geqrf(h, as_int(m), as_int(n), a.data<T>() + b * m * n, tau.data<T>() + b * k, w, lw, info),
            "geqrf");
  }
};
template <typename T>
struct QrQ {
  static void run(const Tensor& q, const Tensor& tau) {
    const int64_t batch = q.size(0), n = q.size(1), m = q.size(2), k = tau.size(1);
    DeviceGuard guard(q.device());
    cusolverDnHandle_t h = solver_handle(q.device());
    int lw = 0;
    check(orgqr_size(h, as_int(m), as_int(n), as_int(k), q.data<T>(), tau.data<T>(), &lw),
          "orgqr_bufferSize");
    DataPtr keep, keep_info;
    T* w = workspace<T>(keep, lw, q.device());
    int* info = workspace<int>(keep_info, 1, q.device());
    for (int64_t b = 0; b < batch; ++b)
      check(orgqr(h, as_int(m), as_int(n), as_int(k), q.data<T>() + b * m * n, tau.data<T>() + b * k, w, lw,
                  info),
            "orgqr");
  }
};
template <typename T>
struct QrMultiply {
  static void run(const Tensor& a, const Tensor& tau, const Tensor& c, bool left, bool transpose) {
    const int64_t batch = c.size(0), cols = c.size(1), rows = c.size(2), k = tau.size(1);
    const int64_t a_cols = a.size(1), a_rows = a.size(2);
    const cublasSideMode_t side = left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
    const cublasOperation_t op = transpose ? adjoint_op<T>() : CUBLAS_OP_N;
    DeviceGuard guard(c.device());
    cusolverDnHandle_t h = solver_handle(c.device());
    int lw = 0;
    check(ormqr_size(h, side, op, as_int(rows), as_int(cols), as_int(k), a.data<T>(), as_int(a_rows),
                     tau.data<T>(), c.data<T>(), &lw),
          "ormqr_bufferSize");
    DataPtr keep, keep_info;
    T* w = workspace<T>(keep, lw, c.device());
    int* info = workspace<int>(keep_info, 1, c.device());
    for (int64_t b = 0; b < batch; ++b)
      check(ormqr(h, side, op, as_int(rows), as_int(cols), as_int(k), a.data<T>() + b * a_rows * a_cols,
                  as_int(a_rows), tau.data<T>() + b * k, c.data<T>() + b * rows * cols, w, lw, info),
            "ormqr");
  }
};
// cuSOLVER's sytrf is the symmetric factorization only (hermitian=true for complex runs on the host: the
// table's ldl_hermitian is false).
template <typename T>
struct LdlFactor {
  static void run(const Tensor& a, const Tensor& pivots, bool, const Tensor& info) {
    const int64_t batch = a.size(0), n = a.size(1);
    DeviceGuard guard(a.device());
    cusolverDnHandle_t h = solver_handle(a.device());
    int lw = 0;
    check(sytrf_size(h, as_int(n), a.data<T>(), &lw), "sytrf_bufferSize");
    DataPtr keep;
    T* w = workspace<T>(keep, lw, a.device());
    for (int64_t b = 0; b < batch; ++b)
      check(sytrf(h, as_int(n), a.data<T>() + b * n * n, pivots.data<int>() + b * n, w, lw,
                  info.data<int>() + b),
            "sytrf");
  }
};
template <typename T>
struct Eigh {
  static void run(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info) {
    const int64_t batch = a.size(0), n = a.size(1);
    DeviceGuard guard(a.device());
    cusolverDnHandle_t h = solver_handle(a.device());
    const cusolverEigMode_t job = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    int lw = 0;
    using R = real_t<T>;  // the eigenvalues are real
    check(syevd_size(h, job, fill(upper), as_int(n), a.data<T>(), w.data<R>(), &lw), "syevd_bufferSize");
    DataPtr keep;
    T* work = workspace<T>(keep, lw, a.device());
    for (int64_t b = 0; b < batch; ++b)
      check(syevd(h, job, fill(upper), as_int(n), a.data<T>() + b * n * n, w.data<R>() + b * n, work, lw,
                  info.data<int>() + b),
            "syevd");
  }
};
template <typename T>
struct Svd {
  static void run(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vt, const Tensor& info) {
    const int64_t batch = a.size(0), n = a.size(1), m = a.size(2);
    const bool vectors = u.defined();
    const int64_t ucols = vectors ? u.size(1) : 0;
    const signed char ju = !vectors ? 'N' : (ucols == m ? 'A' : 'S'), jv = vectors ? 'A' : 'N';
    DeviceGuard guard(a.device());
    cusolverDnHandle_t h = solver_handle(a.device());
    int lw = 0;
    check(gesvd_size(h, as_int(m), as_int(n), a.data<T>(), &lw), "gesvd_bufferSize");
    DataPtr keep;
    T* work = workspace<T>(keep, lw, a.device());
    for (int64_t b = 0; b < batch; ++b)
      check(gesvd(h, ju, jv, as_int(m), as_int(n), a.data<T>() + b * m * n, s.data<real_t<T>>() + b * n,
                  vectors ? u.data<T>() + b * m * ucols : nullptr, as_int(m),
                  vectors ? vt.data<T>() + b * n * n : nullptr, as_int(n), work, lw, info.data<int>() + b),
            "gesvd");
  }
};

}  // namespace

void register_lapack_cusolver_kernels(LapackKernels& t) {
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
  t.qr_multiply = [](const Tensor& a, const Tensor& tau, const Tensor& c, bool left, bool transpose) {
    dispatch<QrMultiply>(a.dtype(), a, tau, c, left, transpose);
  };
  t.ldl_factor = [](const Tensor& a, const Tensor& pivots, bool hermitian, const Tensor& info) {
    dispatch<LdlFactor>(a.dtype(), a, pivots, hermitian, info);
  };
  t.eigh = [](const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& info) {
    dispatch<Eigh>(a.dtype(), a, w, vectors, upper, info);
  };
  t.svd = [](const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vt, const Tensor& info) {
    dispatch<Svd>(a.dtype(), a, s, u, vt, info);
  };
  t.complex = true;
}

}  // namespace tandem::cuda
