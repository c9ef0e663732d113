// The special functions of the op list (gamma family, modified Bessel I0/I1, the normal distribution's
// ndtr/ndtri/log_ndtr, erfcx, Hurwitz zeta) and the small float ops around them (sinc, entr, logit, frac,
// xlogy, xlog1py, nextafter), written once for the CPU and CUDA loops. The series and recurrences compute in
// double for every floating dtype: each of their steps rounds, and a float32 result rounded once from a
// double is within half an ulp. The one-line ops compute in opmath_t<T>, as PyTorch does.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/dtype.h"
#include "core/macros.h"
#include "kernels/bessel_math.h"
#include "kernels/igamma_math.h"
#include "kernels/lgamma_math.h"
#include "kernels/math_functors.h"
#include "kernels/polynomial_math.h"
#include "kernels/vector_gamma_math.h"

namespace tandem {
namespace special_math {

constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr double kSqrtHalf = 0.7071067811865475244008443621048490;
constexpr double kEps = 1.1102230246251565e-16;  // 2^-53

TANDEM_HOST_DEVICE inline double inf() { return std::numeric_limits<double>::infinity(); }
TANDEM_HOST_DEVICE inline double nan() { return std::numeric_limits<double>::quiet_NaN(); }

// psi(x): the reflection psi(x) = psi(1 - x) - pi / tan(pi x) for x < 0, the recurrence psi(x) = psi(x + 1)
// - 1/x up to x >= 10, then the asymptotic series log x - 1/(2x) - sum B_2k / (2k x^2k). Poles: +-0 give
// -+inf, negative integers NaN (PyTorch's values).
TANDEM_HOST_DEVICE inline double digamma(double x) {
  if (x == 0) return std::copysign(inf(), -x);
  double result = 0;
  if (x < 0) {
    if (x == std::trunc(x)) return nan();
    // tan has period pi: the fractional part avoids the rounding of pi * x for large |x|.
    result = -kPi / std::tan(kPi * (x - std::trunc(x)));
    x = 1 - x;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double z = 1 / (x * x);
  const double tail =
      z *
      (1.0 / 12 -
       z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return result + std::log(x) - 0.5 / x - tail;
}

// Hurwitz zeta(s, q) = sum_k (q + k)^-s: the terms summed directly until the base passes 9, then the
// Euler-Maclaurin tail with Bernoulli numbers up to B_24. zeta(s, +inf) = 0. A non-integer q below -1e6 would
// take |q| terms to reach the tail and gives NaN instead.
TANDEM_HOST_DEVICE inline double zeta(double s, double q) {
  if (s == 1) return inf();
  if (s < 1) return nan();
  if (q <= 0) {
    if (q == std::floor(q)) return inf();
    if (s != std::floor(s) || q < -1e6) return nan();  // a negative base to a fractional power
  }
  if (q == inf()) return 0;
  double a = q, term = std::pow(q, -s), sum = term;
  for (int n = 0; n < 9 || a <= 9; ++n) {
    a += 1;
    term = std::pow(a, -s);
    sum += term;
    if (std::fabs(term) < kEps * std::fabs(sum)) return sum;
  }
  // B_2j / (2j)!, j = 1..12
  const double c[12] = {1.0 / 12,
                        -1.0 / 720,
                        1.0 / 30240,
                        -1.0 / 1209600,
                        1.0 / 47900160,
                        -691.0 / 1307674368000.0,
                        1.0 / 74724249600.0,
                        -3617.0 / 10670622842880000.0,
                        43867.0 / 5109094217170944000.0,
                        -174611.0 / 802857662698291200000.0,
                        854513.0 / 155112100433309859840000.0,
                        -236364091.0 / 1693824136731743669452800000.0};
  // The last term (base a) is in the sum: add the integral from a and take half of f(a) back.
  sum += term * a / (s - 1) - 0.5 * term;
  double rising = s, power = term / a;  // s (s+1) ... (s+2j-2) and a^(-s-2j+1)
  for (int j = 0; j < 12; ++j) {
    const double t = c[j] * rising * power;
    sum += t;
    if (std::fabs(t) < kEps * std::fabs(sum)) break;
    rising *= (s + 2 * j + 1) * (s + 2 * j + 2);
    power /= a * a;
  }
  return sum;
}

// e^(x^2) erfc(x): inf below -26.7 (e^(x^2) overflows), directly for x < 26, with x^2 split exactly (fma) so
// e^(x^2) carries no rounding of x^2; for larger x, where erfc underflows, the asymptotic series 1/(x
// sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2x^2)^k.
TANDEM_HOST_DEVICE inline double erfcx(double x) {
  if (x < -26.7) return inf();  // e^(x^2) overflows
  if (x < 26) {
    const double hi = x * x, lo = std::fma(x, x, -hi);
    return std::exp(hi) * (1 + lo) * std::erfc(x);
  }
  const double w = 1 / (2 * x * x);
  double term = 1, sum = 1;
  for (int k = 1; k < 30; ++k) {
    term *= -(2.0 * k - 1) * w;
    sum += term;
    if (!(std::fabs(term) >= 1e-17)) break;
  }
  return sum / (x * 1.7724538509055160273);
}

TANDEM_HOST_DEVICE inline double ndtr(double x) { return 0.5 * std::erfc(-x * kSqrtHalf); }

// log(ndtr(x)) without underflow: through erfcx below -1 (log ndtr(x) = log(erfcx(-t) / 2) - t^2), through
// log1p above.
TANDEM_HOST_DEVICE inline double log_ndtr(double x) {
  const double t = x * kSqrtHalf;
  if (x < -1) return std::log(0.5 * erfcx(-t)) - t * t;
  return std::log1p(-0.5 * std::erfc(t));
}

// ndtri(p) for 0 < p <= 0.5: a first guess (sqrt(2) erfinv(2p - 1), or the tail's sqrt(L - log(2 pi L)) with
// L = -2 log p), then Newton steps on log ndtr(y) = log p, full relative precision down to p = 1e-308.
// ndtr(y) / ndtr'(y) = erfcx(-y/sqrt 2) sqrt(pi/2) never under- or overflows.
TANDEM_HOST_DEVICE inline double ndtri_lower(double p) {
  // From p = 1/4 up, 2p - 1 is exact (Sterbenz) and erfinv's own precision carries over: no Newton needed.
  if (p >= 0.25) return ErfinvOp{}(2 * p - 1) / kSqrtHalf;
  double y;
  if (p > 1e-3) {
    y = ErfinvOp{}(2 * p - 1) / kSqrtHalf;
  } else {
    const double big_l = -2 * std::log(p);
    y = -std::sqrt(big_l - std::log(2 * kPi * big_l));
  }
  const double log_p = std::log(p);
  for (int i = 0; i < 8; ++i) {
    const double step = (log_ndtr(y) - log_p) * erfcx(-y * kSqrtHalf) * 1.2533141373155002512;
    y -= step;
    // Newton squares the relative error: a step under 1e-9 of y leaves y within rounding (stopping at 1e-17
    // instead ran all 8 steps, each a log, an erfc and an erfcx, since rounding noise never gets that small).
    if (!(std::fabs(step) > 1e-9 * std::fabs(y))) break;
  }
  return y;
}
TANDEM_HOST_DEVICE inline double ndtri(double p) {
  if (!(p > 0 && p < 1)) return p == 0 ? -inf() : p == 1 ? inf() : nan();
  if (p > 0.5) return -ndtri_lower(1 - p);  // 1 - p is exact there
  return ndtri_lower(p);
}

}  // namespace special_math

// float (and 16-bit) on the CPU through vector_lgammaf and vector_digammaf (vector_gamma_math.h): branch-free
// double arithmetic, so the loop vectorises, within 0.55 and 0.50 ulp, near the zeros too (lgamma's at 1, 2
// and -2.457..., where PyTorch's float lgamma is 1e-3 off). double through the C library's lgamma_r and
// special_math::digamma; the GPU keeps lgammaf and the double digamma.
struct LgammaOp {
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T in) const {
#if !defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<opmath_t<T>, float>)
      return static_cast<T>(vector_lgammaf(static_cast<float>(in)));
#endif
    return static_cast<T>(special_math::log_abs_gamma(static_cast<opmath_t<T>>(in)));
  }
};
struct DigammaOp {
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T in) const {
#if !defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<opmath_t<T>, float>)
      return static_cast<T>(vector_digammaf(static_cast<float>(in)));
#endif
    return static_cast<T>(
        static_cast<opmath_t<T>>(special_math::digamma(static_cast<double>(static_cast<opmath_t<T>>(in)))));
  }
};

#define TANDEM_SPECIAL_FUNCTOR(Name, expr)                                \
  struct Name {                                                           \
    template <typename T>                                                 \
    TANDEM_HOST_DEVICE T operator()(T in) const {                         \
      const double x = static_cast<double>(static_cast<opmath_t<T>>(in)); \
      return static_cast<T>(static_cast<opmath_t<T>>(expr));              \
    }                                                                     \
  };
// I0, I1 and e^-|x| times them: float results (and 16-bit ones) through the vectorising bessel_i_float, double
// through the out-of-line double functions (bessel_math.h).
template <int Order, bool Scaled>
struct BesselIOp {
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T in) const {
    namespace bessel = special_math::bessel;
    if constexpr (std::is_same_v<opmath_t<T>, float>) {
      return static_cast<T>(bessel::bessel_i_float<Order, Scaled>(static_cast<float>(in)));
    } else {
      const double x = static_cast<double>(static_cast<opmath_t<T>>(in));
      if constexpr (Order == 0)
        return static_cast<T>(Scaled ? bessel::scaled_modified_bessel_i0(x) : bessel::modified_bessel_i0(x));
      else
        return static_cast<T>(Scaled ? bessel::scaled_modified_bessel_i1(x) : bessel::modified_bessel_i1(x));
    }
  }
};
using I0Op = BesselIOp<0, false>;
using I0eOp = BesselIOp<0, true>;
using I1Op = BesselIOp<1, false>;
using I1eOp = BesselIOp<1, true>;
TANDEM_SPECIAL_FUNCTOR(ErfcxOp, special_math::erfcx(x))
struct NdtrOp {  // float (and 16-bit) through the vectorisable Phi that gelu uses
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T in) const {
    if constexpr (std::is_same_v<opmath_t<T>, float>)
      return static_cast<T>(vector_ndtrf(static_cast<float>(in)));
    else
      return static_cast<T>(special_math::ndtr(static_cast<double>(in)));
  }
};
// ndtri for float (and 16-bit) arguments, branch-free so the loop vectorises: y = s R(s^2) with s = p - 1/2
// (exact in double) for |s| <= 0.425, else +-T(r - 1.6) with r = sqrt(-log q), q = min(p, 1 - p) (1 - p is
// exact above 1/2), r in [1.609, 10.163] down to the smallest subnormal. R and T are rational fits (degree 4/4
// and 5/5, least squares reweighted toward minimax, at Chebyshev nodes against SciPy's ndtri) with relative
// errors 2.9e-10 and 1.2e-11, evaluated in double; log q in float, whose rounding moves y by at most half an
// ulp. Max error 1 ulp over every float in (0, 1) (tests/python/test_special.py). The double path's Newton
// iteration on log ndtr took 100 ns an element.
TANDEM_HOST_DEVICE TANDEM_INLINE float vector_ndtrif(float p) {
#if defined(__CUDA_ARCH__)
  return normcdfinvf(p);
#else
  const double s = static_cast<double>(p) - 0.5, z = s * s;
  double cn = 11.079813660257312, cd = 15.293814493577973;
  cn = cn * z + -58.93511972557313;
  cd = cd * z + -41.03813197641423;
  cn = cn * z + 60.68300054726352;
  cd = cd * z + 32.03147968877937;
  cn = cn * z + -21.611732857051535;
  cd = cd * z + -9.669031391724593;
  cn = cn * z + 2.5066282753425684;
  cd = cd * z + 1.0;
  const float q = p < 0.5f ? p : 1.0f - p;
  const float log_q = vector_logf(q > 0.0f ? q : 1.0f);  // q <= 0 and NaN lanes are replaced below
  const double r = std::sqrt(-static_cast<double>(log_q)) - 1.6;
  double tn = 0.004386729692537669, td = 5.836677367282037e-09;
  tn = tn * r + 0.1082044021038217;
  td = td * r + 0.003101331895061694;
  tn = tn * r + 0.840381770667191;
  td = td * r + 0.07159026276955202;
  tn = tn * r + 2.6573202434165686;
  td = td * r + 0.4877569303934408;
  tn = tn * r + 3.4465440830773675;
  td = td * r + 1.2215470444635594;
  tn = tn * r + 1.4234371107670993;
  td = td * r + 1.0;
  const bool central = s <= 0.425 && s >= -0.425;
  const double tail_sign = p < 0.5f ? -1.0 : 1.0;
  // One division for both pieces: the selected numerator over the selected denominator.
  const double y = (central ? s * cn : tail_sign * tn) / (central ? cd : td);
  const float inside = static_cast<float>(y);
  const float edge = p == 0.0f ? -__builtin_inff() : (p == 1.0f ? __builtin_inff() : __builtin_nanf(""));
  return p > 0.0f && p < 1.0f ? inside : edge;
#endif
}
struct NdtriOp {
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T in) const {
    if constexpr (std::is_same_v<opmath_t<T>, float>)
      return static_cast<T>(vector_ndtrif(static_cast<float>(in)));
    else
      return static_cast<T>(special_math::ndtri(static_cast<double>(in)));
  }
};
TANDEM_SPECIAL_FUNCTOR(LogNdtrOp, special_math::log_ndtr(x))
// torch.special's Bessel family (bessel_math.h: Cephes's approximations, evaluated as PyTorch does)
TANDEM_SPECIAL_FUNCTOR(BesselJ0Op, special_math::bessel::bessel_j0(x))
TANDEM_SPECIAL_FUNCTOR(BesselJ1Op, special_math::bessel::bessel_j1(x))
TANDEM_SPECIAL_FUNCTOR(BesselY0Op, special_math::bessel::bessel_y0(x))
TANDEM_SPECIAL_FUNCTOR(BesselY1Op, special_math::bessel::bessel_y1(x))
// The same function as I0Op/I1Op; a type of its own because PyTorch refuses float16 here (op_accepts.h).
struct ModifiedBesselI0Op : I0Op {};
struct ModifiedBesselI1Op : I1Op {};
TANDEM_SPECIAL_FUNCTOR(ModifiedBesselK0Op, special_math::bessel::modified_bessel_k0(x))
TANDEM_SPECIAL_FUNCTOR(ModifiedBesselK1Op, special_math::bessel::modified_bessel_k1(x))
TANDEM_SPECIAL_FUNCTOR(ScaledModifiedBesselK0Op, special_math::bessel::scaled_modified_bessel_k0(x))
TANDEM_SPECIAL_FUNCTOR(ScaledModifiedBesselK1Op, special_math::bessel::scaled_modified_bessel_k1(x))
TANDEM_SPECIAL_FUNCTOR(SphericalBesselJ0Op, special_math::bessel::spherical_bessel_j0(x))
TANDEM_SPECIAL_FUNCTOR(AiryAiOp, special_math::bessel::airy_ai(x))
#undef TANDEM_SPECIAL_FUNCTOR

