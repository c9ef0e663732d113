// The CUDA random family is split over several .cu files; register_random_kernels calls these. sort_pairs
// is the one CUB radix sort they share, instantiated once in sort_pairs.cu (CUB is slow to compile).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/device.h"

namespace tandem {
struct KernelTable;
namespace cuda {
void register_randperm_kernel(KernelTable& table);     // random_randperm_kernel.cu
void register_multinomial_kernel(KernelTable& table);  // random_multinomial_kernel.cu
void register_range_kernels(KernelTable& table);       // random_range_kernels.cu: arange, linspace
void register_gamma_kernels(KernelTable& table);       // random_gamma_kernels.cu: gamma, poisson, binomial

// Stable sort of n (key, value) pairs by the key bits [0, end_bit) on `stream`: equal keys keep their input
// order. Inputs are left unchanged; scratch memory comes from allocate_scratch.
void sort_pairs(const uint64_t* keys_in, uint64_t* keys_out, const int64_t* values_in, int64_t* values_out,
                int64_t n, int end_bit, Device device, cudaStream_t stream);
// out[i] = i for i < n (n > 0), on `stream`: the values sort_pairs carries along.
void fill_iota(int64_t* out, int64_t n, cudaStream_t stream);
}  // namespace cuda
}  // namespace tandem
