#include "kernels/cpu/half_blocks.h"

#include "kernels/cpu/isa_region.h"

#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
#include <immintrin.h>
#endif

TANDEM_CPU_KERNELS_BEGIN

// AVX2 and AVX-512 builds convert eight elements per F16C instruction (their capability includes F16C); the
// baseline build converts element by element.
void widen_halves(const Half* in, float* out, int64_t n) {
  int64_t i = 0;
#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
#endif
  for (; i < n; ++i) out[i] = static_cast<float>(in[i]);
}

void narrow_to_halves(const float* in, Half* out, int64_t n) {
  int64_t i = 0;
#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#endif
  for (; i < n; ++i) out[i] = Half(in[i]);
}

TANDEM_CPU_KERNELS_END