#define TANDEM_UNARY_OPMATH_FUNCTOR(Name, expr)   \
  struct Name {                                   \
    template <typename T>                         \
    TANDEM_HOST_DEVICE T operator()(T in) const { \
      using M = opmath_t<T>;                      \
      const M x = static_cast<M>(in);             \
      return static_cast<T>(expr);                \
    }                                             \
  };
// sin(pi x) / (pi x), 1 at 0
TANDEM_UNARY_OPMATH_FUNCTOR(SincOp, x == M(0)
                                        ? M(1)
                                        : std::sin(M(special_math::kPi) * x) / (M(special_math::kPi) * x))
TANDEM_UNARY_OPMATH_FUNCTOR(FracOp, x - std::trunc(x))
TANDEM_UNARY_OPMATH_FUNCTOR(LogitOp, std::log(x / (M(1) - x)))
// -x log x: 0 at 0, -inf below (PyTorch's special.entr)
TANDEM_UNARY_OPMATH_FUNCTOR(EntrOp, x > M(0)    ? -x * std::log(x)
                                    : x == M(0) ? M(0)
                                    : x < M(0)  ? -std::numeric_limits<M>::infinity()
                                                : x)
#undef TANDEM_UNARY_OPMATH_FUNCTOR

#define TANDEM_BINARY_OPMATH_FUNCTOR(Name, expr)                  \
  struct Name {                                                   \
    template <typename T>                                         \
    TANDEM_HOST_DEVICE T operator()(T in_a, T in_b) const {       \
      using M = opmath_t<T>;                                      \
      const M a = static_cast<M>(in_a), b = static_cast<M>(in_b); \
      return static_cast<T>(expr);                                \
    }                                                             \
  };
