#include "kernels/startup.h"

#include "backend/backend.h"
#include "backend/emulated/register_emulated.h"
#include "kernels/cpu_capability.h"
#include "kernels/fft_kernels.h"
#include "kernels/kernel_table.h"
#include "kernels/lapack_kernels.h"
#include "kernels/meta/meta_kernels.h"

// Each capability's build of src/kernels/cpu (kernels/cpu/isa_region.h) has its own entry point.
namespace tandem::cpu {
namespace baseline {
void register_cpu_kernels(KernelTable& table);
}
namespace avx2 {
void register_cpu_kernels(KernelTable& table);
}
namespace avx512 {
void register_cpu_kernels(KernelTable& table);
}
}  // namespace tandem::cpu

namespace tandem {

namespace {
void register_cpu_kernels_for_capability(KernelTable& kernels) {
  switch (cpu_capability()) {
#ifdef TANDEM_CPU_BUILT_AVX512
    case CpuCapability::Avx512:
      cpu::avx512::register_cpu_kernels(kernels);
      return;
#endif
#ifdef TANDEM_CPU_BUILT_AVX2
    case CpuCapability::Avx2:
      cpu::avx2::register_cpu_kernels(kernels);
      return;
#endif
    default:
      cpu::baseline::register_cpu_kernels(kernels);
  }
}

void start_cpu() {
  register_cpu_backend();
  register_lapack_cpu_kernels(lapack_kernels_for_registration(DeviceType::CPU));
  register_fft_cpu_kernels(fft_kernels_for_registration(DeviceType::CPU));
  register_cpu_kernels_for_capability(kernel_table_for_registration(DeviceType::CPU));
  guard_operand_dtypes(DeviceType::CPU);
}

// TANDEM_EMULATE_CUDA=N selects emulated devices (for testing GPU code paths anywhere), even in a CUDA build.
void start_cuda() {
  start_device_type(DeviceType::CPU);  // emulated kernels wrap the CPU's
  if (emulated::register_emulated_cuda_from_env()) {
    emulated::register_emulated_kernels(kernel_table_for_registration(DeviceType::CUDA));
    emulated::register_emulated_lapack_kernels(lapack_kernels_for_registration(DeviceType::CUDA),
                                               lapack_kernels_for_registration(DeviceType::CPU));
    emulated::register_emulated_fft_kernels(fft_kernels_for_registration(DeviceType::CUDA),
                                            fft_kernels_for_registration(DeviceType::CPU));
  } else {
    start_cuda_hardware();
  }
  guard_operand_dtypes(DeviceType::CUDA);
}

// Meta tables mirror the CPU's slots (same dtype refusals), with kernels that do no work (kernels/meta).
void start_meta() {
  start_device_type(DeviceType::CPU);
  register_meta_backend();
  meta::register_meta_lapack_kernels(lapack_kernels_for_registration(DeviceType::Meta),
                                     lapack_kernels_for_registration(DeviceType::CPU));
  meta::register_meta_fft_kernels(fft_kernels_for_registration(DeviceType::Meta),
                                  fft_kernels_for_registration(DeviceType::CPU));
  meta::register_meta_kernels(kernel_table_for_registration(DeviceType::Meta),
                              kernel_table_for_registration(DeviceType::CPU));
  guard_operand_dtypes(DeviceType::Meta);
}
}  // namespace

void start_runtime() {
  static const bool once = [] {
    set_device_type_starter(DeviceType::CPU, &start_cpu);
    set_device_type_starter(DeviceType::CUDA, &start_cuda);
    set_device_type_starter(DeviceType::Meta, &start_meta);
    return true;
  }();
  (void)once;
  start_device_type(DeviceType::CPU);
}

}  // namespace tandem
