#include "backend/cuda/cuda_check.h"

#include "core/error.h"

namespace tandem::cuda {

// Out-of-memory from cudaMalloc never arrives here: the caching allocator turns it into tandem's
// OutOfMemory error with the allocator's statistics. Anything else is a bug or a broken device.
void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  // The runtime also keeps a failed call's error as its "last error"; reported here, it is cleared so the
  // next launch check (cudaGetLastError) does not blame an unrelated kernel for it. (A sticky error, such
  // as an illegal address, stays: every later call reports it anyway.)
  (void)cudaGetLastError();
  TANDEM_THROW(Runtime, "CUDA error: ", cudaGetErrorString(err), " (", cudaGetErrorName(err), ") in ", call,
               " at ", file, ":", line,
               "\nhint: CUDA kernel errors may be reported asynchronously at a later call; set "
               "CUDA_LAUNCH_BLOCKING=1 to find the call that failed");
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  TANDEM_THROW(Runtime, "CUDA error: ", cublasGetStatusString(status), " (", cublasGetStatusName(status),
               ") in ", call, " at ", file, ":", line,
               "\nhint: a cuBLAS failure usually means bad matrix arguments or an earlier CUDA error");
}

}  // namespace tandem::cuda
