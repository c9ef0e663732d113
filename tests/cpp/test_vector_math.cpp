// The branch-free float functions of kernels/vector_math.h. Builds with glibc 2.35's libmvec run the ops'
// exp, log, log1p, expm1, tanh and erf through libmvec instead (kernel_expf, ...), so the Python tests of
// those ops no longer reach these versions there; this test keeps them checked in every build: within 3 ulp
// of the double result over both signs and every magnitude, and special values as the std:: functions; and
// the float Bessel I series' truncation (bessel_math.h).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/bessel_math.h"
#include "kernels/vector_math.h"

using namespace tandem;

namespace {

// Distance of got from the exact value in ulps of the float result (the subnormal spacing below the normal
// range).
double ulp_error(float got, double want) {
  const double magnitude = std::fabs(static_cast<double>(static_cast<float>(want)));
  const double spacing =
      magnitude < 1.17549435e-38 ? std::ldexp(1.0, -149) : std::ldexp(1.0, std::ilogb(magnitude) - 23);
  return std::fabs(static_cast<double>(got) - want) / spacing;
}

// Every 4099th float bit pattern (both signs, all exponents), plus values around the functions' break points.
std::vector<float> sample() {
  std::vector<float> xs;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 4099) {
    const uint32_t b = static_cast<uint32_t>(bits);
    float x;
    std::memcpy(&x, &b, sizeof x);
    if (!std::isnan(x)) xs.push_back(x);
  }
  for (float x : {0.625f, 0.70710678f, 1.0f, 3.92f, 88.7f, 89.0f, -103.9f, 0.5f, 1e-45f, 1.17549435e-38f}) {
    xs.push_back(x);
    xs.push_back(-x);
  }
  return xs;
}

template <typename Fn, typename Ref>
void expect_within(const char* name, Fn fn, Ref ref, double bound) {
  double worst = 0;
  float worst_x = 0;
  for (float x : sample()) {
    const double want = ref(static_cast<double>(x));
    const float got = fn(x);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << name << "(" << x << ")";
      continue;
    }
    if (std::fabs(want) > std::numeric_limits<float>::max()) {  // overflows in float: must be the infinity
      EXPECT_EQ(got, static_cast<float>(want)) << name << "(" << x << ")";
      continue;
    }
    const double err = ulp_error(got, want);
    if (err > worst) worst = err, worst_x = x;
  }
  EXPECT_LE(worst, bound) << name << " worst at x = " << worst_x;
}

}  // namespace

TEST(VectorMath, BranchFreeFunctionsWithinThreeUlp) {
  expect_within(
      "vector_expf", vector_expf, [](double x) { return std::exp(x); }, 3.0);
  expect_within(
      "vector_logf", vector_logf, [](double x) { return std::log(x); }, 3.0);
  expect_within(
      "vector_log1pf", vector_log1pf, [](double x) { return std::log1p(x); }, 3.0);
  expect_within(
      "vector_expm1f", vector_expm1f, [](double x) { return std::expm1(x); }, 3.0);
  expect_within(
      "vector_tanhf", vector_tanhf, [](double x) { return std::tanh(x); }, 3.0);
  expect_within(
      "vector_erff", vector_erff, [](double x) { return std::erf(x); }, 3.0);
  expect_within(
      "vector_sigmoidf", vector_sigmoidf, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, 3.0);
}

TEST(VectorMath, SpecialValuesAsTheStdFunctions) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (float x : {0.0f, -0.0f, inf, -inf, nan, -1.0f, -2.0f}) {
    const auto same = [&](const char* name, float got, float want) {
      EXPECT_TRUE((std::isnan(got) && std::isnan(want)) ||
                  (got == want && std::signbit(got) == std::signbit(want)))
          << name << "(" << x << ") = " << got << ", std gives " << want;
    };
    same("vector_expf", vector_expf(x), std::exp(x));
    same("vector_logf", vector_logf(x), std::log(x));
    same("vector_log1pf", vector_log1pf(x), std::log1p(x));
    same("vector_expm1f", vector_expm1f(x), std::expm1(x));
    same("vector_tanhf", vector_tanhf(x), std::tanh(x));
    same("vector_erff", vector_erff(x), std::erf(x));
  }
}

// bessel_i_float leaves out the leading Chebyshev coefficients BesselIFloatTerms names: their absolute values
// must sum to less than 1e-10 (the bound its comment gives), and the next one kept must not be negligible
// (the counts are the largest that hold).
template <int Order>
void expect_negligible_leading_terms() {
  namespace bessel = special_math::bessel;
  const auto check = [](const auto& table, int skip, const char* which) {
    double dropped = 0.0;
    for (int i = 0; i < skip; ++i) dropped += std::fabs(table[i]);
    EXPECT_LT(dropped, 1e-10) << "I" << Order << " " << which;
    EXPECT_GE(dropped + std::fabs(table[skip]), 1e-10) << "I" << Order << " " << which;
  };
  check(bessel::bessel_i_near<Order>(), bessel::BesselIFloatTerms<Order>::near_skip, "near");
  check(bessel::bessel_i_far<Order>(), bessel::BesselIFloatTerms<Order>::far_skip, "far");
}

TEST(VectorMath, BesselIFloatSeriesDropOnlyNegligibleTerms) {
  expect_negligible_leading_terms<0>();
  expect_negligible_leading_terms<1>();
}
