#include "backend/accelerator.h"

#include "core/error.h"

namespace tandem {

namespace {
AcceleratorBackend* g_cuda = nullptr;
}

void register_cuda_accelerator(AcceleratorBackend* backend) {
  g_cuda = backend;
  register_backend(DeviceType::CUDA, backend);
}

bool cuda_available() {
  start_device_type(DeviceType::CUDA);
  return g_cuda != nullptr && g_cuda->device_count() > 0;
}

AcceleratorBackend& cuda_backend() {
  start_device_type(DeviceType::CUDA);
  if (g_cuda) return *g_cuda;
  backend_for(DeviceType::CUDA);  // throws the reason CUDA is missing
  TANDEM_THROW(Runtime, "no CUDA backend");
}

}  // namespace tandem
