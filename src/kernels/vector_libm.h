// glibc's vector math library (libmvec) for the CPU kernels: declared `simd` here, a float sin, cos or pow
// in a loop the compiler vectorises becomes one call per vector, to the variant of the loop's instruction
// set (_ZGVbN4v_sinf for SSE, _ZGVdN8v_sinf for AVX2, _ZGVeN16v_sinf for AVX-512) instead of a call per
// element. libmvec's float functions are within 4 ulp and reduce huge arguments exactly (sin(1e30f) is
// right), as glibc's scalar ones. Only functions libmvec has had since glibc 2.22; the linker's libm.so
// script pulls libmvec in as needed. Builds without it (another C library, another CPU) keep the scalar
// calls: CMake defines TANDEM_HAS_LIBMVEC where a program calling libmvec links.
// glibc 2.35 added the inverse trigonometric and hyperbolic functions, the other logarithm and exponential
// bases, erfc, atan2 and hypot (also within 4 ulp, special values as the scalar functions); CMake defines
// TANDEM_HAS_LIBMVEC_2_35 where its asinf links, and the functors' std::asin, std::log2, ... vectorise too.
// exp, log, log1p, expm1, tanh and erf are declared for the functors' kernel_expf, ...
// (kernels/vector_math.h), which are the std:: functions in such builds.
// The double functions are declared too: float64's exp, log, sin, tanh, ... were scalar libm calls, 3-9x slower
// than PyTorch's SLEEF vectors (262144 elements, one thread); libmvec's are within 4 ulp, as its float ones.
#pragma once
#include <cmath>

#if defined(TANDEM_HAS_LIBMVEC) && !defined(__CUDACC__) && !defined(__clang__)
extern "C" {
__attribute__((simd("notinbranch"))) float sinf(float) noexcept;
__attribute__((simd("notinbranch"))) float cosf(float) noexcept;
__attribute__((simd("notinbranch"))) float powf(float, float) noexcept;
__attribute__((simd("notinbranch"))) float expf(float) noexcept;
__attribute__((simd("notinbranch"))) float logf(float) noexcept;
__attribute__((simd("notinbranch"))) double sin(double) noexcept;
__attribute__((simd("notinbranch"))) double cos(double) noexcept;
__attribute__((simd("notinbranch"))) double pow(double, double) noexcept;
__attribute__((simd("notinbranch"))) double exp(double) noexcept;
__attribute__((simd("notinbranch"))) double log(double) noexcept;
}
#if defined(TANDEM_HAS_LIBMVEC_2_35)
extern "C" {
__attribute__((simd("notinbranch"))) float asinf(float) noexcept;
__attribute__((simd("notinbranch"))) float acosf(float) noexcept;
__attribute__((simd("notinbranch"))) float atanf(float) noexcept;
__attribute__((simd("notinbranch"))) float tanf(float) noexcept;
__attribute__((simd("notinbranch"))) float sinhf(float) noexcept;
__attribute__((simd("notinbranch"))) float coshf(float) noexcept;
__attribute__((simd("notinbranch"))) float asinhf(float) noexcept;
__attribute__((simd("notinbranch"))) float acoshf(float) noexcept;
__attribute__((simd("notinbranch"))) float atanhf(float) noexcept;
__attribute__((simd("notinbranch"))) float log2f(float) noexcept;
__attribute__((simd("notinbranch"))) float log10f(float) noexcept;
__attribute__((simd("notinbranch"))) float exp2f(float) noexcept;
__attribute__((simd("notinbranch"))) float erfcf(float) noexcept;
__attribute__((simd("notinbranch"))) float log1pf(float) noexcept;
__attribute__((simd("notinbranch"))) float expm1f(float) noexcept;
__attribute__((simd("notinbranch"))) float tanhf(float) noexcept;
__attribute__((simd("notinbranch"))) float erff(float) noexcept;
__attribute__((simd("notinbranch"))) float atan2f(float, float) noexcept;
__attribute__((simd("notinbranch"))) float hypotf(float, float) noexcept;
__attribute__((simd("notinbranch"))) double asin(double) noexcept;
__attribute__((simd("notinbranch"))) double acos(double) noexcept;
__attribute__((simd("notinbranch"))) double atan(double) noexcept;
__attribute__((simd("notinbranch"))) double tan(double) noexcept;
__attribute__((simd("notinbranch"))) double sinh(double) noexcept;
__attribute__((simd("notinbranch"))) double cosh(double) noexcept;
__attribute__((simd("notinbranch"))) double asinh(double) noexcept;
__attribute__((simd("notinbranch"))) double acosh(double) noexcept;
__attribute__((simd("notinbranch"))) double atanh(double) noexcept;
__attribute__((simd("notinbranch"))) double log2(double) noexcept;
__attribute__((simd("notinbranch"))) double log10(double) noexcept;
__attribute__((simd("notinbranch"))) double exp2(double) noexcept;
__attribute__((simd("notinbranch"))) double erfc(double) noexcept;
__attribute__((simd("notinbranch"))) double log1p(double) noexcept;
__attribute__((simd("notinbranch"))) double expm1(double) noexcept;
__attribute__((simd("notinbranch"))) double tanh(double) noexcept;
__attribute__((simd("notinbranch"))) double erf(double) noexcept;
__attribute__((simd("notinbranch"))) double atan2(double, double) noexcept;
__attribute__((simd("notinbranch"))) double hypot(double, double) noexcept;
}
#endif
#endif
