// torch.special's Bessel family: J0, J1, Y0, Y1, the modified I0, I1 (Chebyshev-series forms), K0, K1 and
// e^x K0, e^x K1, the spherical j0 and Airy's Ai, written once for the CPU and CUDA loops, in double for
// every floating dtype (float32 rounds once at the end).
//
// The coefficient tables are S. L. Moshier's (the Cephes Mathematical Library), the approximations PyTorch
// uses too. Where Cephes evaluates a denominator with p1evl(), the table leaves out its leading coefficient 1
// (the denominators of J0, J1, Y0, Y1 on both sides of 5 and of Ai below -2.09): those go through
// evaluate_rational_monic, which puts the 1 back. PyTorch (2.15) evaluates the listed coefficients only, a
// different function, so its J0/J1/Y0/Y1 are up to ~9e-7 and its Ai up to ~3e-6 off, where tandem's agree
// with mpmath to double precision (docs/ops.md; tests/python/test_special_bessel.py). Each public function is
// TANDEM_NOINLINE_HOST (kernels/noinline_host.h): every CPU capability runs the same baseline code.
#pragma once
#include <cmath>
#include <limits>

#include "core/half.h"
#include "core/macros.h"
#include "kernels/noinline_host.h"
#include "kernels/series_eval.h"

