// Kernel slots of the discrete Fourier transforms (FFTW on the CPU, cuFFT on CUDA). A table of its own, like
// lapack_kernels.h: one library call per batch of transforms, no per-ISA builds, and a build without the
// library leaves the slots empty (the front end then raises "built without FFTW").
//
// Layout: `in` and `out` are contiguous tensors of shape (batch, n_1, ..., n_rank): the last `rank` dims are
// transformed together, the first is the batch. The front end (ops/fft.cpp) makes these copies and views.
// c2c: complex -> complex of one dtype, same shape. r2c: real (batch, n_1..n_rank) -> complex, the last dim
// n_rank / 2 + 1 (the non-redundant half). c2r: that half -> real (batch, n_1..n_rank); c2r may overwrite its
// input (FFTW's and cuFFT's multi-dimensional c2r do), so the front end passes a scratch copy. Every result
// is multiplied by `scale` (the normalization; 1 for none). Kernels never throw user-facing errors.
#pragma once
#include "core/device.h"
#include "core/tensor.h"

namespace tandem {

struct FftKernels {
  void (*c2c)(const Tensor& in, const Tensor& out, bool forward, double scale) = nullptr;
  void (*r2c)(const Tensor& in, const Tensor& out, double scale) = nullptr;
  void (*c2r)(const Tensor& in, const Tensor& out, double scale) = nullptr;
  // The most dims one call transforms (cuFFT plans have rank <= 3); the front end splits larger ones.
  int64_t max_rank = 0;
  // The library's name, for messages.
  const char* library = "";
};

// The table of a device type (empty slots where its backend has no FFT library). Starts the device type.
const FftKernels& fft_kernels(DeviceType type);
// Only backends call this, while they register (kernels/startup.cpp).
FftKernels& fft_kernels_for_registration(DeviceType type);

// Fillers, one per backend: CPU through FFTW (kernels/fft/fft_fftw.cpp; a no-op without it), real CUDA
// through cuFFT (kernels/cuda/fft_cufft.cu), emulated CUDA by wrapping the CPU's
// (kernels/emulated/emulated_fft.cpp).
void register_fft_cpu_kernels(FftKernels& table);
namespace cuda {
void register_fft_cufft_kernels(FftKernels& table);
}
namespace emulated {
void register_emulated_fft_kernels(FftKernels& table, const FftKernels& cpu);
}

}  // namespace tandem
