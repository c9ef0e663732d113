// The one entry point of a capability's CPU kernels: kernels/startup.cpp calls the chosen capability's.
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/isa_region.h"

TANDEM_CPU_KERNELS_BEGIN

void register_cpu_kernels(KernelTable& table) {
  register_elementwise_kernels(table);
  register_activation_kernels(table);
  register_reduce_kernels(table);
  register_index_kernels(table);
  register_random_kernels(table);
  register_linalg_kernels(table);
  register_nn_kernels(table);
}

TANDEM_CPU_KERNELS_END
