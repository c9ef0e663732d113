#include "kernels/cpu/half_blocks.h"

#include "kernels/cpu/simd.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define TANDEM_HAS_F16C_PATH 1
#endif

namespace tandem::cpu {

namespace {
#if TANDEM_HAS_F16C_PATH
__attribute__((target("avx2,f16c"))) int64_t widen_f16c(const Half* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
  return i;
}
__attribute__((target("avx2,f16c"))) int64_t narrow_f16c(const float* in, Half* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  return i;
}
bool cpu_has_f16c() {
  // CPUID directly: clang before 16 (the fuzz build's compiler) has no __builtin_cpu_supports("f16c").
  static const bool has = [] {
    unsigned eax, ebx, ecx, edx;
    return cpu_has_avx2() && __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
  }();
  return has;
}
#endif
}  // namespace

void widen_halves(const Half* in, float* out, int64_t n) {
  int64_t i = 0;
#if TANDEM_HAS_F16C_PATH
  if (cpu_has_f16c()) i = widen_f16c(in, out, n);
#endif
  for (; i < n; ++i) out[i] = static_cast<float>(in[i]);
}

void narrow_to_halves(const float* in, Half* out, int64_t n) {
  int64_t i = 0;
#if TANDEM_HAS_F16C_PATH
  if (cpu_has_f16c()) i = narrow_f16c(in, out, n);
#endif
  for (; i < n; ++i) out[i] = Half(in[i]);
}

}  // namespace tandem::cpu
