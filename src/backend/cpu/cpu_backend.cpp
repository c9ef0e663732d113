// The CPU backend: host memory and memcpy. Registered at load time.
#include <cstring>

#include "backend/backend.h"
#include "backend/cpu/cpu_allocator.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_table.h"

namespace tandem {
namespace {

class CpuBackend final : public Backend {
 public:
  DataPtr allocate(size_t nbytes, Device) override { return cpu_allocate(nbytes); }
  void copy_host_to_device(void* dst, const void* src, size_t n, Device) override { std::memcpy(dst, src, n); }
  void copy_device_to_host(void* dst, const void* src, size_t n, Device) override { std::memcpy(dst, src, n); }
  void copy_within_device(void* dst, const void* src, size_t n, Device) override { std::memcpy(dst, src, n); }
  void synchronize(Device) override {}
  int device_count() const override { return 1; }
};

}  // namespace

void register_cpu_backend() {
  static CpuBackend backend;
  register_backend(DeviceType::CPU, &backend);
  KernelTable& kernels = kernel_table_for_registration(DeviceType::CPU);
  cpu::register_elementwise_kernels(kernels);
  cpu::register_reduce_kernels(kernels);
  cpu::register_index_kernels(kernels);
  cpu::register_random_kernels(kernels);
  cpu::register_linalg_kernels(kernels);
  cpu::register_nn_kernels(kernels);
}

}  // namespace tandem
