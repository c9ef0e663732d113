#include "kernels/kernel_table.h"

#include <atomic>

#include "core/device_registry.h"
#include "kernels/startup.h"

namespace tandem {

namespace {
const char* const kUnaryNames[] = {
#define TANDEM_UNARY_OP(name, functor, rule, ...) #name,
#include "kernels/op_list.def"
#undef TANDEM_UNARY_OP
};
const char* const kBinaryNames[] = {
#define TANDEM_BINARY_OP(name, functor, rule, ...) #name,
#include "kernels/op_list.def"
#undef TANDEM_BINARY_OP
};
}  // namespace

const char* unary_op_name(UnaryOp op) { return kUnaryNames[static_cast<int>(op)]; }
const char* binary_op_name(BinaryOp op) { return kBinaryNames[static_cast<int>(op)]; }

KernelTable& kernel_table_for_registration(DeviceType type) {
  static KernelTable tables[kNumDeviceTypes];
  return tables[static_cast<int>(type)];
}

CpuStreamKernels& cpu_stream_kernels() {
  static CpuStreamKernels kernels;
  return kernels;
}

KernelTable& kernel_table(DeviceType type) {
  // Every op looks its table up: after the first lookup of a type, one relaxed load decides.
  static std::atomic<bool> ready[kNumDeviceTypes];
  std::atomic<bool>& r = ready[static_cast<int>(type)];
  if (__builtin_expect(!r.load(std::memory_order_acquire), 0)) {
    start_runtime();
    start_device_type(type);
    r.store(true, std::memory_order_release);
  }
  return kernel_table_for_registration(type);
}

}  // namespace tandem
