// What CUDA kernels get from the backend (cuda_context.h): streams, the device guard, scratch memory and
// the per-thread cuBLAS handles.
#include "backend/cuda/cuda_context.h"

#include <array>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_check.h"
#include "backend/math_flags.h"

namespace tandem::cuda {

cudaStream_t current_stream(Device device) {
  CudaBackend& b = cuda_runtime();
  return b.stream(device.index, b.current_stream(device.index));
}

DeviceGuard::DeviceGuard(Device device) {
  TANDEM_CUDA_CHECK(cudaGetDevice(&previous_));
  if (device.index >= 0 && device.index != previous_) TANDEM_CUDA_CHECK(cudaSetDevice(device.index));
}

DeviceGuard::~DeviceGuard() {
  int now = -1;
  if (cudaGetDevice(&now) == cudaSuccess && now != previous_) (void)cudaSetDevice(previous_);
}

DataPtr allocate_scratch(size_t nbytes, Device device) {
  return cuda_runtime().allocate_on(nbytes, device.index, current_stream(device));
}

// One handle per thread and device (a cuBLAS handle must not be shared between threads). Never destroyed:
// a thread-exit or shutdown-time cublasDestroy could run after the CUDA runtime's own teardown.
cublasHandle_t cublas_handle(Device device) {
  thread_local std::array<cublasHandle_t, 64> handles{};
  cublasHandle_t& h = handles[device.index];
  if (!h) {
    DeviceGuard guard(device);
    TANDEM_CUBLAS_CHECK(cublasCreate(&h));
  }
  TANDEM_CUBLAS_CHECK(cublasSetStream(h, current_stream(device)));
  TANDEM_CUBLAS_CHECK(
      cublasSetMathMode(h, tandem::allow_tf32() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  return h;
}

bool allow_tf32() { return tandem::allow_tf32(); }
void set_allow_tf32(bool allow) { tandem::set_allow_tf32(allow); }

}  // namespace tandem::cuda
