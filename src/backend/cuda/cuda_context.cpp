// What CUDA kernels get from the backend (cuda_context.h): streams, the device guard, scratch memory and
// the per-thread cuBLAS handles.
#include "backend/cuda/cuda_context.h"

#include <array>
#include <map>
#include <mutex>
#include <utility>

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

namespace {
// cuBLAS's workspace for gemms on `stream`, one per stream: a handle's default workspace would be shared by
// the gemms of every stream it is switched to, and two of them running at once would overwrite each other's.
// The size is NVIDIA's recommendation (32 MiB on Hopper and later, 4 MiB before). Streams live as long as the
// process, and so do their workspaces (never freed, like the handles).
std::pair<void*, size_t> gemm_workspace(Device device, cudaStream_t stream) {
  static std::mutex mutex;
  static auto* workspaces = new std::map<std::pair<int, cudaStream_t>, std::pair<DataPtr, size_t>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = workspaces->try_emplace({device.index, stream});
  if (inserted) {
    try {
      int major = 0;
      TANDEM_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device.index));
      size_t nbytes = (major >= 9 ? size_t{32} : size_t{4}) << 20;
      it->second = {cuda_runtime().allocate_on(nbytes, device.index, stream), nbytes};
    } catch (...) {  // out of memory: nothing is kept, the next gemm tries again
      workspaces->erase(it);
      throw;
    }
  }
  return {it->second.first.ptr, it->second.second};
}
}  // namespace

// One handle per thread and device (a cuBLAS handle must not be shared between threads). Never destroyed:
// a thread-exit or shutdown-time cublasDestroy could run after the CUDA runtime's own teardown.
cublasHandle_t cublas_handle(Device device) {
  thread_local std::array<cublasHandle_t, 64> handles{};
  cublasHandle_t& h = handles[device.index];
  if (!h) {
    DeviceGuard guard(device);
    TANDEM_CUBLAS_CHECK(cublasCreate(&h));
  }
  cudaStream_t stream = current_stream(device);
  TANDEM_CUBLAS_CHECK(cublasSetStream(h, stream));
  // cublasSetStream has just reset the workspace to the handle's default: bind the stream's own.
  auto [workspace, workspace_bytes] = gemm_workspace(device, stream);
  TANDEM_CUBLAS_CHECK(cublasSetWorkspace(h, workspace, workspace_bytes));
  TANDEM_CUBLAS_CHECK(
      cublasSetMathMode(h, tandem::allow_tf32() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  return h;
}

bool allow_tf32() { return tandem::allow_tf32(); }
void set_allow_tf32(bool allow) { tandem::set_allow_tf32(allow); }

}  // namespace tandem::cuda
