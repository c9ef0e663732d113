// The rejection samplers behind _standard_gamma, poisson, binomial (and through them the gamma families of
// tandem.distributions), written once for the CPU and CUDA kernels, plus the reparameterised gradient of a
// gamma sample. The algorithms are PyTorch's (NumPy's): Marsaglia-Tsang for gamma with the alpha < 1 boost,
// Hörmann's PTRS / the multiplication method for Poisson, Kachitvichyanukul-Schmeiser inversion / Hörmann's
// BTRS for the binomial. A rejection sampler consumes a variable number of uniforms, so element i reads its
// own Philox stream (PhiloxStream): what it draws never depends on another element, on the thread count or on
// the device. The samplers use only random_math.h's log/exp and +-*/sqrt, which round alike under g++ and
// nvcc, so an element's value is the same on every device.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "core/macros.h"
#include "core/philox.h"
#include "kernels/random_math.h"

namespace tandem {

// exp(x) from +-*/ and bit operations (see random_math.h): x = k ln2 + r with |r| <= ln2/2, a Taylor
// polynomial for exp(r) and 2^k applied as two exact power-of-two factors (so subnormal results round once).
template <typename T>
TANDEM_HOST_DEVICE TANDEM_INLINE T random_exp(T x) {
  constexpr bool kDouble = std::is_same_v<T, double>;
  constexpr T kMax = kDouble ? T(709.782712893384) : T(88.7228317);
  constexpr T kMin = kDouble ? T(-745.1332191019412) : T(-103.972084);
  constexpr int kTerms = kDouble ? 13 : 8;
  if (x != x) return x;
  if (x > kMax) return T(INFINITY);
  if (x < kMin) return T(0);
  using B = random_math_detail::Bits<T>;
  const T kd = x * T(1.44269504088896340736) + (x >= 0 ? T(0.5) : T(-0.5));
  const int k = static_cast<int>(kd);
  const T r = (x - static_cast<T>(k) * B::kLn2Hi) - static_cast<T>(k) * B::kLn2Lo;
  T p = T(random_math_detail::inverse_factorial(kTerms));
  for (int i = kTerms - 1; i >= 0; --i) p = p * r + T(random_math_detail::inverse_factorial(i));
  using U = typename B::type;
  const int k1 = k / 2, k2 = k - k1;
  U b1 = static_cast<U>(k1 + B::kBias) << B::kMantissa, b2 = static_cast<U>(k2 + B::kBias) << B::kMantissa;
  T s1, s2;
  std::memcpy(&s1, &b1, sizeof s1);
  std::memcpy(&s2, &b2, sizeof s2);
  return p * s1 * s2;
}

// log(1 + x) for x > -1, accurate for tiny x: with u = 1 + x rounded, log(u) * x / (u - 1) cancels the
// rounding error of u (Goldberg's trick).
TANDEM_HOST_DEVICE TANDEM_INLINE double random_log1p(double x) {
  const double u = 1.0 + x;
  if (u == 1.0) return x;
  return random_log(u) * x / (u - 1.0);
}

// log(k!) - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi)/2] for an integer k >= 0: Stirling's correction, a
// table for small k (as PyTorch's BTRS), its asymptotic series beyond.
TANDEM_HOST_DEVICE TANDEM_INLINE double stirling_tail(double k) {
  constexpr double kTail[10] = {
      0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509, 0.0166446911898211,
      0.0138761288230707, 0.0118967099458917, 0.0104112652619720, 0.00925546218271273, 0.00833056343336287};
  if (k <= 9) return kTail[static_cast<int>(k)];
  const double kp1sq = (k + 1) * (k + 1);
  return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1);
}

// The Philox stream of one element: element i of a draw starting at `offset` reads the blocks with counter
// (offset + i, j) for j = 0, 1, ...; j = 0 is the block the front end reserved for it, the others lie in the
// counter's third word, which no other draw uses.
struct PhiloxStream {
  uint64_t seed, block;
  uint32_t sub = 0;
  int next = 4;
  PhiloxWords words{};