namespace tandem {
namespace special_math {
namespace bessel {

constexpr double kPiOver4 = 0.785398163397448309615660845819875721;
constexpr double kThreePiOver4 = 2.356194490192344928846982537459627163;
constexpr double kTwoOverPi = 0.636619772367581343075535053490057448;
constexpr double kSqrtTwoOverPi = 0.797884560802865355879892119868763737;
constexpr double kInvSqrtPi = 0.564189583547756286948079451560772586;

TANDEM_HOST_DEVICE inline double infinity() { return std::numeric_limits<double>::infinity(); }
TANDEM_HOST_DEVICE inline double not_a_number() { return std::numeric_limits<double>::quiet_NaN(); }

struct BesselPair {
  double j, y;
};

// J_nu(x) and Y_nu(x), nu = 0 or 1, for x > 5 by Hankel's asymptotic form: with theta = x - (2 nu + 1) pi/4,
// J = sqrt(2 / (pi x)) (P cos theta - Q sin theta) and Y = sqrt(2 / (pi x)) (P sin theta + Q cos theta),
// where P and (x / 5) Q are rational functions of 25 / x^2.
TANDEM_HOST_DEVICE inline BesselPair hankel_form(int order, double x) {
  static constexpr double p_num0[] = {7.96936729297347051624e-04, 8.28352392107440799803e-02,
                                      1.23953371646414299388e+00, 5.44725003058768775090e+00,
                                      8.74716500199817011941e+00, 5.30324038235394892183e+00,
                                      9.99999999999999997821e-01};
  static constexpr double p_den0[] = {9.24408810558863637013e-04, 8.56288474354474431428e-02,
                                      1.25352743901058953537e+00, 5.47097740330417105182e+00,
                                      8.76190883237069594232e+00, 5.30605288235394617618e+00,
                                      1.00000000000000000218e+00};
  static constexpr double q_num0[] = {-1.13663838898469149931e-02, -1.28252718670509318512e+00,
                                      -1.95539544257735972385e+01, -9.32060152123768231369e+01,
                                      -1.77681167980488050595e+02, -1.47077505154951170175e+02,
                                      -5.14105326766599330220e+01, -6.05014350600728481186e+00};
  static constexpr double q_den0[] = {6.43178256118178023184e+01, 8.56430025976980587198e+02,
                                      3.88240183605401609683e+03, 7.24046774195652478189e+03,
                                      5.93072701187316984827e+03, 2.06209331660327847417e+03,
                                      2.42005740240291393179e+02};
  static constexpr double p_num1[] = {7.62125616208173112003e-04, 7.31397056940917570436e-02,
                                      1.12719608129684925192e+00, 5.11207951146807644818e+00,
                                      8.42404590141772420927e+00, 5.21451598682361504063e+00,
                                      1.00000000000000000254e+00};
  static constexpr double p_den1[] = {5.71323128072548699714e-04, 6.88455908754495404082e-02,
                                      1.10514232634061696926e+00, 5.07386386128601488557e+00,
                                      8.39985554327604159757e+00, 5.20982848682361821619e+00,
                                      9.99999999999999997461e-01};
  static constexpr double q_num1[] = {5.10862594750176621635e-02, 4.98213872951233449420e+00,
                                      7.58238284132545283818e+01, 3.66779609360150777800e+02,
                                      7.10856304998926107277e+02, 5.97489612400613639965e+02,
                                      2.11688757100572135698e+02, 2.52070205858023719784e+01};
  static constexpr double q_den1[] = {7.42373277035675149943e+01, 1.05644886038262816351e+03,
                                      4.98641058337653607651e+03, 9.56231892404756170795e+03,
                                      7.99704160447350683650e+03, 2.82619278517639096600e+03,
                                      3.36093607810698293419e+02};
  const double z = 25.0 / (x * x);
  const double p = order == 0 ? evaluate_rational(z, p_num0, p_den0) : evaluate_rational(z, p_num1, p_den1);
  const double q =
      5.0 / x *
      (order == 0 ? evaluate_rational_monic(z, q_num0, q_den0) : evaluate_rational_monic(z, q_num1, q_den1));
  const double theta = x - (order == 0 ? kPiOver4 : kThreePiOver4);
  const double c = std::cos(theta), s = std::sin(theta), scale = kSqrtTwoOverPi / std::sqrt(x);
  return {(p * c - q * s) * scale, (p * s + q * c) * scale};
}

// J0 for |x| <= 5: (x^2 - j1^2)(x^2 - j2^2) R(x^2), R rational, j1 and j2 the first two zeros.
TANDEM_HOST_DEVICE inline double bessel_j0_small(double x) {
  static constexpr double num[] = {-4.79443220978201773821e+09, 1.95617491946556577543e+12,
                                   -2.49248344360967716204e+14, 9.70862251047306323952e+15};
  static constexpr double den[] = {4.99563147152651017219e+02, 1.73785401676374683123e+05,
                                   4.84409658339962045305e+07, 1.11855537045356834862e+10,
                                   2.11277520115489217587e+12, 3.10518229857422583814e+14,
                                   3.18121955943204943306e+16, 1.71086294081043136091e+18};
  const double z = x * x;
  if (x < 1e-5) return 1.0 - z / 4.0;  // the series' first two terms are exact to rounding there
  return (z - 5.78318596294678452118e+00) * (z - 3.04712623436620863991e+01) *
         evaluate_rational_monic(z, num, den);
}

// J1 for |x| <= 5, odd in x: x (x^2 - j1^2)(x^2 - j2^2) R(x^2).
TANDEM_HOST_DEVICE inline double bessel_j1_small(double x) {
  static constexpr double num[] = {-8.99971225705559398224e+08, 4.52228297998194034323e+11,
                                   -7.27494245221818276015e+13, 3.68295732863852883286e+15};
  static constexpr double den[] = {6.20836478118054335476e+02, 2.56987256757748830383e+05,
                                   8.35146791431949253037e+07, 2.21511595479792499675e+10,
                                   4.74914122079991414898e+12, 7.84369607876235854894e+14,
                                   8.95222336184627338078e+16, 5.32278620332680085395e+18};
  const double z = x * x;
  return evaluate_rational_monic(z, num, den) * x * (z - 1.46819706421238932572e+01) *
         (z - 4.92184563216946036703e+01);
}

TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double bessel_j0(double x) {
  const double ax = std::fabs(x);
  return ax <= 5.0 ? bessel_j0_small(ax) : hankel_form(0, ax).j;
}

TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double bessel_j1(double x) {
  if (std::fabs(x) <= 5.0) return bessel_j1_small(x);
  const double j = hankel_form(1, std::fabs(x)).j;
  return x < 0 ? -j : j;
}

// Y0 = R(x^2) + (2/pi) log(x) J0(x) for x <= 5; -inf at 0, NaN below.
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double bessel_y0(double x) {
  static constexpr double num[] = {1.55924367855235737965e+04, -1.46639295903971606143e+07,
                                   5.43526477051876500413e+09, -9.82136065717911466409e+11,
                                   8.75906394395366999549e+13, -3.46628303384729719441e+15,
                                   4.42733268572569800351e+16, -1.84950800436986690637e+16};
  static constexpr double den[] = {1.04128353664259848412e+03, 6.26107330137134956842e+05,
                                   2.68919633393814121987e+08, 8.64002487103935000337e+10,
                                   2.02979612750105546709e+13, 3.17157752842975028269e+15,
                                   2.50596256172653059228e+17};
  if (!(x <= 5.0)) return hankel_form(0, x).y;  // NaN too
  if (x == 0.0) return -infinity();
  if (x < 0.0) return not_a_number();
  return evaluate_rational_monic(x * x, num, den) + kTwoOverPi * std::log(x) * bessel_j0_small(x);
}

// Y1 = x R(x^2) + (2/pi) (J1(x) log(x) - 1/x) for x <= 5; -inf at 0, NaN below.
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double bessel_y1(double x) {
  static constexpr double num[] = {1.26320474790178026440e+09, -6.47355876379160291031e+11,
                                   1.14509511541823727583e+14, -8.12770255501325109621e+15,
                                   2.02439475713594898196e+17, -7.78877196265950026825e+17};
  static constexpr double den[] = {5.94301592346128195359e+02, 2.35564092943068577943e+05,
                                   7.34811944459721705660e+07, 1.87601316108706159478e+10,
                                   3.88231277496238566008e+12, 6.20557727146953693363e+14,
                                   6.87141087355300489866e+16, 3.97270608116560655612e+18};
  if (!(x <= 5.0)) return hankel_form(1, x).y;
  if (x == 0.0) return -infinity();
  if (x < 0.0) return not_a_number();
  return x * evaluate_rational_monic(x * x, num, den) +
         kTwoOverPi * (bessel_j1_small(x) * std::log(x) - 1.0 / x);
}

// The Chebyshev coefficients of I0 and I1: e^-|x| I0(x) and e^-|x| I1(x) / |x| on [0, 8] in x/4 - 1 ("near"),
// sqrt|x| e^-|x| I0(x) and sqrt|x| e^-|x| |I1(x)| beyond in 16/x - 1 ("far"). Function-local tables, which
// device code may read.
template <int Order>
TANDEM_HOST_DEVICE inline const auto& bessel_i_near() {
  if constexpr (Order == 0) {
    static constexpr double c[] = {
        -4.41534164647933937950e-18, 3.33079451882223809783e-17,  -2.43127984654795469359e-16,
        1.71539128555513303061e-15,  -1.16853328779934516808e-14, 7.67618549860493561688e-14,
        -4.85644678311192946090e-13, 2.95505266312963983461e-12,  -1.72682629144155570723e-11,
        9.67580903537323691224e-11,  -5.18979560163526290666e-10, 2.65982372468238665035e-09,
        -1.30002500998624804212e-08, 6.04699502254191894932e-08,  -2.67079385394061173391e-07,
        1.11738753912010371815e-06,  -4.41673835845875056359e-06, 1.64484480707288970893e-05,
        -5.75419501008210370398e-05, 1.88502885095841655729e-04,  -5.76375574538582365885e-04,
        1.63947561694133579842e-03,  -4.32430999505057594430e-03, 1.05464603945949983183e-02,
        -2.37374148058994688156e-02, 4.93052842396707084878e-02,  -9.49010970480476444210e-02,
        1.71620901522208775349e-01,  -3.04682672343198398683e-01, 6.76795274409476084995e-01};
    return c;
  } else {
    static constexpr double c[] = {
        2.77791411276104639959e-18,  -2.11142121435816608115e-17, 1.55363195773620046921e-16,
        -1.10559694773538630805e-15, 7.60068429473540693410e-15,  -5.04218550472791168711e-14,
        3.22379336594557470981e-13,  -1.98397439776494371520e-12, 1.17361862988909016308e-11,
        -6.66348972350202774223e-11, 3.62559028155211703701e-10,  -1.88724975172282928790e-09,
        9.38153738649577178388e-09,  -4.44505912879632808065e-08, 2.00329475355213526229e-07,
        -8.56872026469545474066e-07, 3.47025130813767847674e-06,  -1.32731636560394358279e-05,
        4.78156510755005422638e-05,  -1.61760815825896745588e-04, 5.12285956168575772895e-04,
        -1.51357245063125314899e-03, 4.15642294431288815669e-03,  -1.05640848946261981558e-02,
        2.47264490306265168283e-02,  -5.29459812080949914269e-02, 1.02643658689847095384e-01,
        -1.76416518357834055153e-01, 2.52587186443633654823e-01};
    return c;
  }
}
template <int Order>
TANDEM_HOST_DEVICE inline const auto& bessel_i_far() {
  if constexpr (Order == 0) {
    static constexpr double c[] = {
        -7.23318048787475395456e-18, -4.83050448594418207126e-18, 4.46562142029675999901e-17,
        3.46122286769746109310e-17,  -2.82762398051658348494e-16, -3.42548561967721913462e-16,
        1.77256013305652638360e-15,  3.81168066935262242075e-15,  -9.55484669882830764870e-15,
        -4.15056934728722208663e-14, 1.54008621752140982691e-14,  3.85277838274214270114e-13,
        7.18012445138366623367e-13,  -1.79417853150680611778e-12, -1.32158118404477131188e-11,
        -3.14991652796324136454e-11, 1.18891471078464383424e-11,  4.94060238822496958910e-10,
        3.39623202570838634515e-09,  2.26666899049817806459e-08,  2.04891858946906374183e-07,
        2.89137052083475648297e-06,  6.88975834691682398426e-05,  3.36911647825569408990e-03,
        8.04490411014108831608e-01};
    return c;
  } else {
    static constexpr double c[] = {
        7.51729631084210481353e-18,  4.41434832307170791151e-18,  -4.65030536848935832153e-17,
        -3.20952592199342395980e-17, 2.96262899764595013876e-16,  3.30820231092092828324e-16,
        -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
        4.27244001671195135429e-14,  -2.10154184277266431302e-14, -4.08355111109219731823e-13,
        -7.19855177624590851209e-13, 2.03562854414708950722e-12,  1.41258074366137813316e-11,
        3.25260358301548823856e-11,  -1.89749581235054123450e-11, -5.58974346219658380687e-10,
        -3.83538038596423702205e-09, -2.63146884688951950684e-08, -2.51223623787020892529e-07,
        -3.88256480887769039346e-06, -1.10588938762623716291e-04, -9.76109749136146840777e-03,
        7.78576235018280120474e-01};
    return c;
  }
}

// I0 and I1 as e^|x| times a Chebyshev series in x/4 - 1 on [0, 8] and e^|x| / sqrt|x| times one in 16/x - 1
// beyond (I1 also has the factor |x| below 8, and is odd). `scaled` leaves the factor e^|x| out: i0e and i1e.
template <int Order>
TANDEM_HOST_DEVICE inline double bessel_i(double x, bool scaled = false) {
  const double ax = std::fabs(x);
  const double growth = scaled ? 1.0 : std::exp(ax);
  if constexpr (Order == 0) {
    if (ax <= 8.0) return growth * evaluate_chebyshev(ax / 4 - 1, bessel_i_near<0>());
    return growth * evaluate_chebyshev(16 / ax - 1, bessel_i_far<0>()) / std::sqrt(ax);
  } else {
    const double r = ax <= 8.0 ? evaluate_chebyshev(ax / 4 - 1, bessel_i_near<1>()) * ax * growth
                               : growth * evaluate_chebyshev(16 / ax - 1, bessel_i_far<1>()) / std::sqrt(ax);
    return x < 0 ? -r : r;
  }
}

// The CPU loops need the Clenshaw loop below unrolled to vectorise over elements (nvcc's front end does not know
// GCC's pragma, and the CUDA build does not take this path).
#if defined(__CUDACC__)
#define TANDEM_UNROLL_FULLY
#else
#define TANDEM_UNROLL_FULLY _Pragma("GCC unroll 32")
#endif

#if !defined(__CUDA_ARCH__)
// e^a for 0 <= a <= 104 in a form the compiler vectorises: a = n ln2 + r (Cody and Waite's two-part ln2, the
// first part short enough that n times it is exact), e^r by its Taylor series to r^11 (|r| <= ln2/2: relative
// error below 1e-14), and 2^n added to the result's exponent bits (the rounding constant 1.5 * 2^52 leaves n in
// t's low bits).
TANDEM_INLINE double exp_for_bessel_i(double a) {
  const double t = a * 1.44269504088896340736 + 6755399441055744.0;
  const double n = t - 6755399441055744.0;
  const double r = (a - n * 6.93145751953125e-1) - n * 1.42860682030941723212e-6;
  double p = 1.0 / 39916800;
  p = p * r + 1.0 / 3628800;
  p = p * r + 1.0 / 362880;
  p = p * r + 1.0 / 40320;
  p = p * r + 1.0 / 5040;
  p = p * r + 1.0 / 720;
  p = p * r + 1.0 / 120;
  p = p * r + 1.0 / 24;
  p = p * r + 1.0 / 6;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  return bits_double(double_bits(p) + (double_bits(t) << 52));
}
#endif

// How many of the leading (highest-order) Chebyshev coefficients of bessel_i_near/far<Order> a float result
// leaves out: their absolute values sum to less than 1e-10 (near: 2.1e-11 and 8.1e-11 for I0 and I1;
// far: 6.0e-11 and 6.9e-11), and a Chebyshev polynomial is at most 1 in magnitude, so dropping them moves the
// series by less than that, under 0.01 of a float ulp of the smallest series value (0.0168, I1's near series
// at 8). The float path then runs 21 (I0) or 19 (I1) steps instead of 30 or 29
// (tests/cpp/test_vector_math.cpp checks the sums).
template <int Order>
struct BesselIFloatTerms {
  static constexpr int near_skip = Order == 0 ? 9 : 10;
  static constexpr int far_skip = 17;
};

// bessel_i for float results (float32 and the 16-bit types), in the form the CPU kernel loop vectorises: one
// branch-free Clenshaw recurrence in which every lane takes its own interval's coefficients (the shorter
// series padded with leading zeros, which leave its sum unchanged) and an inline exp, over the coefficients a
// float result needs (BesselIFloatTerms). It computes in double as bessel_i does, so the float is the same
// rounding of nearly the same value on every CPU capability.
template <int Order, bool Scaled>
TANDEM_HOST_DEVICE TANDEM_INLINE float bessel_i_float(float in) {
#if defined(__CUDA_ARCH__)
  return static_cast<float>(bessel_i<Order>(in, Scaled));
#else
  const auto& near = bessel_i_near<Order>();
  const auto& far = bessel_i_far<Order>();
  constexpr int near_skip = BesselIFloatTerms<Order>::near_skip,
                far_skip = BesselIFloatTerms<Order>::far_skip;
  constexpr int near_terms = static_cast<int>(sizeof(near) / sizeof(near[0])) - near_skip;
  constexpr int far_terms = static_cast<int>(sizeof(far) / sizeof(far[0])) - far_skip;
  constexpr int terms = near_terms > far_terms ? near_terms : far_terms;
  constexpr int near_pad = terms - near_terms, far_pad = terms - far_terms;
  // Coefficient i of the recurrence for a lane in one interval: zero in the padding, then the kept ones.
  const auto coefficient = [&](bool is_near, int i) {
    return is_near ? (i >= near_pad ? near[near_skip + i - near_pad] : 0.0)
                   : (i >= far_pad ? far[far_skip + i - far_pad] : 0.0);
  };
  const double x = in, ax = std::fabs(x);
  const bool is_near = ax <= 8.0;
  const double t = is_near ? ax / 4 - 1 : 16 / ax - 1;
  const double two_t = t + t;
  double b0 = coefficient(is_near, 0), b1 = 0, b2 = 0;
  TANDEM_UNROLL_FULLY
  for (int i = 1; i < terms; ++i) {
    const double c = coefficient(is_near, i);
    b2 = b1;
    b1 = b0;
    b0 = two_t * b1 + (c - b2);
  }
  const double series = 0.5 * (b0 - b2);
  // Past 104 the unscaled functions are far beyond float's range: e^|x| is clamped there and the lane set to
  // infinity (a far series over sqrt(inf) would give 0); at +-inf itself NaN, as the double path and PyTorch
  // give (e^inf times the far series' 0).
  const double growth = Scaled ? 1.0 : exp_for_bessel_i(ax < 104.0 ? ax : 104.0);
  double r;
  if constexpr (Order == 0)
    r = is_near ? growth * series : growth * series / std::sqrt(ax);
  else
    r = is_near ? series * ax * growth : growth * series / std::sqrt(ax);
  if (!Scaled)
    r = ax > 104.0 ? (ax < std::numeric_limits<double>::infinity() ? std::numeric_limits<double>::infinity()
                                                                    : std::numeric_limits<double>::quiet_NaN())
                   : r;
  if constexpr (Order == 1) r = x < 0 ? -r : r;
  return x != x ? in : static_cast<float>(r);
#endif
}

TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double modified_bessel_i0(double x) { return bessel_i<0>(x); }
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double modified_bessel_i1(double x) { return bessel_i<1>(x); }
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double scaled_modified_bessel_i0(double x) {
  return bessel_i<0>(x, true);
}
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double scaled_modified_bessel_i1(double x) {
  return bessel_i<1>(x, true);
}

// K0 and K1, or e^x K0 and e^x K1 when scaled: below 2 a Chebyshev series in x^2/2 - 1 plus the log(x/2) I
// term of the singularity at 0, beyond 2 e^-x / sqrt(x) times a Chebyshev series in 4/x - 1. One body for
// both forms, so that K(0) = inf and K(x < 0) = NaN hold for each.
template <int Order>
TANDEM_HOST_DEVICE inline double bessel_k(double x, bool scaled) {
  static constexpr double far0[] = {
      5.30043377268626276149e-18,  -1.64758043015242134646e-17, 5.21039150503902756861e-17,
      -1.67823109680541210385e-16, 5.51205597852431940784e-16,  -1.84859337734377901440e-15,
      6.34007647740507060557e-15,  -2.22751332699166985548e-14, 8.03289077536357521100e-14,
      -2.98009692317273043925e-13, 1.14034058820847496303e-12,  -4.51459788337394416547e-12,
      1.85594911495471785253e-11,  -7.95748924447710747776e-11, 3.57739728140030116597e-10,
      -1.69753450938905987466e-09, 8.57403401741422608519e-09,  -4.66048989768794782956e-08,
      2.76681363944501510342e-07,  -1.83175552271911948767e-06, 1.39498137188764993662e-05,
      -1.28495495816278026384e-04, 1.56988388573005337491e-03,  -3.14481013119645005427e-02,
      2.44030308206595545468e+00};
  static constexpr double far1[] = {
      -5.75674448366501715755e-18, 1.79405087314755922667e-17,  -5.68946255844285935196e-17,
      1.83809354436663880070e-16,  -6.05704724837331885336e-16, 2.03870316562433424052e-15,
      -7.01983709041831346144e-15, 2.47715442448130437068e-14,  -8.97670518232499435011e-14,
      3.34841966607842919884e-13,  -1.28917396095102890680e-12, 5.13963967348173025100e-12,
      -2.12996783842756842877e-11, 9.21831518760500529508e-11,  -4.19035475934189648750e-10,
      2.01504975519703286596e-09,  -1.03457624656780970260e-08, 5.74108412545004946722e-08,
      -3.50196060308781257119e-07, 2.40648494783721712015e-06,  -1.93619797416608296024e-05,
      1.95215518471351631108e-04,  -2.85781685962277938680e-03, 1.03923736576817238437e-01,
      2.72062619048444266945e+00};
  if (x == 0.0) return infinity();
  if (x < 0.0) return not_a_number();
  if (x <= 2.0) {
    double k;
    if constexpr (Order == 0) {
      static constexpr double near[] = {1.37446543561352307156e-16, 4.25981614279661018399e-14,
                                        1.03496952576338420167e-11, 1.90451637722020886025e-09,
                                        2.53479107902614945675e-07, 2.28621210311945178607e-05,
                                        1.26461541144692592338e-03, 3.59799365153615016266e-02,
                                        3.44289899924628486886e-01, -5.35327393233902768720e-01};
      k = evaluate_chebyshev(x * x / 2 - 1, near) - std::log(0.5 * x) * bessel_i<0>(x);
    } else {
      static constexpr double near[] = {
          -7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
          -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
          -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
          -3.53155960776544875667e-01, 1.52530022733894777053e+00};
      k = std::log(0.5 * x) * bessel_i<1>(x) + evaluate_chebyshev(x * x / 2 - 1, near) / x;
    }
    return scaled ? k * std::exp(x) : k;
  }
  const double c = evaluate_chebyshev(4 / x - 1, Order == 0 ? far0 : far1);
  return (scaled ? c : std::exp(-x) * c) / std::sqrt(x);
}

TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double modified_bessel_k0(double x) {
  return bessel_k<0>(x, false);
}
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double modified_bessel_k1(double x) {
  return bessel_k<1>(x, false);
}
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double scaled_modified_bessel_k0(double x) {
  return bessel_k<0>(x, true);
}
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double scaled_modified_bessel_k1(double x) {
  return bessel_k<1>(x, true);
}

// sin(x) / x, by its Taylor polynomial (through x^12) below 1/2 where the quotient would lose digits to 0/0
// at the origin; 0 at +-inf.
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double spherical_bessel_j0(double x) {
  static constexpr double taylor[] = {
      1.0 / 6227020800.0, -1.0 / 39916800.0, 1.0 / 362880.0, -1.0 / 5040.0, 1.0 / 120.0, -1.0 / 6.0, 1.0};
  if (std::isinf(x)) return 0.0;
  if (std::fabs(x) < 0.5) return evaluate_polynomial(x * x, taylor);
  return std::sin(x) / x;
}

// Ai(x): for x >= 2.09 the decaying asymptotic form e^-zeta / (2 sqrt(pi) x^(1/4)) R(1/zeta), zeta = (2/3)
// x^(3/2) (0 beyond 103.892, where it underflows); for x < -2.09 the oscillating one, sin and cos of zeta +
// pi/4 weighted by rational functions of 1/zeta^2; in between the Maclaurin series Ai(0) f(x) + Ai'(0) g(x),
// f = sum 3^k (1/3)_k x^3k / (3k)!, g = sum 3^k (2/3)_k x^(3k+1) / (3k+1)!. NaN at +-inf, as PyTorch.
TANDEM_HOST_DEVICE TANDEM_NOINLINE_HOST inline double airy_ai(double x) {
  static constexpr double decay_num[] = {3.46538101525629032477e-01, 1.20075952739645805542e+01,
                                         7.62796053615234516538e+01, 1.68089224934630576269e+02,
                                         1.59756391350164413639e+02, 7.05360906840444183113e+01,
                                         1.40264691163389668864e+01, 9.99999999999999995305e-01};
  static constexpr double decay_den[] = {5.67594532638770212846e-01, 1.47562562584847203173e+01,
                                         8.45138970141474626562e+01, 1.77318088145400459522e+02,
                                         1.64234692871529701831e+02, 7.14778400825575695274e+01,
                                         1.40959135607834029598e+01, 1.00000000000000000470e+00};
  static constexpr double sin_num[] = {
      -1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
      -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
      -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08};
  static constexpr double sin_den[] = {
      1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01,
      9.18707402907259625840e+00, 1.47529146771666414581e+00, 1.15687173795188044134e-01,
      4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07};
  static constexpr double cos_num[] = {
      1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00,
      9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
      5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
      8.11789239554389293311e-08, 3.41551784765923618484e-10};
  static constexpr double cos_den[] = {9.30892908077441974853e+00, 1.98352928718312140417e+01,
                                       1.55646628932864612953e+01, 5.47686069422975497931e+00,
                                       9.54293611618961883998e-01, 8.64580826352392193095e-02,
                                       4.12656523824222607191e-03, 1.01259085116509135510e-04,
                                       1.17166733214413521882e-06, 4.91834570062930015649e-09};
  if (std::isinf(x)) return not_a_number();
  if (x > 103.892) return 0.0;
  if (x >= 2.09) {
    const double zeta = 2.0 * x * std::sqrt(x) / 3.0;
    return kInvSqrtPi * evaluate_rational(1.0 / zeta, decay_num, decay_den) /
           (2.0 * std::sqrt(std::sqrt(x)) * std::exp(zeta));
  }
  if (x < -2.09) {
    const double zeta = -2.0 * x * std::sqrt(-x) / 3.0, w = 1.0 / zeta, w2 = w * w;
    const double phase = zeta + kPiOver4;
    return kInvSqrtPi / std::sqrt(std::sqrt(-x)) *
           (std::sin(phase) * (1.0 + w2 * evaluate_rational_monic(w2, sin_num, sin_den)) -
            std::cos(phase) * (w * evaluate_rational_monic(w2, cos_num, cos_den)));
  }
  // |x| <= 2.09: the terms shrink by x^3 / (9 k^2) or so; 30 of them reach any double's precision
  const double cube = x * x * x;
  double f_term = 1.0, g_term = x, f = 1.0, g = x;
  for (int k = 1; k < 30; ++k) {
    f_term *= cube / ((3.0 * k - 1) * (3.0 * k));
    g_term *= cube / ((3.0 * k) * (3.0 * k + 1));
    f += f_term;
    g += g_term;
    if (!(std::fabs(f_term) > std::numeric_limits<double>::epsilon() * std::fabs(f))) break;
  }
  return 0.355028053887817239260 * f - 0.258819403792806798405 * g;
}

}  // namespace bessel
}  // namespace special_math
}  // namespace tandem
