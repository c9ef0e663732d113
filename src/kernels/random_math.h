// log and sin/cos for the random distributions, built only from +, -, *, / and bit operations. Those round
// the same under g++ and nvcc (both built without FMA contraction for the random kernels), so a draw gives
// the same bits on the CPU and on a GPU; glibc's and CUDA's log/sin/cos differ in the last bit on some
// inputs. Accuracy is about 1 ulp, far below what sampling can observe.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/macros.h"

namespace tandem {

namespace random_math_detail {
template <typename T>
struct Bits {  // float
  using type = uint32_t;
  static constexpr int kMantissa = 23, kBias = 127;
  static constexpr float kLn2Hi = 0.693145751953125f;  // ln 2 with trailing zero bits: e * kLn2Hi is exact
  static constexpr float kLn2Lo = 1.42860682030941723212e-6f;
  static constexpr int kLogTerms = 5, kSinTerms = 4, kCosTerms = 5;
};
template <>
struct Bits<double> {
  using type = uint64_t;
  static constexpr int kMantissa = 52, kBias = 1023;
  static constexpr double kLn2Hi = 6.93147180369123816490e-01;
  static constexpr double kLn2Lo = 1.90821492927058770002e-10;
  static constexpr int kLogTerms = 11, kSinTerms = 8, kCosTerms = 8;
};

// 1 / n!
constexpr double inverse_factorial(int n) {
  double f = 1;
  for (int i = 2; i <= n; ++i) f *= i;
  return 1.0 / f;
}
}  // namespace random_math_detail

// Natural log of a positive normal float or double, as fdlibm does it: x = 2^e (1 + f) with 1 + f in
// [sqrt(1/2), sqrt(2)), s = f / (2 + f), and log(1 + f) = 2 atanh(s) = f - (f^2/2 - s (f^2/2 + R)) with
// R = 2 s^2/3 + 2 s^4/5 + ... (|s| < 0.172), which keeps the exact f as the leading term.
template <typename T>
TANDEM_HOST_DEVICE TANDEM_INLINE T random_log(T x) {
  using B = random_math_detail::Bits<T>;
  using U = typename B::type;
  U bits;
  std::memcpy(&bits, &x, sizeof bits);
  int e = static_cast<int>(bits >> B::kMantissa) - B::kBias;
  bits = (bits & ((U(1) << B::kMantissa) - 1)) | (static_cast<U>(B::kBias) << B::kMantissa);
  T m;
  std::memcpy(&m, &bits, sizeof m);
  if (m > T(1.41421356237309504880)) {
    m = m * T(0.5);
    ++e;
  }
  const T f = m - T(1);  // exact
  const T s = f / (T(2) + f);
  const T z = s * s;
  T r = T(2.0 / (2 * B::kLogTerms + 1));
  for (int k = B::kLogTerms - 1; k >= 1; --k) r = r * z + T(2.0 / (2 * k + 1));
  r = r * z;
  const T hfsq = T(0.5) * f * f;
  const T te = static_cast<T>(e);
  return te * B::kLn2Hi + (te * B::kLn2Lo + (f - (hfsq - s * (hfsq + r))));
}

// sin(2 pi u) and cos(2 pi u) for u in [0, 1): u = q/4 + r exactly with |r| <= 1/8, then Taylor series of
// x = 2 pi r on [-pi/4, pi/4] and the quadrant q.
template <typename T>
TANDEM_HOST_DEVICE TANDEM_INLINE void random_sincos_2pi(T u, T* sin_out, T* cos_out) {
  using B = random_math_detail::Bits<T>;
  const int q = static_cast<int>(u * T(4) + T(0.5));
  const T x = (u - static_cast<T>(q) * T(0.25)) * T(6.28318530717958647692);
  const T x2 = x * x;
  T sp = T((B::kSinTerms % 2 ? -1 : 1) * random_math_detail::inverse_factorial(2 * B::kSinTerms + 1));
  for (int k = B::kSinTerms - 1; k >= 1; --k)
    sp = sp * x2 + T((k % 2 ? -1 : 1) * random_math_detail::inverse_factorial(2 * k + 1));
  T cp = T((B::kCosTerms % 2 ? -1 : 1) * random_math_detail::inverse_factorial(2 * B::kCosTerms));
  for (int k = B::kCosTerms - 1; k >= 1; --k)
    cp = cp * x2 + T((k % 2 ? -1 : 1) * random_math_detail::inverse_factorial(2 * k));
  const T s = x + x * x2 * sp;
  const T c = T(1) + x2 * cp;
  switch (q & 3) {
    case 0:
      *sin_out = s, *cos_out = c;
      break;
    case 1:
      *sin_out = c, *cos_out = -s;
      break;
    case 2:
      *sin_out = -s, *cos_out = -c;
      break;
    default:
      *sin_out = -c, *cos_out = s;
      break;
  }
}

}  // namespace tandem
