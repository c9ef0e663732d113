#include "kernels/startup.h"

#include "backend/backend.h"
#include "backend/emulated/register_emulated.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_table.h"

namespace tandem {

namespace {
void start_cpu() {
  register_cpu_backend();
  KernelTable& kernels = kernel_table_for_registration(DeviceType::CPU);
  cpu::register_elementwise_kernels(kernels);
  cpu::register_reduce_kernels(kernels);
  cpu::register_index_kernels(kernels);
  cpu::register_random_kernels(kernels);
  cpu::register_linalg_kernels(kernels);
  cpu::register_nn_kernels(kernels);
}

// TANDEM_EMULATE_CUDA=N selects emulated devices (for testing GPU code paths anywhere), even in a CUDA build.
void start_cuda() {
  start_device_type(DeviceType::CPU);  // emulated kernels wrap the CPU's
  if (emulated::register_emulated_cuda_from_env()) {
    emulated::register_emulated_kernels(kernel_table_for_registration(DeviceType::CUDA));
    return;
  }
  start_cuda_hardware();
}
}  // namespace

void start_runtime() {
  static const bool once = [] {
    set_device_type_starter(DeviceType::CPU, &start_cpu);
    set_device_type_starter(DeviceType::CUDA, &start_cuda);
    return true;
  }();
  (void)once;
  start_device_type(DeviceType::CPU);
}

}  // namespace tandem
