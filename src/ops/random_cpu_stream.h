// The CPU draws in PyTorch's order. Each fills a contiguous CPU tensor element by element from the CPU
// generator's MT19937 stream (core/generator.h) with the transformations of PyTorch's CPU kernels, so that
// after manual_seed(s) rand, randn, randint, randperm, bernoulli, dropout masks and nn.init's fills give
// PyTorch's CPU values bit for bit (docs/devices.md, "Random numbers"). The front ends (ops/random.cpp) hand
// over tensors in PyTorch's iteration order.
#pragma once
#include <cstdint>
#include <type_traits>

#include "core/generator.h"
#include "core/tensor.h"

namespace tandem::cpu_stream {

// Floating `out`, each element from + (to - from) * u, u from the top bits of one draw (two for float64).
void uniform(const Tensor& out, Generator& g, double from, double to);
// Floating `out`, N(mean, std^2). `blockwise`: PyTorch's path for a contiguous tensor of 16 or more elements
// (all uniforms first, then Box-Muller over blocks of 16, the last block redrawn when 16 does not divide the
// size); otherwise one float64 Box-Muller pair per two elements, the second cached in the generator.
void normal(const Tensor& out, Generator& g, double mean, double std, bool blockwise);
// low + draw % range, any real dtype; one draw, or two when range >= 2^28 (PyTorch's bias bound) unless
// `one_word` (PyTorch's no-argument random_() of types narrower than 64 bits). range 0 stands for 2^64: the
// 64-bit draw itself, as an int64 (low is then int64's lowest, and not added).
void random(const Tensor& out, Generator& g, int64_t low, uint64_t range, bool one_word = false);
// 1 where a float64 uniform falls below p.
void bernoulli(const Tensor& out, Generator& g, double p);
// 1 where a uniform falls below p[i]: `probs` is contiguous float64 in out's shape; `float64_probs` says
// whether the caller's probabilities were float64 (float64 uniforms) or another float type (float32 ones).
void bernoulli(const Tensor& out, Generator& g, const Tensor& probs, bool float64_probs);
// The distributions PyTorch's CPU kernels draw as one float64 per element (its exponential_, cauchy_,
// log_normal_ and geometric_ with <double> distributions), with libm's functions, rounded to out's type:
// Exponential(a): -1/a * log1p(-u); Cauchy(a, b): a + b * tan(pi * (u - 1/2)); LogNormal(a, b): exp(z * b +
// a) with z the float64 normal (the cached pair); Geometric(a): ceil(log(u) / log1p(-a)). Geometric takes any
// real dtype, the others floating ones.
enum class DoubleDraw { Exponential, Cauchy, LogNormal, Geometric };
// A double as an integer type the way PyTorch's static_cast compiles on x86 (cvttsd2si): 64-bit types take
// INT64_MIN for a value past their range (or NaN), narrower ones convert through int32 (INT32_MIN past its
// range) and keep the low bits. What PyTorch's kernels store for such values, where C++ leaves it undefined.
template <typename T>
T x86_integer(double v) {
  if constexpr (sizeof(T) == 8) {
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return static_cast<T>(INT64_MIN);
    return static_cast<T>(static_cast<int64_t>(v));
  } else {
    const int32_t w = v >= -2147483648.0 && v < 2147483648.0 ? static_cast<int32_t>(v) : INT32_MIN;
    return static_cast<T>(w);
  }
}
void double_draws(const Tensor& out, Generator& g, DoubleDraw kind, double a, double b = 0.0);
// PyTorch's sampler with replacement: per row of `probs` (contiguous, floating, 1-D or 2-D, already checked:
// finite, non-negative, positive sums), the normalised running sums in the row's type (float for float16
// and bfloat16) and one float64 uniform per sample, placed by binary search. `out`: int64, rows x samples.
void multinomial_with_replacement(const Tensor& out, Generator& g, const Tensor& probs);
// Gamma(alpha, 1) per element of `alpha` (contiguous, out's shape and dtype): Marsaglia and Tsang's method
// with PyTorch's constants and float64 normals and uniforms, at least the dtype's smallest normal value.
void standard_gamma(const Tensor& out, Generator& g, const Tensor& alpha);
// Poisson(rate) per element of `rates` (contiguous, out's shape and dtype, checked non-negative): products of
// uniforms below rate 10, Hoermann's transformed rejection from 10 up.
void poisson(const Tensor& out, Generator& g, const Tensor& rates);
// Binomial(count, prob) per element (count, prob: contiguous, out's shape and dtype): PyTorch's inversion
// below count * min(p, 1 - p) = 10 and its BTRS above, with float64 uniforms.
void binomial(const Tensor& out, Generator& g, const Tensor& count, const Tensor& prob);
// A uniform permutation of 0..n-1 by PyTorch's Fisher-Yates walk (one 32-bit draw per swap).
void randperm(const Tensor& out, Generator& g);

}  // namespace tandem::cpu_stream
