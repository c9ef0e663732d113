// A device is a type plus an index: a value type small enough to pass by value everywhere.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace tandem {

// Meta tensors have sizes, strides and a dtype but no memory: ops on them compute only the result's metadata
// (backend/meta), as PyTorch's meta device, for shape inference and for building a model before it has
// storage.
enum class DeviceType : int8_t { CPU = 0, CUDA = 1, Meta = 2 };
constexpr int kNumDeviceTypes = 3;

struct Device {
  DeviceType type = DeviceType::CPU;
  // -1: "the current one" for CUDA; CPU and meta tensors always report -1 (printed as "cpu", "meta").
  int16_t index = -1;

  constexpr Device() = default;
  constexpr Device(DeviceType t, int16_t i = -1) : type(t), index(t == DeviceType::CUDA ? i : -1) {}
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool is_meta() const { return type == DeviceType::Meta; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;  // "cpu", "cuda", "cuda:1"
};

// Parses "cpu", "cuda", "cuda:1"; throws a ValueError/RuntimeError naming the accepted forms.
Device parse_device(std::string_view text);
std::string_view device_type_name(DeviceType t);

}  // namespace tandem
