#include "backend/backend.h"

#include <array>

namespace tandem {

namespace {
std::array<Backend*, kNumDeviceTypes>& table() {
  static std::array<Backend*, kNumDeviceTypes> t{};
  return t;
}
}  // namespace

void register_backend(DeviceType type, Backend* backend) {
  table()[static_cast<int>(type)] = backend;
  register_allocator(type, backend);
}

Backend& backend_for(DeviceType type) {
  start_device_type(type);
  Backend* b = table()[static_cast<int>(type)];
  if (__builtin_expect(b != nullptr, 1)) return *b;
  throw_missing_device(type);
}

}  // namespace tandem
