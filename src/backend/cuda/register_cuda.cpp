// Linked when tandem is built with CUDA: registers the real devices. With no GPU or driver the 'cuda' slot
// stays empty with CUDA's own explanation, while everything on the CPU keeps working. (Emulated devices,
// which TANDEM_EMULATE_CUDA selects instead, are chosen by kernels/startup.cpp before this runs.)
#include <cuda_runtime_api.h>

#include <string>

#include "backend/backend.h"
#include "backend/cuda/cuda_backend.h"

namespace tandem {

namespace cuda {
namespace {
CudaBackend* g_runtime = nullptr;
}
CudaBackend& cuda_runtime() { return *g_runtime; }
}  // namespace cuda

namespace {
// PyTorch's words for each way of finding no usable GPU.
std::string no_gpu_message(cudaError_t err) {
  if (err == cudaErrorInsufficientDriver)
    return "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
           "driver from http://www.nvidia.com/Download/index.aspx";
  if (err == cudaSuccess || err == cudaErrorNoDevice) return "No CUDA GPUs are available";
  return "CUDA driver initialization failed, you might not have a CUDA gpu.";
}

std::string no_gpu_hint(cudaError_t err) {
  std::string cause = err == cudaSuccess
                          ? std::string("the driver reports 0 devices")
                          : std::string(cudaGetErrorString(err)) + " (" + cudaGetErrorName(err) + ")";
  return "this tandem was built with CUDA but found no CUDA GPU or driver (" + cause +
         "); use device='cpu', run on a machine with an NVIDIA GPU and its driver, or set "
         "TANDEM_EMULATE_CUDA=1 "
         "to test GPU code paths on emulated devices";
}
}  // namespace

bool register_cuda_backend() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    (void)cudaGetLastError();  // the library stays usable on the CPU
    set_missing_device_reason(DeviceType::CUDA, no_gpu_hint(err), no_gpu_message(err));
    return false;
  }
  // Leaked on purpose: tensors may be destroyed during interpreter shutdown, after static destructors.
  cuda::g_runtime = new cuda::CudaBackend(count);
  register_cuda_accelerator(cuda::g_runtime);
  return true;
}

}  // namespace tandem
