// The orthogonal polynomials of torch.special: Chebyshev T, U, V, W and their shifted forms on [0, 1],
// physicists' and probabilists' Hermite, Laguerre and Legendre, written once for the CPU and CUDA loops.
//
// Each family is its three-term recurrence p_(k+1) = (a_k x + b_k) p_k - c_k p_(k-1) from p_0 = 1 and its own
// p_1, run by one loop (run_recurrence) in the op's compute type (float for float32, as PyTorch), so a
// float32 value overflows to inf, and then NaN, at the degree where PyTorch's does. Chebyshev polynomials
// have exact values at +-1 and, inside (-1, 1) past a small degree, their trigonometric closed forms (T_n(cos
// t) = cos(nt), ...); the shifted ones are the same functions of 2x - 1. The public functions are
// TANDEM_NOINLINE_HOST (kernels/noinline_host.h): every CPU capability runs the same baseline code.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/macros.h"
#include "kernels/noinline_host.h"

namespace tandem {
namespace special_math {
namespace polynomial {

// The degree as PyTorch takes it from a floating n: truncated toward zero; NaN, infinities and values beyond
// int64 become a negative degree (PyTorch's CPU conversion gives INT64_MIN there), whose polynomial is 0.
template <typename T>
TANDEM_HOST_DEVICE inline int64_t degree(T n) {
  return n > T(-9.2e18) && n < T(9.2e18) ? static_cast<int64_t>(n) : int64_t(-1);
}

// The most steps a recurrence takes (~0.2 s per element; float32 stops holding the steps' integer
// coefficients exactly here). A larger degree gives NaN instead of running for hours (PyTorch loops n times),
// except for Chebyshev polynomials, whose closed forms need no loop (docs/ops.md).
constexpr int64_t kMaxRecurrenceDegree = int64_t(1) << 24;

// p_n from p_0, p_1 and p_(k+1) = step(k, p_(k-1), p_k). It stops at the first NaN, which no later step could
// turn back into a number; that bounds the work where the values overflow.
template <typename T, typename Step>
TANDEM_HOST_DEVICE inline T run_recurrence(T p0, T p1, int64_t n, Step step) {
  if (n == 0) return p0;
  if (n > kMaxRecurrenceDegree) return std::numeric_limits<T>::quiet_NaN();
  T previous = p0, current = p1;
  for (int64_t k = 1; k < n && !std::isnan(current); ++k) {
    const T next = step(k, previous, current);
    previous = current;
    current = next;
  }
  return current;
}

enum class ChebyshevKind { T, U, V, W };

// The value at y = +1 (at_plus_one) or y = -1: T 1 and (-1)^n, U (n + 1) and (-1)^n (n + 1), V 1 and
// (-1)^n (2n + 1), W 2n + 1 and (-1)^n.
// 2n + 1 is formed unsigned: for n >= 2^62 it does not fit int64 (PyTorch's wraps to a negative value).
template <typename T>
TANDEM_HOST_DEVICE inline T chebyshev_at_end(ChebyshevKind kind, int64_t n, bool at_plus_one) {
  const T sign = at_plus_one || n % 2 == 0 ? T(1) : T(-1);
  const T two_n_plus_one = T(2 * static_cast<uint64_t>(n) + 1);
  switch (kind) {
    case ChebyshevKind::T:
      return sign;
    case ChebyshevKind::U:
      return sign * T(n + 1);
    case ChebyshevKind::V:
      return at_plus_one ? T(1) : sign * two_n_plus_one;
    default:
      return at_plus_one ? two_n_plus_one : sign;
  }
}

// Inside (-1, 1), y = cos(theta): T = cos(n theta), U = sin((n+1) theta) / sin(theta), V = cos((n+1/2) theta)
// / cos(theta/2), W = sin((n+1/2) theta) / sin(theta/2). Where V's or W's denominator rounds to the vanishing
// one at an end, the end's value.
template <typename T>
TANDEM_HOST_DEVICE inline T chebyshev_trigonometric(ChebyshevKind kind, T y, int64_t n) {
  const T theta = std::acos(y), half = theta / T(2);
  switch (kind) {
    case ChebyshevKind::T:
      return std::cos(T(n) * theta);
    case ChebyshevKind::U:
      return std::sin(T(n + 1) * theta) / std::sin(theta);
    case ChebyshevKind::V:
      if (std::sin(half) == T(1)) return chebyshev_at_end<T>(kind, n, false);
      return std::cos((T(n) + T(0.5)) * theta) / std::cos(half);
    default:
      if (std::cos(half) == T(1)) return chebyshev_at_end<T>(kind, n, true);
      return std::sin((T(n) + T(0.5)) * theta) / std::sin(half);
  }
}

// Outside [-1, 1], |y| = cosh(g): T = cosh(n g), U = sinh((n+1) g) / sinh(g), V = cosh((n+1/2) g) /
// cosh(g/2), W = sinh((n+1/2) g) / sinh(g/2); below -1, T_n(y) = (-1)^n T_n(|y|), U likewise, while V and W
// trade places (V_n(y) = (-1)^n W_n(|y|)). Used past kMaxRecurrenceDegree only; an overflow gives NaN, the
// value the recurrence reaches two steps after its inf.
template <typename T>
TANDEM_HOST_DEVICE inline T chebyshev_hyperbolic(ChebyshevKind kind, T y, int64_t n) {
  const T g = std::acosh(std::abs(y)), half = g / T(2), m = T(n) + T(0.5);
  if (y < T(0) && (kind == ChebyshevKind::V || kind == ChebyshevKind::W)) {
    kind = kind == ChebyshevKind::V ? ChebyshevKind::W : ChebyshevKind::V;
  }
  T value;
  switch (kind) {
    case ChebyshevKind::T:
      value = std::cosh(T(n) * g);
      break;
    case ChebyshevKind::U:
      value = std::sinh(T(n + 1) * g) / std::sinh(g);
      break;
    case ChebyshevKind::V:
      value = std::cosh(m * g) / std::cosh(half);
      break;
    default:
      value = std::sinh(m * g) / std::sinh(half);
  }
  if (y < T(0) && n % 2 != 0) value = -value;
  return std::isinf(value) ? std::numeric_limits<T>::quiet_NaN() : value;
}

// C_n(y) of the given kind; the closed trigonometric form replaces the recurrence inside (-1, 1) for degrees
// above trig_above (PyTorch's thresholds, which differ between the plain and the shifted polynomials).
template <typename T>
TANDEM_HOST_DEVICE inline T chebyshev(ChebyshevKind kind, T y, int64_t n, int64_t trig_above) {
  if (n < 0) return T(0);
  if (std::abs(y) == T(1)) return chebyshev_at_end<T>(kind, n, y > T(0));
  if (n > trig_above && std::abs(y) < T(1)) return chebyshev_trigonometric(kind, y, n);
  if (n > kMaxRecurrenceDegree && std::abs(y) > T(1)) return chebyshev_hyperbolic(kind, y, n);
  const T two_y = y + y;
  const T p1 = kind == ChebyshevKind::T   ? y
               : kind == ChebyshevKind::U ? two_y
               : kind == ChebyshevKind::V ? two_y - T(1)
                                          : two_y + T(1);
  return run_recurrence(T(1), p1, n,
                        [two_y](int64_t, T previous, T current) { return two_y * current - previous; });
}

template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T chebyshev_polynomial_t(T x, int64_t n) {
  return chebyshev(ChebyshevKind::T, x, n, 6);
}
template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T chebyshev_polynomial_u(T x, int64_t n) {
  return chebyshev(ChebyshevKind::U, x, n, 8);
}
template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T chebyshev_polynomial_v(T x, int64_t n) {
  return chebyshev(ChebyshevKind::V, x, n, 8);
}
template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T chebyshev_polynomial_w(T x, int64_t n) {
  return chebyshev(ChebyshevKind::W, x, n, 8);
}
template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T shifted_chebyshev_polynomial_t(T x, int64_t n) {
  return chebyshev(ChebyshevKind::T, x + x - T(1), n, 6);
}
template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T shifted_chebyshev_polynomial_u(T x, int64_t n) {
  return chebyshev(ChebyshevKind::U, x + x - T(1), n, 6);
}
template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T shifted_chebyshev_polynomial_v(T x, int64_t n) {
  return chebyshev(ChebyshevKind::V, x + x - T(1), n, 6);
}
template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T shifted_chebyshev_polynomial_w(T x, int64_t n) {
  return chebyshev(ChebyshevKind::W, x + x - T(1), n, 4);
}

// Past this degree PyTorch's Hermite polynomials are NaN (their values overflow the type long before).
template <typename T>
TANDEM_HOST_DEVICE constexpr int64_t hermite_limit() {
  return sizeof(T) == 4 ? 128 : 512;
}

// H_(k+1) = 2x H_k - 2k H_(k-1), H_1 = 2x
template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T hermite_polynomial_h(T x, int64_t n) {
  if (n < 0) return T(0);
  if (n > hermite_limit<T>()) return std::numeric_limits<T>::quiet_NaN();
  const T two_x = x + x;
  return run_recurrence(T(1), two_x, n, [two_x](int64_t k, T previous, T current) {
    return two_x * current - T(k + k) * previous;
  });
}

// He_(k+1) = x He_k - k He_(k-1), He_1 = x
template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T hermite_polynomial_he(T x, int64_t n) {
  if (n < 0) return T(0);
  if (n > hermite_limit<T>()) return std::numeric_limits<T>::quiet_NaN();
  return run_recurrence(T(1), x, n,
                        [x](int64_t k, T previous, T current) { return x * current - T(k) * previous; });
}

// (k+1) L_(k+1) = (2k + 1 - x) L_k - k L_(k-1), L_1 = 1 - x; L_n(0) = 1
template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T laguerre_polynomial_l(T x, int64_t n) {
  if (n < 0) return T(0);
  if (x == T(0)) return T(1);
  const T one_minus_x = T(1) - x;
  return run_recurrence(T(1), one_minus_x, n, [one_minus_x](int64_t k, T previous, T current) {
    return ((T(k + k) + one_minus_x) * current - T(k) * previous) / T(k + 1);
  });
}

// (k+1) P_(k+1) = (2k + 1) x P_k - k P_(k-1), P_1 = x; P_n(+-1) = (+-1)^n
template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T legendre_polynomial_p(T x, int64_t n) {
  if (n < 0) return T(0);
  if (std::abs(x) == T(1)) return x > T(0) || n % 2 == 0 ? T(1) : T(-1);
  return run_recurrence(T(1), x, n, [x](int64_t k, T previous, T current) {
    return (T(k + k + 1) * x * current - T(k) * previous) / T(k + 1);
  });
}

}  // namespace polynomial
}  // namespace special_math
}  // namespace tandem