  TANDEM_HOST_DEVICE PhiloxStream(uint64_t seed_, uint64_t block_) : seed(seed_), block(block_) {}
  TANDEM_HOST_DEVICE uint32_t word() {
    if (next == 4) {
      PhiloxWords ctr{{static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), sub++, 0u}};
      words = philox4x32_10(ctr, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
      next = 0;
    }
    return words.w[next++];
  }
  // Uniform in (0, 1]: a positive multiple of 2^-53 (double) or 2^-24 (float), safe to take the log of.
  template <typename T>
  TANDEM_HOST_DEVICE T uniform_pos() {
    if constexpr (std::is_same_v<T, double>) {
      const uint64_t hi = word(), lo = word();
      return static_cast<double>((((hi << 32) | lo) >> 11) + 1) * 0x1p-53;
    } else {
      return static_cast<float>((word() >> 8) + 1) * 0x1p-24f;
    }
  }
  // Uniform in (0, 1), symmetric about 1/2: what the Poisson and binomial samplers compare and take logs of.
  TANDEM_HOST_DEVICE double uniform() {
    const uint64_t hi = word(), lo = word();
    return (static_cast<double>(((hi << 32) | lo) >> 11) + 0.5) * 0x1p-53;
  }
  // N(0, 1) by Box-Muller (one of the pair; the other is dropped to keep the stream simple).
  template <typename T>
  TANDEM_HOST_DEVICE T normal() {
    const T u1 = uniform_pos<T>();
    const T u2 = uniform_pos<T>();
    T s, c;
    random_sincos_2pi(u2 >= T(1) ? T(0) : u2, &s, &c);
    return std::sqrt(T(-2) * random_log(u1)) * c;
  }
};

// Gamma(alpha, 1) in the accumulate type A (float or double) by Marsaglia and Tsang (2000). For alpha < 1 a
// Gamma(alpha + 1) sample is scaled by U^(1/alpha). Non-positive and NaN alpha give 0 (PyTorch then clamps to
// the dtype's smallest normal, as the caller does), infinite alpha gives inf: neither loops.
template <typename A>
TANDEM_HOST_DEVICE A sample_standard_gamma(A alpha, PhiloxStream& s) {
  if (!(alpha > A(0))) return A(0);
  if (alpha == A(INFINITY)) return alpha;
  A scale = 1;
  if (alpha < A(1)) {
    scale = random_exp(random_log(s.uniform_pos<A>()) / alpha);
    alpha += A(1);
  }
  const A d = alpha - A(1) / A(3);
  const A c = A(1) / std::sqrt(A(9) * d);
  for (;;) {
    A x, y;
    do {
      x = s.normal<A>();
      y = A(1) + c * x;
    } while (y <= A(0));
    const A v = y * y * y;
    const A u = s.uniform_pos<A>();
    const A xx = x * x;
    if (u < A(1) - A(0.0331) * xx * xx) return scale * d * v;
    // v below the smallest normal (y ~ 1e-13) is as good as rejected; random_log needs a normal input.
    if (v >= A(std::is_same_v<A, double> ? 2.2250738585072014e-308 : 1.17549435e-38f) &&
        random_log(u) < A(0.5) * xx + d * (A(1) - v + random_log(v)))
      return scale * d * v;
  }
}

// The functions the Poisson and binomial samplers take logs and exponentials with. Philox draws (every
// device) use random_math.h's, which round alike under g++ and nvcc; PyTorch's CPU stream
// (ops/random_cpu_stream.cpp) brings libm's, as PyTorch's kernels use them. log and log1p keep their
// argument's type: PyTorch's binomial runs some steps in float for a float32 tensor.
struct DeviceIdenticalMath {
  template <typename T>
  TANDEM_HOST_DEVICE static T log(T x) {
    return random_log(x);
  }
  TANDEM_HOST_DEVICE static double log1p(double x) { return random_log1p(x); }
  TANDEM_HOST_DEVICE static double exp(double x) { return random_exp(x); }
  TANDEM_HOST_DEVICE static double log_factorial(double k) {  // lgamma(k + 1) for an integer k >= 0
    return 0.91893853320467274178 + (k + 0.5) * random_log(k + 1) - (k + 1) + stirling_tail(k);
  }
};