// a log b, 0 where a == 0 unless b is NaN
TANDEM_BINARY_OPMATH_FUNCTOR(XlogyOp, b != b ? b : a == M(0) ? M(0) : a * std::log(b))
TANDEM_BINARY_OPMATH_FUNCTOR(Xlog1pyOp, b != b ? b : a == M(0) ? M(0) : a * std::log1p(b))
TANDEM_BINARY_OPMATH_FUNCTOR(ZetaOp, M(special_math::zeta(double(a), double(b))))
#undef TANDEM_BINARY_OPMATH_FUNCTOR

// nextafter for float and double (float16/bfloat16 come from float32 steps in the front end: the loop sees
// their values as float32, whose neighbours are closer) as one integer step on the bit pattern, branch-free
// so a loop over it vectorises (glibc's is a call per element): +1 moves away from zero, -1 toward it; from
// +-0 the smallest subnormal with b's sign; equal arguments give b (nextafter(0, -0) = -0); a NaN gives NaN.
struct NextafterOp {
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T a, T b) const {
#if defined(__CUDA_ARCH__)
    return nextafter(a, b);
#else
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    const U bits_a = std::bit_cast<U>(a), sign_b = std::bit_cast<U>(b) & (U(1) << (sizeof(T) * 8 - 1));
    const U stepped = (a < b) == (a > T(0)) ? bits_a + 1 : bits_a - 1;
    const T next = std::bit_cast<T>(a == T(0) ? (sign_b | U(1)) : stepped);
    return a != a || b != b ? a + b : (a == b ? b : next);
#endif
  }
};

