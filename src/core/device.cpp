#include "core/device.h"

#include <cctype>
#include <charconv>

#include "core/error.h"

namespace tandem {

namespace {
// PyTorch's device type names, in its order, indexed by DeviceType after cpu, cuda and meta.
constexpr std::string_view kOtherTypeNames[] = {"ipu",    "xpu", "mkldnn", "opengl", "opencl",       "ideep",
                                                "hip",    "ve",  "fpga",   "maia",   "xla",          "lazy",
                                                "vulkan", "mps", "hpu",    "mtia",   "privateuseone"};
constexpr int kNumOtherTypes = sizeof(kOtherTypeNames) / sizeof(kOtherTypeNames[0]);
static_assert(static_cast<int>(DeviceType::PrivateUse1) == kNumDeviceTypes + kNumOtherTypes - 1);
}  // namespace

std::string_view device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::CPU:
      return "cpu";
    case DeviceType::CUDA:
      return "cuda";
    case DeviceType::Meta:
      return "meta";
    default:
      return kOtherTypeNames[static_cast<int>(t) - kNumDeviceTypes];
  }
}

void check_has_backend(Device d) {
  TANDEM_CHECK(
      has_backend(d.type), Runtime, "PyTorch is not linked with support for ", device_type_name(d.type),
      " devices\nhint: tandem runs on cpu, cuda (real or emulated, TANDEM_EMULATE_CUDA) and meta; a ",
      device_type_name(d.type), " device object can be made and compared, but no tensor can be there");
}

std::string Device::str() const {
  std::string s(device_type_name(type));
  if (index >= 0) s += ":" + std::to_string(index);
  return s;
}

namespace {
// PyTorch's shape of a device string, checked before the type is looked up: letters and underscores, then
// optionally ':' and an index without leading zeros.
bool well_formed_device_string(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
  if (i == 0) return false;
  if (i == text.size()) return true;
  if (text[i] != ':' || i + 1 == text.size()) return false;
  const std::string_view digits = text.substr(i + 1);
  if (digits.size() > 1 && digits[0] == '0') return false;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}
}  // namespace

Device parse_device(std::string_view text) {
  const Device d = parse_any_device(text);
  check_has_backend(d);
  return d;
}

Device parse_any_device(std::string_view text) {
  TANDEM_CHECK(!text.empty(), Runtime,
               "Device string must not be empty\nhint: use 'cpu', 'cuda' or 'cuda:N'");
  TANDEM_CHECK(well_formed_device_string(text), Runtime, "Invalid device string: '", text,
               "'\nhint: use 'cpu', 'cuda' or 'cuda:N' with N >= 0");
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
  } else if (kind == "meta") {
    type = DeviceType::Meta;
  } else {
    int other = 0;
    while (other < kNumOtherTypes && kOtherTypeNames[other] != kind) ++other;
    TANDEM_CHECK(
        other < kNumOtherTypes, Runtime,
        "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, "
        "lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: ",
        text, "\nhint: tandem runs on 'cpu', 'cuda' or 'cuda:N', and 'meta'");
    type = static_cast<DeviceType>(kNumDeviceTypes + other);
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
