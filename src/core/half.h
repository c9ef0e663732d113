// 16-bit float storage types. Arithmetic happens in float: each op loads a half, converts, computes
// and rounds back, which is what PyTorch's CPU kernels do too. Conversions round to nearest even.
#pragma once
#include <cstdint>
#include <cstring>

#include "core/macros.h"

namespace tandem {

TANDEM_HOST_DEVICE inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
TANDEM_HOST_DEVICE inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
TANDEM_HOST_DEVICE inline uint64_t double_bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}
TANDEM_HOST_DEVICE inline double bits_double(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

struct Half {
  uint16_t bits = 0;
  Half() = default;
  TANDEM_HOST_DEVICE Half(float f) : bits(from_float(f)) {}
  TANDEM_HOST_DEVICE operator float() const { return to_float(bits); }

  TANDEM_HOST_DEVICE static uint16_t from_float(float f) {
    uint32_t x = float_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t mag = x & 0x7fffffffu;
    if (mag >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (mag > 0x7f800000u ? 0x200u : 0u));
    if (mag >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
    if (mag < 0x38800000u) {                                               // subnormal or zero in half
      // Add 0.5 so that the float adder performs round-to-nearest-even at the half subnormal grid.
      float v = bits_float(mag) + 0.5f;
      return static_cast<uint16_t>(sign | (float_bits(v) - 0x3f000000u));
    }
    uint32_t odd = (mag >> 13) & 1u;
    mag += 0xc8000fffu + odd;  // rebias exponent (-112 << 23) and round to nearest even
    return static_cast<uint16_t>(sign | (mag >> 13));
  }
  // Branch-free (all three cases computed, one selected) so that loops over halves vectorise.
  TANDEM_HOST_DEVICE static float to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t em = static_cast<uint32_t>(h & 0x7fffu) << 13;  // exponent and mantissa at float positions
    uint32_t exp = em & 0x0f800000u;
    uint32_t normal = em + (112u << 23);   // rebias the exponent from 15 to 127
    uint32_t inf_nan = em + (224u << 23);  // exponent 31 becomes 255, the payload is kept
    // A subnormal is man * 2^-24: give it the exponent of 2^-14 and subtract the implicit one (exact).
    uint32_t subnormal = float_bits(bits_float(em + (113u << 23)) - bits_float(113u << 23));
    return bits_float(sign | (exp == 0x0f800000u ? inf_nan : exp == 0 ? subnormal : normal));
  }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  TANDEM_HOST_DEVICE BFloat16(float f) : bits(from_float(f)) {}
  TANDEM_HOST_DEVICE operator float() const { return bits_float(static_cast<uint32_t>(bits) << 16); }

  // Round to nearest even; a NaN stays a quiet NaN. Both results are computed and one selected, so loops that
  // narrow to bfloat16 vectorise (an early return kept them scalar).
  TANDEM_HOST_DEVICE static uint16_t from_float(float f) {
    const uint32_t x = float_bits(f);
    const uint32_t quiet_nan = (x >> 16) | 0x40u;
    const uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
    return static_cast<uint16_t>((x & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
  }
};

}  // namespace tandem