// The regularized incomplete gamma functions P(a, x) and Q(a, x) (igamma_math.h), in double for every dtype.
struct IgammaOp {
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T a, T x) const {
    using M = opmath_t<T>;
    return static_cast<T>(static_cast<M>(special_math::igamma(double(M(a)), double(M(x)))));
  }
};
struct IgammacOp {
  template <typename T>
  TANDEM_HOST_DEVICE T operator()(T a, T x) const {
    using M = opmath_t<T>;
    return static_cast<T>(static_cast<M>(special_math::igammac(double(M(a)), double(M(x)))));
  }
};

// The orthogonal polynomials p_n(x) (polynomial_math.h), computed in opmath_t as PyTorch does, n truncated to
// an integer degree.
#define TANDEM_POLYNOMIAL_FUNCTOR(Name, fn)                                                              \
  struct Name {                                                                                          \
    template <typename T>                                                                                \
    TANDEM_HOST_DEVICE T operator()(T x, T n) const {                                                    \
      using M = opmath_t<T>;                                                                             \
      return static_cast<T>(special_math::polynomial::fn(M(x), special_math::polynomial::degree(M(n)))); \
    }                                                                                                    \
  };
TANDEM_POLYNOMIAL_FUNCTOR(ChebyshevTOp, chebyshev_polynomial_t)
TANDEM_POLYNOMIAL_FUNCTOR(ChebyshevUOp, chebyshev_polynomial_u)
TANDEM_POLYNOMIAL_FUNCTOR(ChebyshevVOp, chebyshev_polynomial_v)
TANDEM_POLYNOMIAL_FUNCTOR(ChebyshevWOp, chebyshev_polynomial_w)
TANDEM_POLYNOMIAL_FUNCTOR(ShiftedChebyshevTOp, shifted_chebyshev_polynomial_t)
TANDEM_POLYNOMIAL_FUNCTOR(ShiftedChebyshevUOp, shifted_chebyshev_polynomial_u)
TANDEM_POLYNOMIAL_FUNCTOR(ShiftedChebyshevVOp, shifted_chebyshev_polynomial_v)
TANDEM_POLYNOMIAL_FUNCTOR(ShiftedChebyshevWOp, shifted_chebyshev_polynomial_w)
TANDEM_POLYNOMIAL_FUNCTOR(HermiteHOp, hermite_polynomial_h)
TANDEM_POLYNOMIAL_FUNCTOR(HermiteHeOp, hermite_polynomial_he)
TANDEM_POLYNOMIAL_FUNCTOR(LaguerreLOp, laguerre_polynomial_l)
TANDEM_POLYNOMIAL_FUNCTOR(LegendrePOp, legendre_polynomial_p)
#undef TANDEM_POLYNOMIAL_FUNCTOR

}  // namespace tandem