// Poisson(rate) for a rate >= 0 (NaN/negative rates are refused by the front end), as PyTorch: rates >= 10
// use Hörmann's transformed rejection with squeeze (PTRS, 1993), smaller ones multiply uniforms until they
// drop below exp(-rate). An infinite rate gives inf after PTRS's first two draws (PyTorch's candidate
// overflows to -2^63 and is returned). `s.uniform()` is the source's uniform in [0, 1) as a double.
template <typename Math, typename Source>
TANDEM_HOST_DEVICE double sample_poisson(double rate, Source& s) {
  if (rate >= 10) {
    const double slam = std::sqrt(rate);
    const double loglam = Math::log(rate);
    const double b = 0.931 + 2.53 * slam;
    const double a = -0.059 + 0.02483 * b;
    const double log_invalpha = Math::log(1.1239 + 1.1328 / (b - 3.4));
    const double vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
      const double u = s.uniform() - 0.5;
      const double v = s.uniform();
      if (rate == INFINITY) return rate;
      const double us = 0.5 - std::fabs(u);
      const double k = std::floor((2 * a / us + b) * u + rate + 0.43);
      if (us >= 0.07 && v <= vr) return k;
      if (k < 0 || (us < 0.013 && v > us)) continue;
      if (Math::log(v) + log_invalpha - Math::log(a / (us * us) + b) <=
          -rate + k * loglam - Math::log_factorial(k))
        return k;
    }
  }
  if (rate == 0) return 0;
  const double limit = Math::exp(-rate);
  double count = 0;
  for (double product = 1.0;; count += 1) {
    product *= s.uniform();
    if (!(product > limit)) return count;
  }
}

namespace gamma_samplers_detail {
// Successes in `count` trials with a small mean count * prob (< 10, prob <= 1/2): the geometric waiting times
// between successes, summed until they pass count. T is the tensor's accumulate type: float for float32 in
// PyTorch's CPU kernel, which takes log1p and counts in it.
template <typename Math, typename T, typename Source>
TANDEM_HOST_DEVICE T binomial_inversion(T count, T prob, Source& s) {
  const double logq = Math::log1p(-prob);
  double geom_sum = 0;
  T successes = 0;
  for (;;) {
    geom_sum += std::ceil(Math::log(s.uniform()) / logq);
    if (geom_sum > count) return successes;
    successes = successes + 1;
  }
}

// Hörmann's BTRS (1993) for count * prob >= 10, prob <= 1/2, with PyTorch's bound (the log on v); the
// operations between T operands run in T, as PyTorch's.
template <typename Math, typename T, typename Source>
TANDEM_HOST_DEVICE T btrs(T count, T prob, Source& s) {
  const double stddev = std::sqrt(count * prob * (1 - prob));
  const double b = 1.15 + 2.53 * stddev;
  const double a = -0.0873 + 0.0248 * b + 0.01 * prob;
  const double c = count * prob + 0.5;
  const double v_r = 0.92 - 4.2 / b;
  const double r = prob / (1 - prob);
  const double alpha = (2.83 + 5.1 / b) * stddev;
  const double m = std::floor((count + 1) * prob);
  for (;;) {
    const double u = s.uniform() - 0.5;
    double v = s.uniform();
    const double us = 0.5 - std::fabs(u);
    const T k = static_cast<T>(std::floor((2 * a / us + b) * u + c));
    if (k < 0 || k > count) continue;
    if (us >= 0.07 && v <= v_r) return k;
    v = Math::log(v * alpha / (a / (us * us) + b));
    const double bound = (m + 0.5) * Math::log((m + 1) / (r * (count - m + 1))) +
                         (count + 1) * Math::log((count - m + 1) / (count - k + 1)) +
                         (k + 0.5) * Math::log(r * (count - k + 1) / (k + 1)) + stirling_tail(m) +
                         stirling_tail(count - m) - stirling_tail(k) - stirling_tail(count - k);
    if (v <= bound) return k;
  }
}
}  // namespace gamma_samplers_detail

// Binomial(count, prob) as PyTorch: count <= 0 or prob <= 0 give 0, prob >= 1 gives count, prob > 1/2 is
// drawn as count minus the failures, a NaN prob gives NaN. An infinite count runs BTRS as PyTorch's does (inf
// or NaN after a few draws); a NaN count gives NaN at once, where PyTorch's inversion loop never returns.
template <typename Math, typename T, typename Source>
TANDEM_HOST_DEVICE T sample_binomial(T count, T prob, Source& s) {
  using namespace gamma_samplers_detail;
  if (count <= 0 || prob <= 0) return 0;
  if (prob >= 1) return count;
  if (count != count) return count;
  if (prob <= T(0.5))
    return count * prob >= 10 ? btrs<Math>(count, prob, s) : binomial_inversion<Math>(count, prob, s);
  if (prob > T(0.5)) {
    const T q = static_cast<T>(1.0 - prob);
    return count - (count * q >= 10 ? btrs<Math>(count, q, s) : binomial_inversion<Math>(count, q, s));
  }
  return T(NAN);
}

