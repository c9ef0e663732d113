// complex<T>: the storage and arithmetic type of complex64 / complex128. A plain trivially-copyable pair
// (real part first, as C, NumPy, DLPack and c10::complex lay it out) usable in host and CUDA device code
// alike, which std::complex is not.
#pragma once
#include <cmath>
#include <type_traits>

#include "core/macros.h"

namespace tandem {

template <typename T>
struct alignas(2 * sizeof(T)) complex {
  using value_type = T;
  T re;
  T im;

  complex() = default;
  TANDEM_HOST_DEVICE constexpr complex(T r, T i = T(0)) : re(r), im(i) {}
  template <typename U>
  TANDEM_HOST_DEVICE constexpr explicit complex(const complex<U>& o)
      : re(static_cast<T>(o.re)), im(static_cast<T>(o.im)) {}

  TANDEM_HOST_DEVICE constexpr T real() const { return re; }
  TANDEM_HOST_DEVICE constexpr T imag() const { return im; }

  TANDEM_HOST_DEVICE complex& operator+=(const complex& o) {
    re += o.re;
    im += o.im;
    return *this;
  }
  TANDEM_HOST_DEVICE complex& operator-=(const complex& o) {
    re -= o.re;
    im -= o.im;
    return *this;
  }
  TANDEM_HOST_DEVICE complex& operator*=(const complex& o) { return *this = *this * o; }
  TANDEM_HOST_DEVICE complex& operator/=(const complex& o) { return *this = *this / o; }

  TANDEM_HOST_DEVICE friend constexpr complex operator+(const complex& a, const complex& b) {
    return {a.re + b.re, a.im + b.im};
  }
  TANDEM_HOST_DEVICE friend constexpr complex operator-(const complex& a, const complex& b) {
    return {a.re - b.re, a.im - b.im};
  }
  TANDEM_HOST_DEVICE friend constexpr complex operator-(const complex& a) { return {-a.re, -a.im}; }
  TANDEM_HOST_DEVICE friend constexpr complex operator*(const complex& a, const complex& b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
  // Smith's algorithm: scaling by the larger part of the divisor keeps |b|^2 from overflowing or underflowing
  // where the quotient itself is representable (c10::complex does the same). The magnitudes of a zero divisor
  // are +0 whatever its signs (as std::abs, which PyTorch's build uses): (1+1j) / (-0.0+0j) is inf+infj.
  TANDEM_HOST_DEVICE friend complex operator/(const complex& a, const complex& b) {
    T abs_c = b.re < T(0) ? -b.re : (b.re == T(0) ? T(0) : b.re);
    T abs_d = b.im < T(0) ? -b.im : (b.im == T(0) ? T(0) : b.im);
    if (abs_c >= abs_d) {
      if (abs_c == T(0) && abs_d == T(0)) return {a.re / abs_c, a.im / abs_d};  // inf/nan as C does
      T rat = b.im / b.re;
      T scl = T(1) / (b.re + b.im * rat);
      return {(a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl};
    }
    T rat = b.re / b.im;
    T scl = T(1) / (b.im + b.re * rat);
    return {(a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl};
  }
  TANDEM_HOST_DEVICE friend constexpr bool operator==(const complex& a, const complex& b) {
    return a.re == b.re && a.im == b.im;
  }
  TANDEM_HOST_DEVICE friend constexpr bool operator!=(const complex& a, const complex& b) {
    return !(a == b);
  }
};

template <typename T>
struct is_complex_type : std::false_type {};
template <typename T>
struct is_complex_type<complex<T>> : std::true_type {};
template <typename T>
constexpr bool is_complex_type_v = is_complex_type<T>::value;
// The real type of T: T itself for the real types, float for complex<float>, double for complex<double>.
template <typename T>
struct RealOf {
  using type = T;
};
template <typename T>
struct RealOf<complex<T>> {
  using type = T;
};
template <typename T>
using real_t = typename RealOf<T>::type;

// The elementary functions, as C99 Annex G defines them on the principal branch (std::complex's choices,
// which PyTorch's CPU and CUDA kernels follow too).
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> cconj(complex<T> z) {
  return {z.re, -z.im};
}
template <typename T>
TANDEM_HOST_DEVICE inline T cabs(complex<T> z) {
  return std::hypot(z.re, z.im);
}
template <typename T>
TANDEM_HOST_DEVICE inline T carg(complex<T> z) {
  return std::atan2(z.im, z.re);
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> cpolar(T r, T theta) {
  return {r * std::cos(theta), r * std::sin(theta)};
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> cexp(complex<T> z) {
  T e = std::exp(z.re);
  if (z.im == T(0)) return {e, z.im};  // keeps cexp(x+0j) exact and its sign of zero
  return {e * std::cos(z.im), e * std::sin(z.im)};
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> clog(complex<T> z) {
  return {std::log(cabs(z)), carg(z)};
}
// sqrt by the half-angle formulas on |z|, avoiding cancellation for either sign of the real part.
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> csqrt(complex<T> z) {
  if (z.re == T(0) && z.im == T(0)) return {T(0), z.im};
  T t = std::sqrt((std::fabs(z.re) + cabs(z)) / T(2));
  if (z.re >= T(0)) return {t, z.im / (T(2) * t)};
  return {std::fabs(z.im) / (T(2) * t), std::copysign(t, z.im)};
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> csin(complex<T> z) {
  return {std::sin(z.re) * std::cosh(z.im), std::cos(z.re) * std::sinh(z.im)};
}
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> ccos(complex<T> z) {
  return {std::cos(z.re) * std::cosh(z.im), -std::sin(z.re) * std::sinh(z.im)};
}
// ctanh(x+iy) = (sinh 2x + i sin 2y) / (cosh 2x + cos 2y); for large |x| the ratio is +-1 (+ 0i).
template <typename T>
TANDEM_HOST_DEVICE inline complex<T> ctanh(complex<T> z) {
  if (std::fabs(z.re) > T(20)) return {std::copysign(T(1), z.re), std::copysign(T(0), std::sin(T(2) * z.im))};
  T d = std::cosh(T(2) * z.re) + std::cos(T(2) * z.im);
  return {std::sinh(T(2) * z.re) / d, std::sin(T(2) * z.im) / d};
}

}  // namespace tandem
