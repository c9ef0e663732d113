// The meta backend (PyTorch's meta device): tensors with sizes, strides and a dtype but no memory. Allocation
// hands out no memory, writes into a meta tensor are dropped, and reading one out is PyTorch's
// NotImplementedError, so every front end that would look at values (printing them, .cpu(), .tolist(), a
// data-dependent shape) stops with a clear error at the one copy function instead of reading nothing.
#include <cstdint>

#include "backend/backend.h"
#include "core/error.h"

namespace tandem {
namespace {

class MetaBackend final : public Backend {
 public:
  // Not null: front ends still form element addresses (storage + offset) for the kernels, and an offset added
  // to a null pointer is undefined behaviour (UBSan reports it). The address lies in the first pages, which
  // Linux never maps (vm.mmap_min_addr), so a read through it would fault at once; meta kernels read nothing.
  DataPtr allocate(size_t, Device) override {
    return DataPtr(reinterpret_cast<void*>(kNoMemory), nullptr, nullptr);
  }
  static constexpr uintptr_t kNoMemory = 4096;
  // 'meta:1' and 'meta' are the same device: meta tensors carry no index, as PyTorch's.
  Device resolve(Device) override { return Device(DeviceType::Meta); }
  void copy_host_to_device(void*, const void*, size_t, Device) override {}
  void copy_device_to_host(void*, const void*, size_t, Device) override {
    TANDEM_THROW(
        NotImplemented,
        "Cannot copy out of meta tensor; no data!\nhint: a meta tensor has a shape and a dtype but no "
        "values; make the tensor on a real device (module.to_empty(device=...) gives a meta module "
        "memory, then load or initialise its values)");
  }
  void copy_within_device(void*, const void*, size_t, Device) override {}
  void synchronize(Device) override {}
  int device_count() const override { return 1; }
  size_t live_bytes() override { return 0; }
};

}  // namespace

void register_meta_backend() {
  static MetaBackend backend;
  register_backend(DeviceType::Meta, &backend);
}

}  // namespace tandem
