#include "backend/backend.h"

#include <array>

#include "core/error.h"

namespace tandem {

namespace {
std::array<Backend*, kNumDeviceTypes>& table() {
  static std::array<Backend*, kNumDeviceTypes> t{};
  return t;
}
std::array<Backend*, kNumDeviceTypes>& registry() {
  ensure_builtin_backends();
  return table();
}
struct MissingReason {
  std::string first_line = "Torch not compiled with CUDA enabled", hint;
};
std::array<MissingReason, kNumDeviceTypes>& missing_reasons() {
  static std::array<MissingReason, kNumDeviceTypes> reasons{};
  return reasons;
}
}  // namespace

// Built-in backends register on first use: static initialisers in a static library may never run.
void ensure_builtin_backends() {
  static const bool once = (register_builtin_backends(), true);
  (void)once;
}

void register_backend(DeviceType type, Backend* backend) { table()[static_cast<int>(type)] = backend; }
bool has_backend(DeviceType type) { return registry()[static_cast<int>(type)] != nullptr; }
void set_missing_backend_reason(DeviceType type, std::string reason, std::string first_line) {
  missing_reasons()[static_cast<int>(type)] = {std::move(first_line), std::move(reason)};
}

Backend& backend_for(DeviceType type) {
  Backend* b = registry()[static_cast<int>(type)];
  if (__builtin_expect(b != nullptr, 1)) return *b;
  const MissingReason& missing = missing_reasons()[static_cast<int>(type)];
  const std::string& why = missing.hint;
  TANDEM_THROW(Runtime, missing.first_line, "\nhint: ",
               why.empty() ? std::string("tandem has no ") + std::string(device_type_name(type)) +
                                 " backend in this build; use device='cpu'"
                           : why);
}

}  // namespace tandem
