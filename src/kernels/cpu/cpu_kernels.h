// Entry points that fill the CPU kernel table, one per kernel family (one .cpp each).
#pragma once

namespace tandem {
struct KernelTable;
namespace cpu {
void register_elementwise_kernels(KernelTable& table);
void register_reduce_kernels(KernelTable& table);
void register_index_kernels(KernelTable& table);
void register_random_kernels(KernelTable& table);
void register_linalg_kernels(KernelTable& table);
void register_nn_kernels(KernelTable& table);
}  // namespace cpu
}  // namespace tandem
