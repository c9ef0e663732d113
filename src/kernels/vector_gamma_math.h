// log|Gamma(x)| and psi(x) for float arguments on the CPU, branch-free so a loop over them vectorises (the
// C library's lgammaf_r and the double digamma's recurrence loop are scalar code, a call per element).
// Everything is computed in double, where the float result rounds once, without a call: the logarithms are
// the polynomial below, and one division per element serves all the quotients. The GPU keeps the CUDA math
// library's lgammaf and the double digamma (special_functors.h).
//
// The method, for both: w = x for x >= 0, w = 1 - x (exact in double) for the reflection below 0. w < 8
// moves up to z = w + 8 through the product w (w+1) ... (w+7) = u (u+6) (u+10) (u+12), u = w (w+7) (no
// cancellation: every factor is positive), and z >= 8 takes the asymptotic series in 1/z^2. Negative
// arguments reflect through sin(pi r) and cos(pi r) of r = x - round(x), which is exact, so no multiple of
// pi is rounded. Polynomial coefficients are least-squares fits at Chebyshev nodes reweighted toward minimax
// (Lawson), in 50-digit arithmetic against mpmath; the error of each fit is given at it.
//
// Measured (a harness over every second float, plus the floats around 0, 1, 2, the negative integers and
// half-integers and each zero, against glibc's long double lgammal and a long double psi; baseline, AVX2 and
// AVX-512 code alike): lgamma within 0.55 ulp, digamma within 0.50 ulp, relative precision kept at the
// zeros (glibc's lgammaf was 6 ulp off near -3.95). tests/python/test_special.py checks 2 and 1 ulp. Speed,
// 4M floats in (0.1, 1.1), one thread of an AVX-512 Xeon VM: lgamma 16-19 ms against PyTorch's 28-31 (its
// SLEEF lgammaf) and lgammaf_r's 55-65, digamma 12-15 ms against 60-67 and the double path's 75-85; the AVX2
// code takes about twice as long, and the SSE2 baseline lgamma is slower than lgammaf_r (2 lanes, no FMA).
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>

#include "core/macros.h"
#include "kernels/series_eval.h"

