// Recording entry points of the FFT ops (ops/fft.h): each takes the input and the output the front end
// computed with grad mode off, and attaches the node. The formulas are PyTorch's (FunctionsManual.cpp,
// fft_r2c_backward / fft_c2r_backward), written with the FFT ops themselves, so they run on every device and
// can be differentiated again.
#pragma once
#include "core/tensor.h"
#include "ops/fft.h"

namespace tandem::autograd {

// c2c's gradient: the c2c of the incoming one in the other direction, with the same normalization.
Tensor record_fft_c2c(const Tensor& x, IntArrayRef dims, FftNorm norm, bool forward, const Tensor& out);
// Onesided r2c: the incoming gradient zero-padded to the full spectrum along dims.back(), its backward c2c,
// real.
Tensor record_fft_r2c(const Tensor& x, IntArrayRef dims, FftNorm norm, const Tensor& out);
// c2r: the onesided r2c of the incoming gradient, the entries that stand for two (all but the first and, for
// an even length, the last) doubled.
Tensor record_fft_c2r(const Tensor& x, IntArrayRef dims, FftNorm norm, const Tensor& out);

}  // namespace tandem::autograd
