// The regularized incomplete gamma functions P(a, x) = gammainc and Q(a, x) = gammaincc = 1 - P
// (torch.igamma, torch.igammac), written once for the CPU and CUDA loops, in double for every floating dtype
// (float32 rounds once at the end). Each regime computes one of P and Q directly, the one its method gives
// without cancellation, and the other as 1 minus it:
// - a > 1000 and x within 10% of a: both by Temme's uniform asymptotic expansion in 1/a (DLMF 8.12.3-8.12.4),
//   whose cost does not grow with a (the series and the fraction below need ~sqrt(a) terms there);
// - a < x <= 1.5: Q from the alternating series of the lower function (DLMF 8.7.1), arranged so a small a
//   loses nothing to 1 - P;
// - x < a + 1: P by its power series (the other form of DLMF 8.7.1);
// - beyond: Q by Legendre's continued fraction (the even part of DLMF 8.9.2), by the modified Lentz method.
// The series and the fraction carry the factor x^a e^-x / Gamma(a); from a = 10 on it is formed around x = a
// (Stirling's series for Gamma, and log(x/a) - (x-a)/a summed without cancellation), which keeps full
// precision on the diagonal where exp(a log x - x - lgamma(a)) would lose digits. Within ~1e-15 relative of
// mpmath across the regimes. The two entry points are TANDEM_NOINLINE_HOST (kernels/noinline_host.h).
#pragma once
#include <cmath>
#include <limits>

#include "core/macros.h"
#include "kernels/lgamma_math.h"
#include "kernels/noinline_host.h"
#include "kernels/series_eval.h"

