// The distributions, written once for the CPU and CUDA loops. Each turns one Philox block (four 32-bit
// words) into kPerBlock values: value j of block b is element b * kPerBlock + j of the draw, so an element's
// value depends only on (seed, offset, index). Front ends reserve ceil(n / kPerBlock) blocks per draw.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/dtype.h"
#include "core/macros.h"
#include "core/philox.h"
#include "kernels/random_math.h"

namespace tandem {

// Mantissa bits of each floating type: uniform values are multiples of 2^-digits, so they are exact in the
// output type and never round up to 1 (PyTorch draws the same way).
template <typename T>
constexpr int uniform_digits() {
  if constexpr (std::is_same_v<T, double>)
    return 53;
  else if constexpr (std::is_same_v<T, float>)
    return 24;
  else if constexpr (std::is_same_v<T, Half>)
    return 11;
  else
    return 8;  // BFloat16
}

TANDEM_HOST_DEVICE TANDEM_INLINE uint64_t join_words(uint32_t hi, uint32_t lo) {
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

// U[from, to) for a floating T. Doubles take two words, the rest one.
template <typename T>
struct UniformDist {
  using value_type = T;
  using acc_t = opmath_t<T>;
  static constexpr int kPerBlock = std::is_same_v<T, double> ? 2 : 4;
  acc_t from, range, to;

  TANDEM_HOST_DEVICE void operator()(const PhiloxWords& b, T* out) const {
    constexpr int d = uniform_digits<T>();
    for (int j = 0; j < kPerBlock; ++j) {
      acc_t u;
      if constexpr (std::is_same_v<T, double>)
        u = static_cast<double>(join_words(b.w[2 * j], b.w[2 * j + 1]) >> 11) * 0x1p-53;
      else
        u = static_cast<float>(b.w[j] >> (32 - d)) * (1.0f / static_cast<float>(1u << d));
      T v = static_cast<T>(u * range + from);
      // Rounding u * range + from can land on `to` when from != 0; fold it back to keep [from, to).
      out[j] = static_cast<acc_t>(v) >= to ? static_cast<T>(from) : v;
    }
  }
};

// N(mean, std^2) by the Box-Muller transform: each pair of uniforms gives two normals. Doubles use two words
// per uniform, so a block holds one pair; the other types get two pairs per block.
template <typename T>
struct NormalDist {
  using value_type = T;
  using acc_t = opmath_t<T>;
  static constexpr int kPerBlock = std::is_same_v<T, double> ? 2 : 4;
  acc_t mean, std;

  TANDEM_HOST_DEVICE void pair(acc_t u1, acc_t u2, T* out) const {
    // u1 lies in (0, 1], so the log is finite. random_math.h's log and sin/cos (not the math library's) give
    // the same bits on every device; sqrt is correctly rounded everywhere.
    acc_t r = std::sqrt(acc_t(-2) * random_log(u1));
    acc_t sin_theta, cos_theta;
    random_sincos_2pi(u2, &sin_theta, &cos_theta);
    out[0] = static_cast<T>(mean + std * r * cos_theta);
    out[1] = static_cast<T>(mean + std * r * sin_theta);
  }
  TANDEM_HOST_DEVICE void operator()(const PhiloxWords& b, T* out) const {
    if constexpr (std::is_same_v<T, double>) {
      double u1 = static_cast<double>((join_words(b.w[0], b.w[1]) >> 11) + 1) * 0x1p-53;
      double u2 = static_cast<double>(join_words(b.w[2], b.w[3]) >> 11) * 0x1p-53;
      pair(u1, u2, out);
    } else {
      for (int p = 0; p < 2; ++p) {
        float u1 = static_cast<float>((b.w[2 * p] >> 8) + 1) * 0x1p-24f;
        float u2 = static_cast<float>(b.w[2 * p + 1] >> 8) * 0x1p-24f;
        pair(u1, u2, out + 2 * p);
      }
    }
  }
};

// Integers low + (x mod range) with range = high - low (as PyTorch, slightly biased for huge ranges). One
// word per value when the range fits in 32 bits, two otherwise.
template <bool kWide>
struct RandintDist {
  using value_type = int64_t;
  static constexpr int kPerBlock = kWide ? 2 : 4;
  int64_t low;
  uint64_t range;

  TANDEM_HOST_DEVICE void operator()(const PhiloxWords& b, int64_t* out) const {
    for (int j = 0; j < kPerBlock; ++j) {
      uint64_t x = kWide ? join_words(b.w[2 * j], b.w[2 * j + 1]) : b.w[j];
      out[j] = static_cast<int64_t>(static_cast<uint64_t>(low) + x % range);
    }
  }
};

// 32-bit uniforms in [0, 1) as doubles (exact), for Bernoulli draws: element is u < p.
struct Uniform32Dist {
  using value_type = double;
  static constexpr int kPerBlock = 4;
  TANDEM_HOST_DEVICE void operator()(const PhiloxWords& b, double* out) const {
    for (int j = 0; j < kPerBlock; ++j) out[j] = static_cast<double>(b.w[j]) * 0x1p-32;
  }
};

// 32-bit uniforms in (0, 1), safe to take the log of.
struct OpenUniform32Dist {
  using value_type = double;
  static constexpr int kPerBlock = 4;
  TANDEM_HOST_DEVICE void operator()(const PhiloxWords& b, double* out) const {
    for (int j = 0; j < kPerBlock; ++j) out[j] = (static_cast<double>(b.w[j]) + 0.5) * 0x1p-32;
  }
};

// Sampling without replacement as an exponential race: category j finishes at time Exp(1) / weight_j, and
// the first k finishers are a weighted sample of k categories in draw order. Zero weights never finish.
TANDEM_HOST_DEVICE TANDEM_INLINE double exponential_race_key(double open_uniform, double weight) {
  return weight > 0 ? -random_log(open_uniform) / weight : INFINITY;
}

// 64-bit random sort keys (randperm sorts indices by them, ties broken by index).
struct Key64Dist {
  using value_type = uint64_t;
  static constexpr int kPerBlock = 2;
  TANDEM_HOST_DEVICE void operator()(const PhiloxWords& b, uint64_t* out) const {
    out[0] = join_words(b.w[0], b.w[1]);
    out[1] = join_words(b.w[2], b.w[3]);
  }
};

// Blocks a draw of n values from a distribution with k values per block consumes.
inline uint64_t philox_blocks(int64_t n, int k) { return static_cast<uint64_t>((n + k - 1) / k); }
// Values per block of UniformDist/NormalDist for an output dtype.
inline int float_dist_per_block(DType d) { return d == DType::Float64 ? 2 : 4; }
static_assert(UniformDist<double>::kPerBlock == 2 && NormalDist<double>::kPerBlock == 2 &&
              UniformDist<float>::kPerBlock == 4 && NormalDist<float>::kPerBlock == 4 &&
              UniformDist<Half>::kPerBlock == 4 && NormalDist<BFloat16>::kPerBlock == 4);
// Whether RandintDist needs two words per value for this range.
inline bool randint_is_wide(uint64_t range) { return range > (uint64_t{1} << 32); }

}  // namespace tandem
