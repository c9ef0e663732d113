// The CPU backend: host memory and memcpy.
#include <cstring>

#include "backend/backend.h"
#include "backend/cpu/cpu_allocator.h"
#include "core/long_work.h"

namespace tandem {
namespace {

// A copy of a megabyte or more takes long enough to let other Python threads run meanwhile.
void host_copy(void* dst, const void* src, size_t n) {
  if (n < (size_t{1} << 20)) {
    std::memcpy(dst, src, n);
    return;
  }
  LongWorkRegion region;
  std::memcpy(dst, src, n);
}

class CpuBackend final : public Backend {
 public:
  DataPtr allocate(size_t nbytes, Device) override { return cpu_allocate(nbytes); }
  void copy_host_to_device(void* dst, const void* src, size_t n, Device) override { host_copy(dst, src, n); }
  void copy_device_to_host(void* dst, const void* src, size_t n, Device) override { host_copy(dst, src, n); }
  void copy_within_device(void* dst, const void* src, size_t n, Device) override { host_copy(dst, src, n); }
  void synchronize(Device) override {}
  int device_count() const override { return 1; }
  size_t live_bytes() override { return cpu_allocator_stats().allocated_bytes; }
};

}  // namespace

void register_cpu_backend() {
  static CpuBackend backend;
  register_backend(DeviceType::CPU, &backend);
}

}  // namespace tandem
