// The CUDA slot of a build without nvcc: it stays empty (unless TANDEM_EMULATE_CUDA fills it with emulated
// devices, see kernels/startup.cpp), and its error says why.
#include "core/device_registry.h"
#include "kernels/startup.h"

namespace tandem {

bool cuda_backend_built() { return false; }

void start_cuda_hardware() {
  set_missing_device_reason(DeviceType::CUDA,
                            "this tandem was built without CUDA support, so no 'cuda' device exists; use "
                            "device='cpu', rebuild on a machine with the CUDA toolkit, or set "
                            "TANDEM_EMULATE_CUDA=1 to test GPU code paths on emulated devices");
}

}  // namespace tandem
