// Fillers of the meta device's tables (kernels/meta/meta_kernels.cpp): a no-work slot wherever the CPU has
// one.
#pragma once

namespace tandem {
struct KernelTable;
struct FftKernels;
struct LapackKernels;
}  // namespace tandem

namespace tandem::meta {
// NotImplementedError for an op whose result's shape depends on the values a meta tensor does not have (its
// kernel slot, or a front end that reads values to size its result, calls it).
[[noreturn]] void refuse_data_dependent(const char* op);
void register_meta_kernels(KernelTable& table, const KernelTable& cpu);
void register_meta_fft_kernels(FftKernels& table, const FftKernels& cpu);
void register_meta_lapack_kernels(LapackKernels& table, const LapackKernels& cpu);
}  // namespace tandem::meta
