// The CPU's FFT kernel slots (FFTW, kernels/fft_kernels.h) against a direct O(n^2) DFT in double precision,
// on the layouts the front end hands them: (batch, n_1, ..., n_k) contiguous, ranks 1-3, odd, even, prime and
// unit lengths, with a scale. Skipped in a build without FFTW (the slots are empty).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

#include "core/tensor.h"
#include "kernels/fft_kernels.h"

using namespace tandem;

namespace {

using C = std::complex<double>;

// The direct DFT over the last k dims of a (batch, n_1..n_k) array of complex values (sign -1: forward).
std::vector<C> direct_dft(const std::vector<C>& x, const DimVector& shape, int sign) {
  const size_t k = shape.size() - 1;
  int64_t per = 1;
  for (size_t i = 1; i <= k; ++i) per *= shape[i];
  std::vector<C> out(x.size());
  std::vector<int64_t> a(k), b(k);
  for (int64_t batch = 0; batch < shape[0]; ++batch)
    for (int64_t o = 0; o < per; ++o) {
      for (int64_t r = o, i = static_cast<int64_t>(k) - 1; i >= 0; --i) {
        b[i] = r % shape[i + 1];
        r /= shape[i + 1];
      }
      C sum = 0;
      for (int64_t p = 0; p < per; ++p) {
        double phase = 0;
        for (int64_t r = p, i = static_cast<int64_t>(k) - 1; i >= 0; --i) {
          a[i] = r % shape[i + 1];
          r /= shape[i + 1];
          phase += static_cast<double>(a[i] * b[i]) / static_cast<double>(shape[i + 1]);
        }
        sum += x[batch * per + p] * std::polar(1.0, sign * 2 * M_PI * phase);
      }
      out[batch * per + o] = sum;
    }
  return out;
}

std::vector<C> sample(size_t count, bool real) {
  std::vector<C> v(count);
  for (size_t i = 0; i < count; ++i)
    v[i] =
        C(std::sin(0.7 * static_cast<double>(i) + 0.3), real ? 0.0 : std::cos(1.3 * static_cast<double>(i)));
  return v;
}

Tensor complex_tensor(const std::vector<C>& v, const DimVector& shape) {
  Tensor t = empty(shape, DType::Complex128);
  std::copy(v.begin(), v.end(), static_cast<C*>(t.data_ptr()));
  return t;
}

const FftKernels& cpu_fft() { return fft_kernels(DeviceType::CPU); }

class FftSlots : public ::testing::TestWithParam<DimVector> {};

TEST_P(FftSlots, C2CMatchesTheDirectTransform) {
  if (!cpu_fft().c2c) GTEST_SKIP() << "built without FFTW";
  const DimVector shape = GetParam();
  const std::vector<C> x = sample(static_cast<size_t>(compute_numel(shape)), false);
  for (bool forward : {true, false}) {
    Tensor out = empty(shape, DType::Complex128);
    cpu_fft().c2c(complex_tensor(x, shape), out, forward, 0.5);
    const std::vector<C> want = direct_dft(x, shape, forward ? -1 : 1);
    const C* got = static_cast<const C*>(out.data_ptr());
    for (size_t i = 0; i < want.size(); ++i) ASSERT_LT(std::abs(got[i] - 0.5 * want[i]), 1e-9) << i;
  }
}

TEST_P(FftSlots, R2CAndC2RMatchTheDirectTransform) {
  if (!cpu_fft().r2c) GTEST_SKIP() << "built without FFTW";
  const DimVector shape = GetParam();
  const std::vector<C> x = sample(static_cast<size_t>(compute_numel(shape)), true);
  const std::vector<C> spectrum = direct_dft(x, shape, -1);
  DimVector half = shape;
  half[half.size() - 1] = shape.back() / 2 + 1;
  Tensor real = empty(shape, DType::Float64);
  for (size_t i = 0; i < x.size(); ++i) real.data<double>()[i] = x[i].real();
  Tensor out = empty(half, DType::Complex128);
  cpu_fft().r2c(real, out, 1.0);
  // The onesided result is the full spectrum's first n / 2 + 1 entries along the last dim.
  const int64_t n = shape.back(), h = half.back(), rows = compute_numel(shape) / n;
  const C* got = static_cast<const C*>(out.data_ptr());
  std::vector<C> onesided;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < h; ++j) {
      ASSERT_LT(std::abs(got[r * h + j] - spectrum[r * n + j]), 1e-9) << r << "," << j;
      onesided.push_back(spectrum[r * n + j]);
    }
  // c2r of it (scaled by 1 / numel of one transform) gives the signal back.
  const double per = static_cast<double>(compute_numel(shape) / shape[0]);
  Tensor back = empty(shape, DType::Float64);
  cpu_fft().c2r(complex_tensor(onesided, half), back, 1.0 / per);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_LT(std::abs(back.data<double>()[i] - x[i].real()), 1e-9) << i;
}

INSTANTIATE_TEST_SUITE_P(Layouts, FftSlots,
                         ::testing::Values(DimVector{1, 8}, DimVector{3, 7}, DimVector{2, 1},
                                           DimVector{1, 13}, DimVector{2, 4, 6}, DimVector{1, 5, 3},
                                           DimVector{2, 3, 1, 4}, DimVector{1, 17, 40}));

}  // namespace
