// Linked when tandem is built without CUDA: the CUDA slot stays empty and says why.
#include "backend/backend.h"

namespace tandem {
void register_cuda_backend() {
  set_missing_backend_reason(DeviceType::CUDA,
                             "this tandem was built without CUDA support, so no 'cuda' device exists; "
                             "use device='cpu', or rebuild on a machine with the CUDA toolkit");
}
}  // namespace tandem
