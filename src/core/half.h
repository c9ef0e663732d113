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
    if (mag < 0x38800000u) {                                                // subnormal or zero in half
      // Add 0.5 so that the float adder performs round-to-nearest-even at the half subnormal grid.
      float v = bits_float(mag) + 0.5f;
      return static_cast<uint16_t>(sign | (float_bits(v) - 0x3f000000u));
    }
    uint32_t odd = (mag >> 13) & 1u;
    mag += 0xc8000fffu + odd;  // rebias exponent (-112 << 23) and round to nearest even
    return static_cast<uint16_t>(sign | (mag >> 13));
  }
  TANDEM_HOST_DEVICE static float to_float(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {
      float v = static_cast<float>(man) * 5.9604644775390625e-08f;  // man * 2^-24
      return sign ? -v : v;
    }
    return bits_float(sign | ((exp + 112u) << 23) | (man << 13));
  }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  TANDEM_HOST_DEVICE BFloat16(float f) : bits(from_float(f)) {}
  TANDEM_HOST_DEVICE operator float() const { return bits_float(static_cast<uint32_t>(bits) << 16); }

  TANDEM_HOST_DEVICE static uint16_t from_float(float f) {
    uint32_t x = float_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
    x += 0x7fffu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
  }
};

}  // namespace tandem
