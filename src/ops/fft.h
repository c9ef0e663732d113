// The discrete Fourier transforms under tandem.fft: PyTorch's three primitive ops (_fft_c2c, _fft_r2c,
// _fft_c2r), each over a list of dims with a normalization. python/tandem/fft.py builds fft/ifft/rfft/irfft/
// hfft/ihfft and their 2-d and n-d forms from these (argument bookkeeping: n/s, dim, norm, padding).
// Kernels: FFTW on the CPU, cuFFT on CUDA (kernels/fft_kernels.h).
#pragma once
#include "core/tensor.h"

namespace tandem {

// PyTorch's fft_norm_mode: what the result is multiplied by, n being the product of the signal sizes.
enum class FftNorm : int64_t {
  None = 0,     // 1
  ByRootN = 1,  // 1 / sqrt(n)
  ByN = 2,      // 1 / n
};

// Complex -> complex over `dims` (unique; any order), forward (exp(-i...)) or backward (exp(+i...)).
Tensor fft_c2c(const Tensor& x, IntArrayRef dims, FftNorm norm, bool forward);
// Real (float32/float64) -> complex, forward. onesided: dims.back() keeps n / 2 + 1 entries (the others are
// the conjugates of these); otherwise the full spectrum.
Tensor fft_r2c(const Tensor& x, IntArrayRef dims, FftNorm norm, bool onesided);
// The inverse of a onesided r2c: complex, dims.back() holding (at least) last_dim_size / 2 + 1 entries ->
// real with last_dim_size there. Backward direction.
Tensor fft_c2r(const Tensor& x, IntArrayRef dims, FftNorm norm, int64_t last_dim_size);

}  // namespace tandem
