#include "kernels/cpu/half_blocks.h"

#include "kernels/cpu/isa_region.h"

TANDEM_CPU_KERNELS_BEGIN

// AVX2 and AVX-512 builds convert eight elements at a time (their capability includes F16C); the baseline
// build converts element by element.
template <typename H>
void widen_run(const H* in, float* out, int64_t n) {
  int64_t i = 0;
#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, widen8(in + i));
#endif
  for (; i < n; ++i) out[i] = static_cast<float>(in[i]);
}

template <typename H>
void narrow_run(const float* in, H* out, int64_t n) {
  int64_t i = 0;
#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
  for (; i + 8 <= n; i += 8) narrow8(_mm256_loadu_ps(in + i), out + i);
#endif
  for (; i < n; ++i) out[i] = H(in[i]);
}

void widen_halves(const Half* in, float* out, int64_t n) { widen_run(in, out, n); }
void widen_halves(const BFloat16* in, float* out, int64_t n) { widen_run(in, out, n); }
void narrow_to_halves(const float* in, Half* out, int64_t n) { narrow_run(in, out, n); }
void narrow_to_halves(const float* in, BFloat16* out, int64_t n) { narrow_run(in, out, n); }

TANDEM_CPU_KERNELS_END
