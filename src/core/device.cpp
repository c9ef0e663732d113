#include "core/device.h"

#include <charconv>

#include "core/error.h"

namespace tandem {

std::string_view device_type_name(DeviceType t) { return t == DeviceType::CPU ? "cpu" : "cuda"; }

std::string Device::str() const {
  std::string s(device_type_name(type));
  if (index >= 0) s += ":" + std::to_string(index);
  return s;
}

Device parse_device(std::string_view text) {
  std::string_view kind = text, idx;
  if (auto colon = text.find(':'); colon != std::string_view::npos) {
    kind = text.substr(0, colon);
    idx = text.substr(colon + 1);
  }
  DeviceType type;
  if (kind == "cpu") {
    type = DeviceType::CPU;
  } else if (kind == "cuda") {
    type = DeviceType::CUDA;
  } else {
    TANDEM_THROW(Runtime, "Expected one of cpu, cuda device type at start of device string: ", text);
  }
  if (idx.empty() && text.find(':') == std::string_view::npos) return Device(type);
  int value = -1;
  auto [end, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), value);
  TANDEM_CHECK(ec == std::errc() && end == idx.data() + idx.size() && value >= 0 && value < 32768, Runtime,
               "Invalid device string: '", text, "'\nhint: use 'cpu', 'cuda' or 'cuda:N' with N >= 0");
  TANDEM_CHECK(type != DeviceType::CPU || value == 0, Runtime,
               "CPU device index must be -1 or zero, got ", value);
  return Device(type, static_cast<int16_t>(value));
}

}  // namespace tandem
