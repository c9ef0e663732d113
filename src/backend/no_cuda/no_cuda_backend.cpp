// Linked when tandem is built without CUDA: the CUDA slot holds emulated devices when TANDEM_EMULATE_CUDA
// asks for them, and otherwise stays empty with the reason.
#include "backend/backend.h"
#include "backend/emulated/register_emulated.h"

namespace tandem {
bool cuda_backend_built() { return false; }
void register_cuda_backend() {
  if (emulated::register_emulated_cuda_from_env()) return;
  set_missing_backend_reason(DeviceType::CUDA,
                             "this tandem was built without CUDA support, so no 'cuda' device exists; use "
                             "device='cpu', rebuild on a machine with the CUDA toolkit, or set "
                             "TANDEM_EMULATE_CUDA=1 to test GPU code paths on emulated devices");
}
}  // namespace tandem