namespace tandem {
namespace vector_gamma {

constexpr double kPi = 3.141592653589793238462643383279502884;
// ln 2 in two parts: k * kLn2High is exact for |k| < 2^11 (kLn2High has 32 significant bits).
constexpr double kLn2High = 6.93147180369123816490e-01;
constexpr double kLn2Low = 1.90821492927058770002e-10;

// v = 2^k m with m in [sqrt(1/2), sqrt(2)), for positive normal v: integer steps on the bit pattern (the
// exponent field, offset so that m lands in that range), k returned as a double through the 2^52 trick (AVX2
// has no 64-bit integer to double conversion).
TANDEM_INLINE double split_exponent(double v, double& k) {
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  const uint64_t offset = bits - 0x3fe6a09e667f3bcdull + (1024ull << 52);  // sqrt(1/2)'s bits
  const uint64_t biased_k = offset >> 52;                                  // k + 1024
  k = std::bit_cast<double>(0x4330000000000000ull | biased_k) - (4503599627370496.0 + 1024.0);
  return std::bit_cast<double>(bits - (offset & 0xfff0000000000000ull) + (1024ull << 52));
}

// log(m) = 2 atanh(s) for s = (m - 1) / (m + 1), |s| <= 0.1716 (m in [sqrt(1/2), sqrt(2))): 2s + 2s s^2
// Q(s^2), Q a degree-6 fit of (atanh(s)/s - 1)/s^2 with relative error 4.7e-16, which s^2 <= 0.0295 scales
// down to 1.4e-17 of the result.
// The fits' coefficient tables, highest power first (special_math::evaluate_polynomial, Horner's rule).
constexpr double kLogQ[] = {0.07308502137958428, 0.0766583682588033,  0.09091445339465887,
                            0.11111105555803544, 0.14285714313065895, 0.19999999999949558,
                            0.3333333333333335};
constexpr double kSinPiOverR[] = {7.684238532734403e-07, -2.19020515012426e-05, 0.0004662991853865202,
                                  -0.007370430360782745, 0.08214588655429335,   -0.5992645293175901,
                                  2.550164039877251,     -5.1677127800499685,   3.141592653589793};
constexpr double kCosPi[] = {4.137466395504382e-06, -0.0001045539967858636, 0.0019295509181857667,
                             -0.02580688752847129,  0.23533062997457665,    -1.3352627688322036,
                             4.058712126416064,     -4.934802200544669,     1.0};
constexpr double kStirlingG[] = {-0.0016532373086443728, 0.0008373083599314132, -0.0005952029362818687,
                                 0.0007936506668564389,  -0.002777777777609981, 0.0833333333333333};
constexpr double kDigammaH[] = {-0.017720296627342053, 0.007519445612298624,  -0.0041662225455869764,
                                0.003968252370223019,  -0.008333333331222222, 0.08333333333333288};

TANDEM_INLINE double log_reduced(double s) {
  const double z = s * s;
  const double q = special_math::evaluate_polynomial(z, kLogQ);
  const double two_s = s + s;
  return two_s + two_s * z * q;
}

// log v = k ln2 + log m for v = 2^k m split by split_exponent, s = (m - 1) / (m + 1) computed by the caller
// (which shares one division among its quotients); ln 2 in two parts keeps k ln2 exact.
TANDEM_INLINE double log_of_split(double k, double s) {
  return k * kLn2High + (log_reduced(s) + k * kLn2Low);
}

// sin(pi r) / r for |r| <= 1/2, a degree-8 fit in y = r^2, relative error 3.9e-17.
TANDEM_INLINE double sin_pi_over_r(double y) { return special_math::evaluate_polynomial(y, kSinPiOverR); }

// cos(pi r) for |r| <= 1/2, a degree-8 fit in y = r^2, absolute error 5.2e-17.
TANDEM_INLINE double cos_pi(double y) { return special_math::evaluate_polynomial(y, kCosPi); }

// x - round(x) for |x| < 2^51, exact: adding and subtracting 1.5 * 2^52 rounds to an integer.
TANDEM_INLINE double distance_to_integer(double x) {
  return x - ((x + 6755399441055744.0) - 6755399441055744.0);
}

// What lgamma and psi both start from: w = x, or 1 - x (exact) for the reflection below 0; z = w + 8 with
// p = w (w+1) ... (w+7) = u (u+6) (u+10) (u+12), u = w (w+7), where w < 8 (z = w and p = 1 from 8 up); and r,
// x's exact distance to the nearest integer, for sin(pi x) and cos(pi x).
struct ShiftedArgument {
  double x, w, u, z, p, r;
  bool negative, shifted;
};
TANDEM_INLINE ShiftedArgument shift_up(float xf) {
  ShiftedArgument a;
  a.x = xf;
  a.negative = a.x < 0;
  a.w = a.negative ? 1.0 - a.x : a.x;
  a.shifted = a.w < 8.0;
  a.u = a.w * (a.w + 7.0);
  const double product = a.u * (a.u + 6.0) * ((a.u + 10.0) * (a.u + 12.0));
  a.z = a.shifted ? a.w + 8.0 : a.w;
  a.p = a.shifted ? product : 1.0;
  a.r = distance_to_integer(a.x);
  return a;
}

}  // namespace vector_gamma

// log|Gamma(x)| for float x. z and P = w (w+1) ... (w+7) for w < 8 (P = 1, z = w from 8 up), then
// lgamma(w) = S(z) - log P with Stirling's S(z) = (z - 1/2) log z - z + log(2 pi)/2 + g(1/z^2)/z, and for
// x < 0 lgamma(x) = log(pi / |sin(pi x)|) - lgamma(w) = log(pi P / |sin(pi x)|) - S(z). The two logarithms,
// of z and of the quotient A/B (1/P, or pi P / |sin(pi x)|), split off the exponents and take log_reduced
// of s = (mz - 1) / (mz + 1) and of (mA - mB) / (mA + mB) (mA/mB brought into [sqrt(1/2), sqrt(2)] first);
// those two divisions and g's 1/z are one, 1 / ((mA + mB) (mz + 1) z). g is a degree-5 fit in 1/z^2 on
// z >= 8, absolute error 4e-17. Poles (0, -0, the negative integers) and +-inf give +inf, as PyTorch.
TANDEM_INLINE float vector_lgammaf(float xf) {
  using namespace vector_gamma;
  const ShiftedArgument arg = shift_up(xf);
  const double x = arg.x, z = arg.z, p = arg.p, r = arg.r;
  const bool negative = arg.negative;
  const double sin_abs = std::fabs(r) * sin_pi_over_r(r * r);
  const double a = negative ? kPi * p : 1.0;
  const double b = negative ? sin_abs : p;
  double ka, kb, kz;
  double ma = split_exponent(a, ka);
  const double mb = split_exponent(b, kb), mz = split_exponent(z, kz);
  // mA / mB into [sqrt(1/2), sqrt(2)]: halving or doubling mA is exact, and then mA - mB is (Sterbenz).
  const bool high = ma > 1.4142135623730951 * mb, low = ma < 0.7071067811865476 * mb;
  ma = high ? 0.5 * ma : (low ? 2.0 * ma : ma);
  const double k_ratio = ka - kb + (high ? 1.0 : (low ? -1.0 : 0.0));
  const double sum_ab = ma + mb, mz_plus = mz + 1.0;
  const double inverse = 1.0 / (sum_ab * mz_plus * z);
  const double z_inverse_part = z * inverse;
  const double s_ratio = (ma - mb) * mz_plus * z_inverse_part;
  const double s_z = (mz - 1.0) * sum_ab * z_inverse_part;
  const double inv_z = sum_ab * mz_plus * inverse;
  const double log_ratio = log_of_split(k_ratio, s_ratio);
  const double log_z = log_of_split(kz, s_z);
  const double t = inv_z * inv_z;
  const double g = special_math::evaluate_polynomial(t, kStirlingG);
  const double stirling = ((z - 0.5) * log_z - z) + (0.91893853320467274178 + g * inv_z);
  const double result = negative ? log_ratio - stirling : log_ratio + stirling;
  // Within 2^-18 of the zeros 1 and 2 the sum above keeps its absolute error (about 2e-15, the rounding of
  // terms near 10) while lgamma goes to 0: there lgamma(1 + t) = -gamma t + zeta(2)/2 t^2 and lgamma(2 + t) =
  // (1 - gamma) t + (zeta(2) - 1)/2 t^2 (t exact; the t^3 terms are below 1e-11 of the result), which makes
  // lgamma(1) = lgamma(2) = +0 exactly. From 2^-18 on the sum's error is below 0.01 ulp.
  const double t1 = x - 1.0, t2 = x - 2.0;
  const bool near_two = std::fabs(t2) < std::fabs(t1);  // (no ||: GCC does not vectorise that mix of masks)
  const double tz = near_two ? t2 : t1;
  const bool near_zero = std::fabs(tz) < 0x1p-18;
  const double c2 = near_two ? 0.32246703342411321824 : 0.82246703342411321824;
  const double c1 = near_two ? 0.42278433509846713939 : -0.57721566490153286061;
  const double taylor = tz * (c1 + tz * c2) + 0.0;  // + 0: +0 at 1, not -0
  const double value = near_zero ? taylor : result;
  const bool pole = (r == 0.0 && x <= 0.0) || std::fabs(x) == __builtin_inf();
  return x != x ? xf : (pole ? __builtin_inff() : static_cast<float>(value));
}

// psi(x) for float x. psi(w) = log z - 1/(2z) - h(1/z^2)/z^2 - sum_{k<8} 1/(w+k) for w < 8, where the sum is
// (2w + 7) p'(u) / p(u) with p(u) = u (u+6) (u+10) (u+12) the product above (the pairs 1/(w+k) + 1/(w+7-k)
// are (2w+7) / (u + k(7-k))), and psi(x) = psi(w) - pi cos(pi r) / sin(pi r) for x < 0. The quotients (1/z,
// the sum, the cotangent and log z's (m - 1) / (m + 1)) share one division. h is a degree-5 fit in 1/z^2 on
// z >= 8, absolute error 4.6e-16 (times 1/z^2 <= 1/64). Poles as PyTorch: -inf at 0, +inf at -0, NaN at the
// negative integers and -inf.
TANDEM_INLINE float vector_digammaf(float xf) {
  using namespace vector_gamma;
  const ShiftedArgument arg = shift_up(xf);
  const double x = arg.x, w = arg.w, u = arg.u, z = arg.z, p = arg.p, r = arg.r, y = r * r;
  const bool negative = arg.negative;
  const double derivative = ((4.0 * u + 84.0) * u + 504.0) * u + 720.0;
  const double sum_numerator = arg.shifted ? (2.0 * w + 7.0) * derivative : 0.0;
  const double sin_part = negative ? r * sin_pi_over_r(y) : 1.0;
  const double cos_part = negative ? cos_pi(y) : 0.0;
  double kz;
  const double mz = split_exponent(z, kz), mz_plus = mz + 1.0;
  const double zp = z * p, s_mz = sin_part * mz_plus;
  const double inverse = 1.0 / (zp * s_mz);
  const double inv_z = p * s_mz * inverse;
  const double sum = sum_numerator * z * s_mz * inverse;
  const double cot = cos_part * zp * mz_plus * inverse;
  const double s_z = (mz - 1.0) * zp * sin_part * inverse;
  const double log_z = log_of_split(kz, s_z);
  const double t = inv_z * inv_z;
  const double h = special_math::evaluate_polynomial(t, kDigammaH);
  const double result = (log_z - sum) - (0.5 * inv_z + t * h + kPi * cot);
  const float at_pole =
      x == 0.0 ? (std::signbit(xf) ? __builtin_inff() : -__builtin_inff()) : __builtin_nanf("");
  const bool pole = (negative && r == 0.0) || x == 0.0 || x == -__builtin_inf();
  return x == __builtin_inf() || x != x ? xf : (pole ? at_pole : static_cast<float>(result));
}

}  // namespace tandem
