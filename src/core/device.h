// A device is a type plus an index: a value type small enough to pass by value everywhere.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace tandem {

// Meta tensors have sizes, strides and a dtype but no memory: ops on them compute only the result's metadata
// (backend/meta), as PyTorch's meta device, for shape inference and for building a model before it has
// storage.
//
// The types after Meta are PyTorch's other device types: tandem has no backend for them, but a device object
// of such a type can be made, printed and compared (programs build torch.device("mps") without using it); no
// tensor is ever on one. kNumDeviceTypes counts the types with a backend, which the tables indexed by
// DeviceType hold.
enum class DeviceType : int8_t {
  CPU = 0,
  CUDA = 1,
  Meta = 2,
  IPU,
  XPU,
  MKLDNN,
  OpenGL,
  OpenCL,
  IDEEP,
  HIP,
  VE,
  FPGA,
  MAIA,
  XLA,
  Lazy,
  Vulkan,
  MPS,
  HPU,
  MTIA,
  PrivateUse1
};
constexpr int kNumDeviceTypes = 3;
constexpr bool has_backend(DeviceType t) { return static_cast<int>(t) < kNumDeviceTypes; }

struct Device {
  DeviceType type = DeviceType::CPU;
  // -1: "the current one" for CUDA; CPU and meta tensors always report -1 (printed as "cpu", "meta").
  int16_t index = -1;

  constexpr Device() = default;
  constexpr Device(DeviceType t, int16_t i = -1)
      : type(t), index(t == DeviceType::CPU || t == DeviceType::Meta ? -1 : i) {}
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool is_meta() const { return type == DeviceType::Meta; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;  // "cpu", "cuda", "cuda:1"
};

// Parses "cpu", "cuda", "cuda:1"; throws a RuntimeError naming the accepted forms, or, for PyTorch's other
// device types ("mps", "xpu:1"), PyTorch's "not linked with support" error.
Device parse_device(std::string_view text);
// parse_device that also returns PyTorch's other device types (for device objects only).
Device parse_any_device(std::string_view text);
// Throws PyTorch's "PyTorch is not linked with support for mps devices" for a type without a backend.
void check_has_backend(Device d);
std::string_view device_type_name(DeviceType t);

}  // namespace tandem
