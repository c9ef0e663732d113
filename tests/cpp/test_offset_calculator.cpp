// The host-compiled pieces of the CUDA kernels: the offset calculator must find the same elements as the
// CPU's strip walk, and the random distributions' log/sin/cos must be accurate.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/error.h"
#include "kernels/offset_calculator.h"
#include "kernels/random_math.h"
#include "kernels/tensor_iterator.h"
#include "ops/copy.h"
#include "ops/view.h"

using namespace tandem;

namespace {

// Byte offsets of every element of every operand, in linear order, from TensorIterator::for_each_range.
std::vector<std::vector<int64_t>> strip_offsets(const TensorIterator& iter) {
  std::vector<std::vector<int64_t>> offsets(iter.ntensors());
  iter.for_each_range(0, iter.numel(), [&](char** data, const int64_t* strides, int64_t n) {
    for (int k = 0; k < iter.ntensors(); ++k)
      for (int64_t i = 0; i < n; ++i) offsets[k].push_back(data[k] - iter.data(k) + i * strides[k]);
  });
  return offsets;
}

template <int N>
void expect_same_offsets(const TensorIterator& iter) {
  auto expected = strip_offsets(iter);
  OffsetCalculator<N> calc(iter);
  for (int64_t i = 0; i < iter.numel(); ++i) {
    OperandOffsets<N> got = calc.get(i);
    for (int k = 0; k < N; ++k) ASSERT_EQ(got.v[k], expected[k][i]) << "element " << i << " operand " << k;
  }
}

Tensor filled(DimVector shape, DType dtype = DType::Float32) { return full(shape, Scalar(1.0), dtype); }

}  // namespace

TEST(OffsetCalculator, BroadcastOperands) {
  Tensor out = filled({4, 5, 3}), a = filled({4, 1, 3}), b = filled({5, 1});
  TensorIterator iter;
  iter.add_output(out);
  iter.add_input(a);
  iter.add_input(b);
  iter.build();
  expect_same_offsets<3>(iter);
}

TEST(OffsetCalculator, TransposedAndSlicedInputsOfMixedDtypes) {
  Tensor base = filled({6, 7, 9}, DType::Float64);
  const std::vector<int64_t> order = {2, 0, 1};
  Tensor transposed = permute(base, order);                              // (9, 6, 7)
  Tensor sliced = slice(filled({9, 12, 7}, DType::Int16), 1, 1, 12, 2);  // (9, 6, 7), step 2
  Tensor out = filled({9, 6, 7}, DType::Int8);
  TensorIterator iter;
  iter.add_output(out);
  iter.add_input(transposed);
  iter.add_input(sliced);
  iter.build();
  EXPECT_GE(iter.ndim(), 2);
  expect_same_offsets<3>(iter);
}

TEST(OffsetCalculator, ScalarOperandAndExpandedZeroDimTensor) {
  Tensor out = filled({3, 17}), zero_dim = full(DimVector{}, Scalar(2.0), DType::Float32);
  Tensor column = slice(filled({3, 4}), 1, 1, 2, 1);  // (3, 1) with row stride 4
  const float two = 2.0f;
  TensorIterator iter;
  iter.add_output(out);
  iter.add_input(column);
  iter.add_scalar_input(&two, DType::Float32);
  iter.add_input(zero_dim);
  iter.build();
  EXPECT_TRUE(iter.is_scalar(2));
  EXPECT_FALSE(iter.is_scalar(3));
  expect_same_offsets<4>(iter);
}

TEST(OffsetCalculator, TooManyDimsIsANotImplementedError) {
  DimVector shape(26, 2);
  Tensor out = filled(shape), in = filled(shape);
  std::vector<int64_t> order(26);
  for (int d = 0; d < 26; ++d) order[d] = 25 - d;  // reversed: no two dims merge
  Tensor reversed = permute(in, order);
  TensorIterator iter;
  iter.add_output(out);
  iter.add_input(reversed);
  iter.build();
  EXPECT_THROW(OffsetCalculator<2>{iter}, Error);
}

TEST(IntDivider, MatchesIntegerDivision) {
  std::mt19937_64 rng(7);
  const uint64_t kMax = (uint64_t{1} << 63) - 1;  // dividends and divisors stay below 2^63
  std::vector<uint64_t> divisors = {1,
                                    2,
                                    3,
                                    5,
                                    7,
                                    10,
                                    255,
                                    256,
                                    1000,
                                    65535,
                                    65536,
                                    1u << 30,
                                    0x7fffffffu,
                                    uint64_t{1} << 32,
                                    (uint64_t{1} << 32) + 1,
                                    uint64_t{1} << 62,
                                    kMax};
  for (int i = 0; i < 50; ++i) divisors.push_back(1 + rng() % 100000);
  for (int i = 0; i < 50; ++i) divisors.push_back(1 + (rng() >> (2 + rng() % 62)));
  for (uint64_t d : divisors) {
    IntDivider div(d);
    for (uint64_t n : {uint64_t{0}, uint64_t{1}, d - 1, d, d + 1, kMax, kMax - 1, uint64_t{0x7fffffff}})
      if (n <= kMax) {
        ASSERT_EQ(div.div(n), n / d) << n << " / " << d;
      }
    for (int j = 0; j < 200; ++j) {
      uint64_t n = rng() >> (1 + rng() % 63);
      ASSERT_EQ(div.div(n), n / d) << n << " / " << d;
    }
  }
}

TEST(RandomMath, LogAndSinCosAreAccurate) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100000; ++i) {
    uint64_t w = rng();
    float uf = static_cast<float>((w >> 40) + 1) * 0x1p-24f;
    EXPECT_NEAR(random_log(uf), std::log(static_cast<double>(uf)), 4e-7 * std::fabs(std::log(uf)) + 1e-12);
    double ud = static_cast<double>((w >> 11) + 1) * 0x1p-53;
    EXPECT_NEAR(random_log(ud), std::log(ud), 4e-16 * std::fabs(std::log(ud)) + 1e-300);
    double theta = 6.283185307179586476925286766559 * static_cast<double>(w >> 11) * 0x1p-53;
    double s, c;
    random_sincos_2pi(static_cast<double>(w >> 11) * 0x1p-53, &s, &c);
    EXPECT_NEAR(s, std::sin(theta), 1e-15);
    EXPECT_NEAR(c, std::cos(theta), 1e-15);
    float sf, cf;
    random_sincos_2pi(static_cast<float>(w >> 40) * 0x1p-24f, &sf, &cf);
    double thetaf = 6.283185307179586476925286766559 * static_cast<double>(w >> 40) * 0x1p-24;
    EXPECT_NEAR(sf, std::sin(thetaf), 2e-7);
    EXPECT_NEAR(cf, std::cos(thetaf), 2e-7);
  }
  EXPECT_EQ(random_log(1.0f), 0.0f);
  EXPECT_EQ(random_log(1.0), 0.0);
}
