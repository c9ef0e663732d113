// The orthogonal polynomials of torch.special: Chebyshev T, U, V, W and their shifted forms on [0, 1],
// physicists' and probabilists' Hermite, Laguerre and Legendre, evaluated by their three-term recurrences
// (Chebyshev T/U/V/W inside (-1, 1) for n > 6 by the trigonometric closed forms), written once for the CPU
// and CUDA loops. The recurrences are PyTorch's (ATen/native/Math.h) and run in the op's compute type (float
// for float32, as PyTorch), so overflow to inf and then NaN for large n happens where PyTorch's does. A loop
// stops once its value is NaN (it could not become a number again), which bounds the work for |x| > 1.
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

template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T chebyshev_polynomial_t(T x, int64_t n) {
  if (n < 0) {
    return T(0.0);
  }

  if (std::abs(x) == T(1.0)) {
    if (x > T(0.0) || n % 2 == 0) {
      return T(1.0);
    }

    return T(-1.0);
  }

  if ((n > 6) && (std::abs(x) < T(1.0))) {
    return std::cos(n * std::acos(x));
  }

  if (n == 0) {
    return T(1.0);
  }

  if (n == 1) {
    return x;
  }

  T p = T(1.0);
  T q = x;
  T r = x;

  for (int64_t k = 2; (k <= n) && !std::isnan(q); k++) {
    r = (x + x) * q - p;
    p = q;
    q = r;
  }

  return r;
}

template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T chebyshev_polynomial_u(T x, int64_t n) {
  if (n < 0) {
    return T(0.0);
  }

  if (std::abs(x) == T(1.0)) {
    if (x > T(0.0) || n % 2 == 0) {
      return n + 1;
    }

    return -(n + 1);
  }

  if ((n > 8) && (std::abs(x) < T(1.0))) {
    if (std::sin(std::acos(x)) != T(0.0)) {
      return std::sin((n + 1) * std::acos(x)) / std::sin(std::acos(x));
    }

    return (n + 1) * std::cos((n + 1) * std::acos(x)) / x;
  }

  if (n == 0) {
    return T(1.0);
  }

  if (n == 1) {
    return x + x;
  }

  T p = T(1.0);
  T q = x + x;
  T r = q;

  for (int64_t k = 2; (k <= n) && !std::isnan(q); k++) {
    r = (x + x) * q - p;
    p = q;
    q = r;
  }

  return r;
}

template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T chebyshev_polynomial_v(T x, int64_t n) {
  if (n < 0) {
    return T(0.0);
  }

  if (std::abs(x) == T(1.0)) {
    if (x > T(0.0)) {
      return T(1.0);
    }

    if (n % 2 == 0) {
      return n + n + 1;
    }

    return -(n + n + 1);
  }

  if ((n > 8) && (std::abs(x) < T(1.0))) {
    if (std::sin(std::acos(x) / T(2.0)) != T(1.0)) {
      return std::cos((n + T(0.5)) * std::acos(x)) / std::cos(std::acos(x) / T(2.0));
    }

    if (n % 2 == 0) {
      return n + n + 1;
    }

    return -(n + n + 1);
  }

  if (n == 0) {
    return T(1.0);
  }

  if (n == 1) {
    return x + x - T(1.0);
  }

  T p = T(1.0);
  T q = x + x - T(1.0);
  T r = q;

  for (int64_t k = 2; (k <= n) && !std::isnan(q); k++) {
    r = (x + x) * q - p;
    p = q;
    q = r;
  }

  return r;
}

template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T chebyshev_polynomial_w(T x, int64_t n) {
  if (n < 0) {
    return T(0.0);
  }

  if (std::abs(x) == T(1.0)) {
    if (x > T(0.0)) {
      return n + n + 1;
    }

    if (n % 2 == 0) {
      return T(1.0);
    }

    return T(-1.0);
  }

  if ((n > 8) && (std::abs(x) < T(1.0))) {
    if (std::cos(std::acos(x) / T(2.0)) != T(1.0)) {
      return std::sin((n + T(0.5)) * std::acos(x)) / std::sin(std::acos(x) / T(2.0));
    }

    if (x > T(0.0)) {
      return n + n + 1;
    }

    if (n % 2 == 0) {
      return T(1.0);
    }

    return T(-1.0);
  }

  if (n == 0) {
    return T(1.0);
  }

  if (n == 1) {
    return x + x + T(1.0);
  }

  T p = T(1.0);
  T q = x + x + T(1.0);
  T r = q;

  for (int64_t k = 2; (k <= n) && !std::isnan(q); k++) {
    r = (x + x) * q - p;
    p = q;
    q = r;
  }

  return r;
}

