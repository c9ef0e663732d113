// Registers emulated CUDA devices when TANDEM_EMULATE_CUDA=N asks for them.
#include <cstdlib>

#include "backend/emulated/emulated_backend.h"
#include "backend/emulated/register_emulated.h"
#include "core/error.h"

namespace tandem::emulated {

namespace {
EmulatedBackend* g_backend = nullptr;
constexpr size_t kDefaultCapacity = size_t{8} << 30;  // what get_device_properties reports unless capped
}  // namespace

EmulatedBackend& emulated_backend() { return *g_backend; }

bool register_emulated_cuda_from_env() {
  const char* n_text = std::getenv("TANDEM_EMULATE_CUDA");
  if (!n_text || !*n_text) return false;
  int n = std::atoi(n_text);
  if (n < 1) return false;
  size_t capacity = kDefaultCapacity;
  if (const char* cap = std::getenv("TANDEM_EMULATE_CUDA_MEMORY"); cap && *cap) {
    capacity = parse_memory_size(cap);
    TANDEM_CHECK(capacity > 0, Value, "TANDEM_EMULATE_CUDA_MEMORY='", cap,
                 "' is not a size\nhint: use a number of bytes or a unit, e.g. 512MiB or 2GiB");
  }
  // Leaked on purpose: tensors may be destroyed during interpreter shutdown, after static destructors.
  g_backend = new EmulatedBackend(n > 64 ? 64 : n, capacity);
  register_cuda_accelerator(g_backend);
  return true;
}

}  // namespace tandem::emulated
