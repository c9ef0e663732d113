// Entry points that fill the CPU kernel table, one per kernel family (one .cpp each), and the one start-up
// calls for the chosen capability (register_cpu_kernels.cpp).
#pragma once
#include "kernels/cpu/isa_region.h"

namespace tandem {
struct KernelTable;
}

TANDEM_CPU_KERNELS_BEGIN
void register_cpu_kernels(KernelTable& table);
void register_elementwise_kernels(KernelTable& table);
void register_activation_kernels(KernelTable& table);
void register_reduce_kernels(KernelTable& table);
void register_index_kernels(KernelTable& table);
void register_random_kernels(KernelTable& table);
void register_linalg_kernels(KernelTable& table);
void register_nn_kernels(KernelTable& table);
TANDEM_CPU_KERNELS_END