template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T shifted_chebyshev_polynomial_t(T x, int64_t n) {
  if (n < 0) {
    return T(0.0);
  }

  if (x == T(1.0)) {
    return T(1.0);
  }

  if (x == T(0.0)) {
    if (n % 2 == 0) {
      return T(1.0);
    }

    return T(-1.0);
  }

  if ((n > 6) && (std::abs(x + x - T(1.0)) < T(1.0))) {
    return std::cos(n * std::acos(x + x - T(1.0)));
  }

  if (n == 0) {
    return T(1.0);
  }

  if (n == 1) {
    return x + x - T(1.0);
  }

  T p = T(1.0);
  T q = x + x - T(1.0);
  T r = q;

  for (int64_t k = 2; (k <= n) && !std::isnan(q); k++) {
    r = (x + x - T(1.0) + (x + x - T(1.0))) * q - p;
    p = q;
    q = r;
  }

  return r;
}

template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T shifted_chebyshev_polynomial_u(T x, int64_t n) {
  if (n < 0) {
    return T(0.0);
  }

  if (x == T(1.0)) {
    return n + 1;
  }

  if (x == T(0.0)) {
    if (n % 2 == 0) {
      return n + 1;
    }

    return -(n + 1);
  }

  if ((n > 6) && (std::abs(x + x - T(1.0)) < T(1.0))) {
    if (std::sin(std::acos(x + x - T(1.0))) != T(0.0)) {
      return std::sin((n + 1) * std::acos(x + x - T(1.0))) / std::sin(std::acos(x + x - T(1.0)));
    }

    return (n + 1) * std::cos((n + 1) * std::acos(x + x - T(1.0))) / (x + x - T(1.0));
  }

  if (n == 0) {
    return T(1.0);
  }

  if (n == 1) {
    return x + x - T(1.0) + (x + x - T(1.0));
  }

  T p = T(1.0);
  T q = x + x - T(1.0) + (x + x - T(1.0));
  T r = q;

  for (int64_t k = 2; (k <= n) && !std::isnan(q); k++) {
    r = (x + x - T(1.0) + (x + x - T(1.0))) * q - p;
    p = q;
    q = r;
  }

  return r;
}

template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T shifted_chebyshev_polynomial_v(T x, int64_t n) {
  if (n < 0) {
    return T(0.0);
  }

  if (x == T(1.0)) {
    return T(1.0);
  }

  if (x == T(0.0)) {
    if (n % 2 == 0) {
      return (n + n + 1);
    }

    return -(n + n + 1);
  }

  if ((n > 6) && (std::abs(x + x - T(1.0)) < T(1.0))) {
    if (std::sin(std::acos(x + x - T(1.0)) / T(2.0)) != T(1.0)) {
      return std::cos((n + T(0.5)) * std::acos(x + x - T(1.0))) /
             std::cos(std::acos(x + x - T(1.0)) / T(2.0));
    }

    if (n % 2 == 0) {
      return n + n + 1;
    }

    return -(n + n + 1);
  }

  if (n == 0) {
    return T(1.0);
  }

  if (n == 1) {
    return x + x - T(1.0) + (x + x - T(1.0)) - T(1.0);
  }

  T p = T(1.0);
  T q = x + x - T(1.0) + (x + x - T(1.0)) - T(1.0);
  T r = q;

  for (int64_t k = 2; (k <= n) && !std::isnan(q); k++) {
    r = (x + x - T(1.0) + (x + x - T(1.0))) * q - p;
    p = q;
    q = r;
  }

  return r;
}

