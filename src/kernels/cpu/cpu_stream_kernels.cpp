// The loops of the CPU draws in PyTorch's order (ops/random_cpu_stream.cpp) that need this capability's
// instructions: the uniform fills (one fused multiply-add per value, as PyTorch's build) and the float32
// Box-Muller blocks of PyTorch's CPU normal_ (ops/random_cpu_stream.cpp draws the uniforms): in
// each block of 16, element j < 8 pairs with j + 8 as (radius cos, radius sin), radius = sqrt(-2 log(1 -
// u_j)), angle = 2 pi u_{j+8}. PyTorch evaluates log and sincos with Cephes' single-precision polynomials,
// eight lanes at a time, with the fused multiply-adds its compiler forms, on every AVX2 or AVX-512 CPU; this
// kernel makes the same operations in the same order, so its values are PyTorch's bit for bit. Built without
// FMA contraction (CMakeLists.txt): the fused steps are written as fused_madd. The lanes are GCC vectors: one
// AVX register in the avx2/avx512 builds, two SSE halves with a libm fma per lane in the baseline build.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numbers>

#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/kernel_table.h"

// 32-byte vectors passed by value would change the ABI without AVX; they never cross a call here.
#pragma GCC diagnostic ignored "-Wpsabi"

TANDEM_CPU_KERNELS_BEGIN

namespace {

typedef float Floats __attribute__((vector_size(32)));
typedef uint32_t Words __attribute__((vector_size(32)));
typedef int32_t Ints __attribute__((vector_size(32)));

TANDEM_INLINE Floats splat(float x) { return Floats{} + x; }
TANDEM_INLINE Words bits(Floats v) { return __builtin_bit_cast(Words, v); }
TANDEM_INLINE Floats floats(Words w) { return __builtin_bit_cast(Floats, w); }
// a * b + c rounded once.
TANDEM_INLINE Floats fused_madd(Floats a, Floats b, Floats c) {
#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
  return __builtin_ia32_vfmaddps256(a, b, c);
#else
  Floats r;
  for (int i = 0; i < 8; ++i) r[i] = std::fma(a[i], b[i], c[i]);
  return r;
#endif
}
// a where the mask's lanes are set, else b (bitwise, as the vector kernel selects).
TANDEM_INLINE Floats select(Ints mask, Floats a, Floats b) {
  const Words m = __builtin_bit_cast(Words, mask);
  return floats((bits(a) & m) | (bits(b) & ~m));
}

TANDEM_INLINE Floats cephes_log(Floats x) {
  x = x > splat(0x1p-126f) ? x : splat(0x1p-126f);  // also NaN -> the smallest normal, as max_ps does
  const Ints exponent = __builtin_bit_cast(Ints, bits(x) >> 23) - 0x7f;
  Floats e = __builtin_convertvector(exponent, Floats) + 1.0f;
  x = floats((bits(x) & ~0x7f800000u) | 0x3f000000u);  // the mantissa in [0.5, 1)
  const Ints below = x < splat(0.707106781186547524f);
  const Floats extra = select(below, x, splat(0.0f));
  x = x - 1.0f;
  e = e - select(below, splat(1.0f), splat(0.0f));
  x = x + extra;
  const Floats z = x * x;
  Floats y = splat(7.0376836292e-2f);
  y = fused_madd(y, x, splat(-1.1514610310e-1f));
  y = fused_madd(y, x, splat(1.1676998740e-1f));
  y = fused_madd(y, x, splat(-1.2420140846e-1f));
  y = fused_madd(y, x, splat(1.4249322787e-1f));
  y = fused_madd(y, x, splat(-1.6668057665e-1f));
  y = fused_madd(y, x, splat(2.0000714765e-1f));
  y = fused_madd(y, x, splat(-2.4999993993e-1f));
  y = fused_madd(y, x, splat(3.3333331174e-1f));
  y = y * x;
  y = fused_madd(y, z, e * -2.12194440e-4f);
  y = fused_madd(-z, splat(0.5f), y);
  x = x + y;
  return fused_madd(e, splat(0.693359375f), x);
}

TANDEM_INLINE void cephes_sincos(Floats x, Floats& sin_out, Floats& cos_out) {
  Words sin_sign = bits(x) & 0x80000000u;
  x = floats(bits(x) & 0x7fffffffu);
  const Ints octant = (__builtin_convertvector(x * 1.27323954473516f, Ints) + 1) & ~1;
  const Floats y = __builtin_convertvector(octant, Floats);
  const Words swap_sin_sign = __builtin_bit_cast(Words, octant & 4) << 29;
  const Ints sin_poly_for_sin = (octant & 2) == 0;
  x = fused_madd(y, splat(-0.78515625f), x);  // x - y * pi/4 in three parts
  x = fused_madd(y, splat(-2.4187564849853515625e-4f), x);
  x = fused_madd(y, splat(-3.77489497744594108e-8f), x);
  const Words cos_sign = __builtin_bit_cast(Words, ~(octant - 2) & 4) << 29;
  sin_sign ^= swap_sin_sign;
  const Floats z = x * x;
  Floats c = splat(2.443315711809948e-5f);
  c = fused_madd(c, z, splat(-1.388731625493765e-3f));
  c = fused_madd(c, z, splat(4.166664568298827e-2f));
  c = c * z;
  c = fused_madd(c, z, -(z * 0.5f));
  c = c + 1.0f;
  Floats s = splat(-1.9515295891e-4f);
  s = fused_madd(s, z, splat(8.3321608736e-3f));
  s = fused_madd(s, z, splat(-1.6666654611e-1f));
  s = s * z;
  s = fused_madd(s, x, x);
  sin_out = floats(bits(select(sin_poly_for_sin, s, c)) ^ sin_sign);
  cos_out = floats(bits(select(sin_poly_for_sin, c, s)) ^ cos_sign);
}

void box_muller_blocks_kernel(float* data, int64_t blocks, float mean, float std) {
  const Floats two_pi = splat(static_cast<float>(2.0 * std::numbers::pi));
  for (int64_t b = 0; b < blocks; ++b) {
    float* d = data + 16 * b;
    Floats first, second;
    std::memcpy(&first, d, sizeof first);
    std::memcpy(&second, d + 8, sizeof second);
    const Floats log_u = cephes_log(splat(1.0f) - first);
    Floats r;
    for (int i = 0; i < 8; ++i)
      r[i] = std::sqrt(-2.0f * log_u[i]);  // sqrtps: the same correctly rounded root
    Floats s, c;
    cephes_sincos(two_pi * second, s, c);
    const Floats out_first = fused_madd(r * c, splat(std), splat(mean));
    const Floats out_second = fused_madd(r * s, splat(std), splat(mean));
    std::memcpy(d, &out_first, sizeof out_first);
    std::memcpy(d + 8, &out_second, sizeof out_second);
  }
}

void uniform_f32_kernel(Generator::CpuStream& s, float* values, int64_t n, float lo, float span) {
  for (int64_t i = 0; i < n; ++i) values[i] = std::fma(s.uniform_float(), span, lo);
}
void uniform_f64_kernel(Generator::CpuStream& s, double* values, int64_t n, double lo, double span) {
  for (int64_t i = 0; i < n; ++i) values[i] = std::fma(s.uniform_double(), span, lo);
}

}  // namespace

void register_cpu_stream_kernels() {
  CpuStreamKernels& k = cpu_stream_kernels();
  k.box_muller_blocks = box_muller_blocks_kernel;
  k.uniform_f32 = uniform_f32_kernel;
  k.uniform_f64 = uniform_f64_kernel;
}

TANDEM_CPU_KERNELS_END
