// glibc's vector math library (libmvec) for the CPU kernels: declared `simd` here, a float sin, cos or pow
// in a loop the compiler vectorises becomes one call per vector, to the variant of the loop's instruction
// set (_ZGVbN4v_sinf for SSE, _ZGVdN8v_sinf for AVX2, _ZGVeN16v_sinf for AVX-512) instead of a call per
// element. libmvec's float functions are within 4 ulp and reduce huge arguments exactly (sin(1e30f) is
// right), as glibc's scalar ones. Only functions libmvec has had since glibc 2.22; the linker's libm.so
// script pulls libmvec in as needed. Builds without it (another C library, another CPU) keep the scalar
// calls: CMake defines TANDEM_HAS_LIBMVEC where a program calling libmvec links.
#pragma once
#include <cmath>

#if defined(TANDEM_HAS_LIBMVEC) && !defined(__CUDACC__) && !defined(__clang__)
extern "C" {
__attribute__((simd("notinbranch"))) float sinf(float) noexcept;
__attribute__((simd("notinbranch"))) float cosf(float) noexcept;
__attribute__((simd("notinbranch"))) float powf(float, float) noexcept;
}
#endif
