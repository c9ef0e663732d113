// Checks every CUDA runtime and cuBLAS return code and every kernel launch. A failure becomes a tandem
// RuntimeError naming the call, CUDA's error name and text, and where it happened; nothing is ignored.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace tandem::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line);

}  // namespace tandem::cuda

#define TANDEM_CUDA_CHECK(call)                                                               \
  do {                                                                                        \
    cudaError_t tandem_cuda_err_ = (call);                                                    \
    if (__builtin_expect(tandem_cuda_err_ != cudaSuccess, 0))                                 \
      ::tandem::cuda::throw_cuda_error(tandem_cuda_err_, #call, __FILE__, __LINE__);          \
  } while (0)

// After every <<<...>>> launch: a bad configuration is reported here, not at some later call.
#define TANDEM_CUDA_CHECK_LAUNCH() TANDEM_CUDA_CHECK(cudaGetLastError())

#define TANDEM_CUBLAS_CHECK(call)                                                             \
  do {                                                                                        \
    cublasStatus_t tandem_cublas_status_ = (call);                                            \
    if (__builtin_expect(tandem_cublas_status_ != CUBLAS_STATUS_SUCCESS, 0))                  \
      ::tandem::cuda::throw_cublas_error(tandem_cublas_status_, #call, __FILE__, __LINE__);   \
  } while (0)
