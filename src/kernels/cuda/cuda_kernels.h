// Entry points that fill the CUDA kernel table, one per kernel family. The CUDA backend calls them at
// registration when a real device is present (the emulated device fills the same table from the CPU one).
#pragma once

namespace tandem {
struct KernelTable;
namespace cuda {
void register_elementwise_kernels(KernelTable& table);  // unary, binary, copy, where, clamp
void register_reduce_kernels(KernelTable& table);       // reduce, arg_reduce, cumsum, sort
void register_softmax_kernels(KernelTable& table);      // reduce.softmax
void register_index_kernels(KernelTable& table);
void register_random_kernels(KernelTable& table);       // draws, arange, linspace
void register_linalg_kernels(KernelTable& table);       // gemm through cuBLAS
void register_nn_kernels(KernelTable& table);           // im2col/col2im, pooling, optimizer steps

inline void register_all_kernels(KernelTable& table) {
  register_elementwise_kernels(table);
  register_reduce_kernels(table);
  register_softmax_kernels(table);
  register_index_kernels(table);
  register_random_kernels(table);
  register_linalg_kernels(table);
  register_nn_kernels(table);
}
}  // namespace cuda
}  // namespace tandem
