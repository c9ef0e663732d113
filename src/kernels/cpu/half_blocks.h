// Converting runs of float16 and bfloat16 to and from float on the CPU. Element by element the float16
// conversion is a dozen integer operations; the F16C instructions (every AVX2 CPU has them) do eight elements
// in one, which makes float16 loops as fast as float32 ones. bfloat16 is the top half of a float: widening is
// a shift, narrowing a rounding add, eight lanes at a time in AVX2 integer instructions (GCC left the element
// loop scalar). Loops over 16-bit floats widen a block, compute in float and narrow once.
#pragma once
#include <cstdint>
#include <type_traits>

#include "core/half.h"
#include "core/macros.h"
#include "kernels/cpu/isa_region.h"

#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
#include <immintrin.h>
#endif

TANDEM_CPU_KERNELS_BEGIN

// The 16-bit float types these conversions serve.
template <typename T>
constexpr bool kHalfFloat = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Elements per block: the float copies of a block stay in L1.
constexpr int64_t kHalfBlock = 256;

// out[i] = float(in[i]) for i < n. Exact.
void widen_halves(const Half* in, float* out, int64_t n);
void widen_halves(const BFloat16* in, float* out, int64_t n);
// out[i] = Half(in[i]) (BFloat16(in[i])) for i < n, rounding to nearest even. A NaN stays a NaN (its payload
// may differ).
void narrow_to_halves(const float* in, Half* out, int64_t n);
void narrow_to_halves(const float* in, BFloat16* out, int64_t n);

#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
// Eight elements at a time in registers, for the AVX2 and AVX-512 builds' loops.
TANDEM_INLINE __m256 widen8(const Half* in) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in)));
}
TANDEM_INLINE __m256 widen8(const BFloat16* in) {
  const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
}
TANDEM_INLINE void narrow8(__m256 x, Half* out) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                   _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
// BFloat16::from_float on eight lanes: round to nearest even, a NaN becomes a quiet NaN.
TANDEM_INLINE void narrow8(__m256 x, BFloat16* out) {
  const __m256i bits = _mm256_castps_si256(x);
  const __m256i top = _mm256_srli_epi32(bits, 16);
  const __m256i lsb = _mm256_and_si256(top, _mm256_set1_epi32(1));
  const __m256i rounded =
      _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x7fff)), lsb), 16);
  const __m256i quiet_nan = _mm256_or_si256(top, _mm256_set1_epi32(0x40));
  const __m256i magnitude = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fffffff));
  const __m256i is_nan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f800000));
  const __m256i r = _mm256_blendv_epi8(rounded, quiet_nan, is_nan);
  // Every lane holds a value below 2^16, so the saturating pack is exact.
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                   _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1)));
}
#endif

TANDEM_CPU_KERNELS_END