template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T shifted_chebyshev_polynomial_w(T x, int64_t n) {
  if (n < 0) {
    return T(0.0);
  }

  if (x == T(1.0)) {
    return n + n + 1;
  }

  if (x == T(0.0)) {
    if (n % 2 == 0) {
      return T(1.0);
    }

    return T(-1.0);
  }

  if ((n > 4) && (std::abs(x + x - T(1.0)) < T(1.0))) {
    if (std::cos(std::acos(x + x - T(1.0)) / T(2.0)) != T(1.0)) {
      return std::sin((n + T(0.5)) * std::acos(x + x - T(1.0))) /
             std::sin(std::acos(x + x - T(1.0)) / T(2.0));
    }

    if (n % 2 == 0) {
      return T(1.0);
    }

    return T(-1.0);
  }

  if (n == 0) {
    return T(1.0);
  }

  if (n == 1) {
    return x + x - T(1.0) + (x + x - T(1.0)) + T(1.0);
  }

  T p = T(1.0);
  T q = x + x - T(1.0) + (x + x - T(1.0)) + T(1.0);
  T r = q;

  for (int64_t k = 2; (k <= n) && !std::isnan(q); k++) {
    r = (x + x - T(1.0) + (x + x - T(1.0))) * q - p;
    p = q;
    q = r;
  }

  return r;
}

// Past this degree PyTorch's Hermite polynomials are NaN (their values overflow the type long before).
template <typename T>
TANDEM_HOST_DEVICE constexpr int64_t hermite_limit() {
  return sizeof(T) == 4 ? 128 : 512;
}

template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T hermite_polynomial_h(T x, int64_t n) {
  if (n < 0) {
    return T(0.0);
  }

  if (n == 0) {
    return T(1.0);
  }

  if (n == 1) {
    return x + x;
  }

  if (n > hermite_limit<T>()) {
    return std::numeric_limits<T>::quiet_NaN();
  }

  T p = T(1.0);
  T q = x + x;
  T r = T(0.0);

  for (int64_t k = 2; k < n + n; k += 2) {
    r = (x + x) * q - k * p;
    p = q;
    q = r;
  }

  return r;
}

template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T hermite_polynomial_he(T x, int64_t n) {
  if (n < 0) {
    return T(0.0);
  }

  if (n == 0) {
    return T(1.0);
  }

  if (n == 1) {
    return x;
  }

  if (n > hermite_limit<T>()) {
    return std::numeric_limits<T>::quiet_NaN();
  }

  T p = T(1.0);
  T q = x;
  T r;

  for (int64_t k = 1; k < n; k++) {
    r = x * q - k * p;
    p = q;
    q = r;
  }

  return r;
}

template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T laguerre_polynomial_l(T x, int64_t n) {
  if (n < 0) {
    return T(0.0);
  }

  if (std::abs(x) == T(0.0)) {
    return T(1.0);
  }

  if (n == 0) {
    return T(1.0);
  }

  if (n == 1) {
    return T(1.0) - x;
  }

  T p = T(1.0);
  T q = T(1.0) - x;
  T r = q;

  for (int64_t k = 1; (k < n) && !std::isnan(q); k++) {
    r = (((k + k) + (T(1.0) - x)) * q - k * p) / (k + 1);
    p = q;
    q = r;
  }

  return r;
}

template <typename T>
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline T legendre_polynomial_p(T x, int64_t n) {
  if (n < 0) {
    return T(0.0);
  }

  if (std::abs(x) == T(1.0)) {
    if (x > T(0.0) || n % 2 == 0) {
      return T(1.0);
    }

    return T(-1.0);
  }

  if (n == 0) {
    return T(1.0);
  }

  if (n == 1) {
    return x;
  }

  T p = T(1.0);
  T q = x;
  T r = q;

  for (int64_t k = 1; (k < n) && !std::isnan(q); k++) {
    r = ((k + k + 1) * x * q - k * p) / (k + 1);
    p = q;
    q = r;
  }

  return r;
}

}  // namespace polynomial
}  // namespace special_math
}  // namespace tandem