namespace tandem {
namespace special_math {
namespace igamma_detail {

constexpr double kEpsilon = 1.1102230246251565e-16;  // 2^-53
constexpr double kTwoPi = 6.283185307179586476925286766559005768;
// More than any regime needs (the worst, the power series of P near x = 0.9 a just above a = 1000, takes
// ~350 terms).
constexpr int kMaxTerms = 1000;

struct GammaPair {
  double lower, upper;  // P and Q
};

// sigma - log(1 + sigma) for sigma = (x - a) / a, the exponent that x^a e^-x loses to its value at x = a.
// Near x = a the difference cancels; there it is summed from t = (x - a) / (x + a), with which log(1 + sigma)
// = 2 atanh(t) = 2 (t + t^3/3 + t^5/5 + ...) and sigma - 2t = t sigma.
TANDEM_HOST_DEVICE inline double log1p_deficit(double a, double x) {
  const double sigma = (x - a) / a;
  if (std::fabs(sigma) > 0.5) return sigma - std::log(x / a);
  const double t = (x - a) / (x + a), t2 = t * t;
  double power = t * t2, sum = 0;
  for (int j = 0; j < 40; ++j) {  // t^2 <= 1/9: 17 terms reach 2^-53
    const double term = power / (2 * j + 3);
    sum += term;
    if (std::fabs(term) <= kEpsilon * std::fabs(sum)) break;
    power *= t2;
  }
  return t * sigma - 2 * sum;
}

// x^a e^-x / Gamma(a). For a >= 10, Gamma(a) = sqrt(2 pi / a) (a/e)^a e^s(a) with Stirling's series s(a) =
// sum B_2k / (2k (2k-1) a^(2k-1)) (eight terms: below 1e-17 from a = 10), so the factor is sqrt(a / 2 pi)
// e^(-a log1p_deficit - s(a)).
TANDEM_HOST_DEVICE inline double power_factor(double a, double x) {
  static constexpr double stirling[] = {-3617.0 / 122400, 1.0 / 156,  -691.0 / 360360, 1.0 / 1188,
                                        -1.0 / 1680,      1.0 / 1260, -1.0 / 360,      1.0 / 12};
  if (a < 10) return std::exp(a * std::log(x) - x - log_abs_gamma(a));
  const double correction = evaluate_polynomial(1 / (a * a), stirling) / a;
  return std::sqrt(a / kTwoPi) * std::exp(-a * log1p_deficit(a, x) - correction);
}

// P = x^a e^-x / Gamma(a + 1) sum_k x^k / ((a+1) ... (a+k)): positive terms, falling once a + k passes x.
TANDEM_HOST_DEVICE inline double lower_by_series(double a, double x) {
  const double factor = power_factor(a, x);
  if (factor == 0) return 0;
  double term = 1, sum = 1;
  for (int k = 1; k < kMaxTerms; ++k) {
    term *= x / (a + k);
    sum += term;
    if (term <= kEpsilon * sum) break;
  }
  return factor / a * sum;
}

// Q = 1 - x^a / Gamma(a + 1) - x^a / Gamma(a) sum_(k>=1) (-x)^k / (k! (a + k)), the first difference taken by
// expm1: for small a both parts are O(a) and neither cancels against 1.
TANDEM_HOST_DEVICE inline double upper_by_alternating_series(double a, double x) {
  double power = 1, sum = 0;  // power = (-x)^k / k!
  for (int k = 1; k < kMaxTerms; ++k) {
    power *= -x / k;
    const double term = power / (a + k);
    sum += term;
    if (std::fabs(term) <= kEpsilon * std::fabs(sum)) break;
  }
  const double log_x = std::log(x);
  return -std::expm1(a * log_x - log_abs_gamma(a + 1)) - std::exp(a * log_x - log_abs_gamma(a)) * sum;
}

// Q = x^a e^-x / Gamma(a) / F with F = b_0 + a_1 / (b_1 + a_2 / (b_2 + ...)), b_k = x - a + 2k + 1, a_k =
// k (a - k). Modified Lentz: F is the product of the ratios C_k D_k of successive convergents, C_k = b_k +
// a_k / C_(k-1) and 1 / D_k = b_k + a_k D_(k-1), with a zero replaced by a tiny number.
TANDEM_HOST_DEVICE inline double upper_by_continued_fraction(double a, double x) {
  constexpr double kTiny = 1e-300;
  const double factor = power_factor(a, x);
  if (factor == 0) return 0;
  double b = x - a + 1, fraction = b, c = b, d = 0;
  for (int k = 1; k < kMaxTerms; ++k) {
    const double ak = k * (a - k);
    b += 2;
    d = b + ak * d;
    c = b + ak / c;
    if (d == 0) d = kTiny;
    if (c == 0) c = kTiny;
    d = 1 / d;
    const double ratio = c * d;
    fraction *= ratio;
    if (std::fabs(ratio - 1) <= kEpsilon) break;
  }
  return factor / fraction;
}

// Temme: with lambda = x / a and eta = sign(lambda - 1) sqrt(2 (lambda - 1 - log lambda)),
// Q = erfc(eta sqrt(a/2)) / 2 + R and P = erfc(-eta sqrt(a/2)) / 2 - R, R = e^(-a eta^2 / 2) / sqrt(2 pi a)
// sum_k c_k(eta) a^-k. For a > 1000 and |eta| < 0.11 the terms c_0..c_7 reach 1e-16.
TANDEM_HOST_DEVICE inline GammaPair temme_expansion(double a, double x) {
  // c_k(eta) = sum_n d[k][n] eta^n (DLMF 8.12.9-8.12.11): the first 8 of the 25 rows SciPy tabulates
  // (scipy/special/cephes/igam.h, computed there with mpmath)
  static constexpr double d[8][25] = {
      {-3.3333333333333333e-1,  8.3333333333333333e-2,   -1.4814814814814815e-2,  1.1574074074074074e-3,
       3.527336860670194e-4,    -1.7875514403292181e-4,  3.9192631785224378e-5,   -2.1854485106799922e-6,
       -1.85406221071516e-6,    8.296711340953086e-7,    -1.7665952736826079e-7,  6.7078535434014986e-9,
       1.0261809784240308e-8,   -4.3820360184533532e-9,  9.1476995822367902e-10,  -2.551419399494625e-11,
       -5.8307721325504251e-11, 2.4361948020667416e-11,  -5.0276692801141756e-12, 1.1004392031956135e-13,
       3.3717632624009854e-13,  -1.3923887224181621e-13, 2.8534893807047443e-14,  -5.1391118342425726e-16,
       -1.9752288294349443e-15},
      {-1.8518518518518519e-3,  -3.4722222222222222e-3,  2.6455026455026455e-3,   -9.9022633744855967e-4,
       2.0576131687242798e-4,   -4.0187757201646091e-7,  -1.8098550334489978e-5,  7.6491609160811101e-6,
       -1.6120900894563446e-6,  4.6471278028074343e-9,   1.378633446915721e-7,    -5.752545603517705e-8,
       1.1951628599778147e-8,   -1.7543241719747648e-11, -1.0091543710600413e-9,  4.1627929918425826e-10,
       -8.5639070264929806e-11, 6.0672151016047586e-14,  7.1624989648114854e-12,  -2.9331866437714371e-12,
       5.9966963656836887e-13,  -2.1671786527323314e-16, -4.9783399723692616e-14, 2.0291628823713425e-14,
       -4.13125571381061e-15},
      {4.1335978835978836e-3,   -2.6813271604938272e-3,  7.7160493827160494e-4,  2.0093878600823045e-6,
       -1.0736653226365161e-4,  5.2923448829120125e-5,   -1.2760635188618728e-5, 3.4235787340961381e-8,
       1.3721957309062933e-6,   -6.298992138380055e-7,   1.4280614206064242e-7,  -2.0477098421990866e-10,
       -1.4092529910867521e-8,  6.228974084922022e-9,    -1.3670488396617113e-9, 9.4283561590146782e-13,
       1.2872252400089318e-10,  -5.5645956134363321e-11, 1.1975935546366981e-11, -4.1689782251838635e-15,
       -1.0940640427884594e-12, 4.6622399463901357e-13,  -9.905105763906906e-14, 1.8931876768373515e-17,
       8.8592218725911273e-15},
      {6.4943415637860082e-4,   2.2947209362139918e-4,   -4.6918949439525571e-4,  2.6772063206283885e-4,
       -7.5618016718839764e-5,  -2.3965051138672967e-7,  1.1082654115347302e-5,   -5.6749528269915966e-6,
       1.4230900732435884e-6,   -2.7861080291528142e-11, -1.6958404091930277e-7,  8.0994649053880824e-8,
       -1.9111168485973654e-8,  2.3928620439808118e-12,  2.0620131815488798e-9,   -9.4604966618551322e-10,
       2.1541049775774908e-10,  -1.388823336813903e-14,  -2.1894761681963939e-11, 9.7909989511716851e-12,
       -2.1782191880180962e-12, 6.2088195734079014e-17,  2.126978363279737e-13,   -9.3446887915174333e-14,
       2.0453671226782849e-14},
      {-8.618882909167117e-4,   7.8403922172006663e-4,   -2.9907248030319018e-4, -1.4638452578843418e-6,
       6.6414982154651222e-5,   -3.9683650471794347e-5,  1.1375726970678419e-5,  2.5074972262375328e-10,
       -1.6954149536558306e-6,  8.9075075322053097e-7,   -2.2929348340008049e-7, 2.956794137544049e-11,
       2.8865829742708784e-8,   -1.4189739437803219e-8,  3.4463580499464897e-9,  -2.3024517174528067e-13,
       -3.9409233028046405e-10, 1.8602338968504502e-10,  -4.356323005056618e-11, 1.2786001016296231e-15,
       4.6792750266579195e-12,  -2.1492464706134829e-12, 4.9088156148096522e-13, -6.3385914848915603e-18,
       -5.0453320690800944e-14},
      {-3.3679855336635815e-4,  -6.9728137583658578e-5,  2.7727532449593921e-4,  -1.9932570516188848e-4,
       6.7977804779372078e-5,   1.419062920643967e-7,    -1.3594048189768693e-5, 8.0184702563342015e-6,
       -2.2914811765080952e-6,  -3.252473551298454e-10,  3.4652846491085265e-7,  -1.8447187191171343e-7,
       4.8240967037894181e-8,   -1.7989466721743515e-14, -6.3061945000135234e-9, 3.1624176287745679e-9,
       -7.8409242536974293e-10, 5.1926791652540407e-15,  9.3589442423067836e-11, -4.5134262161632782e-11,
       1.0799129993116827e-11,  -3.661886712685252e-17,  -1.210902069055155e-12, 5.6807435849905643e-13,
       -1.3249659916340829e-13},
      {5.3130793646399222e-4,   -5.9216643735369388e-4,  2.7087820967180448e-4,   7.9023532326603279e-7,
       -8.1539693675619688e-5,  5.6116827531062497e-5,   -1.8329116582843376e-5,  -3.0796134506033048e-9,
       3.4651553688036091e-6,   -2.0291327396058604e-6,  5.7887928631490037e-7,   2.338630673826657e-13,
       -8.8286007463304835e-8,  4.7435958880408128e-8,   -1.2545415020710382e-8,  8.6496488580102925e-14,
       1.6846058979264063e-9,   -8.5754928235775947e-10, 2.1598224929232125e-10,  -7.6132305204761539e-16,
       -2.6639822008536144e-11, 1.3065700536611057e-11,  -3.1799163902367977e-12, 4.7109761213674315e-18,
       3.6902800842763467e-13},
      {3.4436760689237767e-4,   5.1717909082605922e-5,   -3.3493161081142236e-4,  2.812695154763237e-4,
       -1.0976582244684731e-4,  -1.2741009095484485e-7,  2.7744451511563644e-5,   -1.8263488805711333e-5,
       5.7876949497350524e-6,   4.9387589339362704e-10,  -1.0595367014026043e-6,  6.1667143761104075e-7,
       -1.7562973359060462e-7,  -1.2974473287015439e-12, 2.695423606288966e-8,    -1.4578352908731271e-8,
       3.887645959386175e-9,    -3.8810022510194121e-17, -5.3279941738772867e-10, 2.7437977643314845e-10,
       -6.9957960920705679e-11, 2.5899863874868481e-17,  8.8566890996696381e-12,  -4.403168815871311e-12,
       1.0865561947091654e-12}};
  const double deficit = log1p_deficit(a, x);
  const double eta = std::copysign(std::sqrt(2 * deficit), x - a);
  double sum = 0;
  for (int k = 7; k >= 0; --k) {
    double c = 0;
    for (int n = 24; n >= 0; --n) c = c * eta + d[k][n];
    sum = sum / a + c;
  }
  const double r = std::exp(-a * deficit) / std::sqrt(kTwoPi * a) * sum;
  const double s = eta * std::sqrt(a / 2);
  return {0.5 * std::erfc(-s) - r, 0.5 * std::erfc(s) + r};
}

// PyTorch's values on the boundary: NaN for negative or NaN operands and for a = x = 0 or a = x = inf;
// P(0, x > 0) = 1, P(a, 0) = 0, P(inf, finite x) = 0, P(a, inf) = 1 (Q the complements).
TANDEM_HOST_DEVICE inline GammaPair incomplete_gamma(double a, double x) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0) return {kNaN, kNaN};
  if (a == 0) return x > 0 ? GammaPair{1, 0} : GammaPair{kNaN, kNaN};
  if (x == 0) return {0, 1};
  if (std::isinf(a)) return std::isinf(x) ? GammaPair{kNaN, kNaN} : GammaPair{0, 1};
  if (std::isinf(x)) return {1, 0};
  if (a > 1000 && std::fabs(x - a) < 0.1 * a) return temme_expansion(a, x);
  if (a < x && x <= 1.5) {
    const double q = upper_by_alternating_series(a, x);
    return {1 - q, q};
  }
  if (x < a + 1) {
    const double p = lower_by_series(a, x);
    return {p, 1 - p};
  }
  const double q = upper_by_continued_fraction(a, x);
  return {1 - q, q};
}

}  // namespace igamma_detail

TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double igamma(double a, double x) {
  return igamma_detail::incomplete_gamma(a, x).lower;
}

TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double igammac(double a, double x) {
  return igamma_detail::incomplete_gamma(a, x).upper;
}

}  // namespace special_math
}  // namespace tandem
