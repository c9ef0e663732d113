// The complex elementary functions beyond core/complex.h's (exp, log, sqrt, sin, cos, tanh), for the complex
// kernel slots on the CPU and in CUDA. Principal branches as C99 Annex G and std::complex define them; the
// forms are chosen so that small arguments keep their relative precision (log1p/expm1 pieces) and large ones
// do not overflow in intermediate squares.
#pragma once
#include <cmath>

#include "core/complex.h"
#include "core/macros.h"

namespace tandem {

template <typename T>
TANDEM_HOST_DEVICE inline complex<T> cscale(complex<T> z, T s) {
  return {z.re * s, z.im * s};
}
// i z and -i z: the rotations the trigonometric <-> hyperbolic identities use.
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> cmul_i(complex<T> z) {
  return {-z.im, z.re};
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> cmul_minus_i(complex<T> z) {
  return {z.im, -z.re};
}

template <typename T>
TANDEM_HOST_DEVICE inline bool cisnan(complex<T> z) {
  return z.re != z.re || z.im != z.im;
}
template <typename T>
TANDEM_HOST_DEVICE inline bool cisinf(complex<T> z) {
  return std::isinf(z.re) || std::isinf(z.im);
}
template <typename T>
TANDEM_HOST_DEVICE inline bool cisfinite(complex<T> z) {
  return std::isfinite(z.re) && std::isfinite(z.im);
}

// C99 Annex G's results for infinite and NaN parts where the formulas of core/complex.h would give NaN
// (exp(+inf + i inf) = +inf + i NaN, sqrt(x + i inf) = +inf + i inf, tanh(NaN + 0i) = NaN + 0i, ...): what
// glibc's cexp/csqrt/ctanh, and so PyTorch's CPU kernels, return.
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> cexp_c99(complex<T> z) {
  if (std::isinf(z.re) && !std::isfinite(z.im)) {
    if (z.re < T(0)) return {T(0), T(0)};  // exp(-inf + i inf or i NaN) = +-0 +- 0i
    return {z.re, z.im - z.im};            // +inf + i NaN
  }
  return cexp(z);
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> csqrt_c99(complex<T> z) {
  if (std::isinf(z.im)) return {T(INFINITY), z.im};  // for every real part, NaN included
  return csqrt(z);
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> ctanh_c99(complex<T> z) {
  if (z.re != z.re && z.im == T(0)) return z;                            // tanh(NaN + 0i) = NaN + 0i
  if (z.re == T(0) && !std::isfinite(z.im)) return {z.re, z.im - z.im};  // tanh(0 + i inf) = 0 + i NaN
  if (std::isinf(z.re))
    return {std::copysign(T(1), z.re), std::isfinite(z.im) ? std::copysign(T(0), z.im) : T(0)};
  if (!std::isfinite(z.im)) return {z.im - z.im, z.im - z.im};  // finite x != 0: NaN + i NaN
  return ctanh(z);
}

template <typename T>
TANDEM_HOST_DEVICE inline complex<T> creciprocal(complex<T> z) {
  return complex<T>(T(1)) / z;
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> crsqrt(complex<T> z) {
  return creciprocal(csqrt_c99(z));
}
// z / |z|, and 0 at 0 (PyTorch's sgn); a NaN part makes both parts NaN (the standard's sign), an infinite one
// divides as C does (sgn(inf + 0i) = NaN + 0i, PyTorch's complex128 result; its vectorised complex64 loop
// gives NaN + NaN i there).
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> csgn(complex<T> z) {
  if (cisnan(z)) return {T(NAN), T(NAN)};
  T a = cabs(z);
  if (a == T(0)) return {T(0), T(0)};
  return {z.re / a, z.im / a};
}

// exp(z) - 1 = (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y: no cancellation near 0.
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> cexpm1(complex<T> z) {
  if (z.re == T(0) && z.im == T(0)) return {T(0), z.im};  // +0 for -0 too, as exp(z) - 1
  if (!cisfinite(z)) {  // exp's special values, less 1 (expm1(-inf + 0i) = -1 + 0i)
    complex<T> e = cexp_c99(z);
    return {e.re - T(1), e.im};
  }
  T s = std::sin(z.im / T(2));
  return {std::expm1(z.re) * std::cos(z.im) - T(2) * s * s, std::exp(z.re) * std::sin(z.im)};
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> cexp2(complex<T> z) {
  return cexp_c99(cscale(z, T(0.6931471805599453094)));
}
// log(1 + z): for small |z|, log|1 + z| = log1p(2x + x^2 + y^2) / 2 keeps its relative precision.
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> clog1p(complex<T> z) {
  if (std::fabs(z.re) < T(0.5) && std::fabs(z.im) < T(0.5)) {
    T re = std::log1p(z.re * (T(2) + z.re) + z.im * z.im) / T(2);
    return {re, std::atan2(z.im, T(1) + z.re)};
  }
  return clog(complex<T>(T(1) + z.re, z.im));
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> clog2(complex<T> z) {
  return cscale(clog(z), T(1.4426950408889634074));
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> clog10(complex<T> z) {
  return cscale(clog(z), T(0.43429448190325182765));
}

// sinh and cosh of x + 0i stay real (C99: csinh(inf + 0i) = inf + 0i, where the products would give NaN); an
// imaginary part of inf or NaN gives C99's +-0 or +-inf real parts (the products give NaN there).
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> csinh(complex<T> z) {
  if (z.im == T(0)) return {std::sinh(z.re), z.im};
  if (z.re == T(0) && !std::isfinite(z.im)) return {z.re, z.im - z.im};
  if (std::isinf(z.re) && !std::isfinite(z.im)) return {T(INFINITY), z.im - z.im};  // +-inf: glibc's +inf
  return {std::sinh(z.re) * std::cos(z.im), std::cosh(z.re) * std::sin(z.im)};
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> ccosh(complex<T> z) {
  if (z.im == T(0))  // cosh(-inf + 0i) = inf - 0i: cosh is even, so the sign of 0 follows x's
    return {std::cosh(z.re), std::isfinite(z.re) ? std::sinh(z.re) * z.im
                             : z.re != z.re      ? z.im
                                                 : std::copysign(T(1), z.re) * z.im};
  if (z.re == T(0) && !std::isfinite(z.im)) return {z.im - z.im, T(0)};
  if (std::isinf(z.re) && !std::isfinite(z.im)) return {T(INFINITY), z.im - z.im};
  return {std::cosh(z.re) * std::cos(z.im), std::sinh(z.re) * std::sin(z.im)};
}
// sin z = -i sinh(iz), cos z = cosh(iz): the same products as core/complex.h's csin/ccos, with sinh's and
// cosh's C99 infinities and NaNs (sin(inf + 0i) = NaN + 0i).
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> csin_c99(complex<T> z) {
  return cmul_minus_i(csinh(cmul_i(z)));
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> ccos_c99(complex<T> z) {
  return ccosh(cmul_i(z));
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> ctan(complex<T> z) {
  return cmul_minus_i(ctanh_c99(cmul_i(z)));  // tan z = -i tanh(iz)
}

// asinh z = log(z + sqrt(z^2 + 1)), written as log1p(z + z^2 / (1 + sqrt(1 + z^2))) so small z keep their
// precision; odd symmetry keeps the sum free of cancellation (Re z >= 0 there), and past 1/sqrt(eps) the
// square would overflow while asinh z = log(2z) to working precision.
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> casinh(complex<T> z) {
  if (z.re < T(0) || (z.re == T(0) && std::signbit(z.re))) {
    complex<T> r = casinh(complex<T>(-z.re, -z.im));
    return {-r.re, -r.im};
  }
  if (cisinf(z)) return {T(INFINITY), z.im != z.im ? z.im : std::atan2(z.im, z.re)};
  if (cisnan(z)) {
    T nan = z.re != z.re ? z.re : z.im;
    return {nan, z.im == T(0) ? z.im : nan};  // asinh(NaN + 0i) = NaN + 0i
  }
  const T big = sizeof(T) == 4 ? T(4096) : T(6.7108864e7);  // 1 / sqrt(eps)
  if (std::fabs(z.re) > big || std::fabs(z.im) > big) {
    complex<T> l = clog(z);
    return {l.re + T(0.6931471805599453094), l.im};
  }
  complex<T> root = csqrt_c99(complex<T>(T(1) + (z.re - z.im) * (z.re + z.im), T(2) * z.re * z.im));
  complex<T> sq = z * z;
  return clog1p(z + sq / complex<T>(T(1) + root.re, root.im));
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> casin(complex<T> z) {
  if (std::isinf(z.re) && z.im != z.im) return {z.im, T(INFINITY)};  // NaN + i inf, as glibc
  return cmul_minus_i(casinh(cmul_i(z)));                            // asin z = -i asinh(iz)
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> cacos(complex<T> z) {
  complex<T> s = casin(z);
  return {T(1.5707963267948966192) - s.re, -s.im};  // acos z = pi/2 - asin z
}
// acosh z = log(z + sqrt(z + 1) sqrt(z - 1)), the product of roots (not sqrt(z^2 - 1)) giving the principal
// branch for every z; as log1p of (z - 1) + the product near z = 1.
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> cacosh(complex<T> z) {
  if (cisinf(z)) return {T(INFINITY), std::atan2(z.im, z.re)};  // C99: +inf + i arg(z), NaN kept
  if (z.re == T(0) && z.im != z.im) return {z.im, T(1.5707963267948966192)};  // acosh(0 + i NaN)
  // For large |z| the product of roots is z to working precision, so acosh z = log(2z) (no overflow).
  const T big = sizeof(T) == 4 ? T(4096) : T(6.7108864e7);
  if (std::isfinite(z.re) && std::isfinite(z.im) && (std::fabs(z.re) > big || std::fabs(z.im) > big)) {
    complex<T> l = clog(z);
    return {l.re + T(0.6931471805599453094), l.im};
  }
  complex<T> p = csqrt(complex<T>(z.re + T(1), z.im)) * csqrt(complex<T>(z.re - T(1), z.im));
  return clog1p(complex<T>(z.re - T(1) + p.re, z.im + p.im));
}
// atanh z = (log1p(z) - log1p(-z)) / 2.
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> catanh(complex<T> z) {
  // C99: an infinite part gives +-0 + i pi/2 (NaN imaginary parts kept); 0 + i NaN stays.
  if (cisinf(z))
    return {std::copysign(T(0), z.re), z.im != z.im ? z.im : std::copysign(T(1.5707963267948966192), z.im)};
  if (z.re == T(0) && z.im != z.im) return z;
  complex<T> a = clog1p(z), b = clog1p(complex<T>(-z.re, -z.im));
  return {(a.re - b.re) / T(2), (a.im - b.im) / T(2)};
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> catan(complex<T> z) {
  return cmul_minus_i(catanh(cmul_i(z)));  // atan z = -i atanh(iz)
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> csigmoid(complex<T> z) {
  complex<T> e = cexp_c99(complex<T>(-z.re, -z.im));
  return creciprocal(complex<T>(T(1) + e.re, e.im));
}
// sin(pi z) / (pi z), 1 at 0.
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> csinc(complex<T> z) {
  if (z.re == T(0) && z.im == T(0)) return {T(1), T(0)};
  complex<T> p = cscale(z, T(3.14159265358979323846));
  return csin(p) / p;
}
// a^b = exp(b log a); small integer powers multiply instead (exact, and 0^2 = 0 where exp(2 log 0) is NaN).
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> cpow(complex<T> a, complex<T> b) {
  if (b.im == T(0)) {
    if (b.re == T(0)) return {T(1), T(0)};
    if (b.re == T(1)) return a;
    if (b.re == T(2)) return a * a;
    if (b.re == T(3)) return a * a * a;
    if (b.re == T(0.5)) return csqrt(a);
    if (b.re == T(-1)) return creciprocal(a);
  }
  return cexp(b * clog(a));
}

}  // namespace tandem