// digamma for the gradient below (Cephes, as PyTorch's digamma_one).
TANDEM_HOST_DEVICE TANDEM_INLINE double gamma_grad_digamma(double x) {
  if (x == 0) return INFINITY;
  double extra = 0;
  if (x < 0) {
    if (x == std::floor(x)) return INFINITY;
    extra = -3.14159265358979323846 / std::tan(3.14159265358979323846 * x);
    x = 1 - x;
  }
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (x == 10) return result + 2.25175258906672110764 + extra;
  double y = 0;
  if (x < 1.0e17) {
    const double z = 1.0 / (x * x);
    constexpr double kA[7] = {8.33333333333333333333E-2, -2.10927960927960927961E-2,
                              7.57575757575757575758E-3, -4.16666666666666666667E-3,
                              3.96825396825396825397E-3, -8.33333333333333333333E-3,
                              8.33333333333333333333E-2};
    double p = kA[0];
    for (int i = 1; i < 7; ++i) p = p * z + kA[i];
    y = z * p;
  }
  return result + std::log(x) - 0.5 / x - y + extra;
}

// d x / d alpha for a Gamma(alpha, 1) sample x: -(d cdf(x; alpha) / d alpha) / pdf(x; alpha), by PyTorch's
// three approximations (a Taylor series for small x, Rice's saddle-point expansion for large alpha, a
// bivariate rational fit elsewhere), so gradients agree with PyTorch's.
TANDEM_HOST_DEVICE TANDEM_INLINE double standard_gamma_grad(double alpha, double x) {
  if (x < 0.8) {
    double numer = 1, denom = alpha;
    double series1 = numer / denom, series2 = numer / (denom * denom);
    for (int i = 1; i <= 5; ++i) {
      numer *= -x / i;
      denom += 1;
      series1 += numer / denom;
      series2 += numer / (denom * denom);
    }
    const double pow_x_alpha = std::pow(x, alpha);
    const double gamma_pdf = std::pow(x, alpha - 1) * std::exp(-x);
    const double gamma_cdf = pow_x_alpha * series1;
    const double gamma_cdf_alpha =
        (std::log(x) - gamma_grad_digamma(alpha)) * gamma_cdf - pow_x_alpha * series2;
    const double result = -gamma_cdf_alpha / gamma_pdf;
    return result != result ? 0.0 : result;
  }
  if (alpha > 8) {
    if (0.9 * alpha <= x && x <= 1.1 * alpha) {
      const double numer_1 = 1 + 24 * alpha * (1 + 12 * alpha);
      const double numer_2 =
          1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x);
      const double denom = 1244160 * (alpha * alpha) * (alpha * alpha);
      return numer_1 * numer_2 / denom;
    }
    const double denom = std::sqrt(8 * alpha);
    const double term2 = denom / (alpha - x);
    const double term3 = std::pow(x - alpha - alpha * std::log(x / alpha), -1.5);
    const double term23 = x < alpha ? term2 - term3 : term2 + term3;
    const double term1 =
        std::log(x / alpha) * term23 - std::sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x));
    const double stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha));
    return -stirling * x * term1 / denom;
  }
  const double u = std::log(x / alpha);
  const double v = std::log(alpha);
  constexpr double kCoef[3][8] = {
      {0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084},
      {0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
       -0.00058392623},
      {0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
       -1.5247877e-07},
  };
  double cv[8];
  for (int i = 0; i < 8; ++i) cv[i] = kCoef[0][i] + u * (kCoef[1][i] + u * kCoef[2][i]);
  const double p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]));
  const double q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]));
  return std::exp(p / q);
}

// The smallest positive normal value of each floating dtype: PyTorch's floor for gamma samples.
template <typename T>
constexpr double smallest_normal() {
  if constexpr (std::is_same_v<T, double>)
    return 2.2250738585072014e-308;
  else if constexpr (std::is_same_v<T, Half>)
    return 6.103515625e-05;
  else
    return 1.1754943508222875e-38;  // float and bfloat16
}

}  // namespace tandem
