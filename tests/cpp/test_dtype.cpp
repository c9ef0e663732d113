#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "core/error.h"

#include "core/dtype.h"
#include "core/half.h"
#include "ops/type_promotion.h"

using namespace tandem;

TEST(DType, PromoteTypesFollowsPyTorchTable) {
  EXPECT_EQ(promote_types(DType::UInt8, DType::Int8), DType::Int16);
  EXPECT_EQ(promote_types(DType::UInt8, DType::Int32), DType::Int32);
  EXPECT_EQ(promote_types(DType::Bool, DType::Int8), DType::Int8);
  EXPECT_EQ(promote_types(DType::Float16, DType::BFloat16), DType::Float32);
  EXPECT_EQ(promote_types(DType::Int64, DType::Float16), DType::Float16);
  EXPECT_EQ(promote_types(DType::Float32, DType::Float64), DType::Float64);
  EXPECT_EQ(promote_types(DType::Int32, DType::Int64), DType::Int64);
}

TEST(DType, PromoteTypesWithComplex) {
  EXPECT_EQ(promote_types(DType::Complex64, DType::Float64), DType::Complex128);
  EXPECT_EQ(promote_types(DType::Float64, DType::Complex64), DType::Complex128);
  EXPECT_EQ(promote_types(DType::Int64, DType::Complex64), DType::Complex64);
  EXPECT_EQ(promote_types(DType::Bool, DType::Complex128), DType::Complex128);
  EXPECT_EQ(promote_types(DType::Float16, DType::Complex64), DType::Complex64);
  EXPECT_EQ(promote_types(DType::Complex64, DType::Complex128), DType::Complex128);
  EXPECT_TRUE(is_complex(DType::Complex64));
  EXPECT_FALSE(is_floating(DType::Complex128));
  EXPECT_EQ(element_size(DType::Complex128), 16u);
  EXPECT_EQ(dtype_title(DType::Complex64), "ComplexFloat");
  EXPECT_EQ(dtype_cpp_name(DType::Complex128), "c10::complex<double>");
}

// dispatch_dtype instantiates real bodies only: a complex dtype is PyTorch's NotImplementedError, not UB.
TEST(DType, DispatchDtypeRefusesComplex) {
  EXPECT_THROW(dispatch_dtype(DType::Complex64, [](auto) { return 0; }), Error);
  EXPECT_EQ(dispatch_dtype_with_complex(DType::Complex128,
                                        [](auto tag) { return sizeof(typename decltype(tag)::type); }),
            16u);
}

// uint16..64: the Array API's integer table; uint64 with a signed type has no result.
TEST(DType, PromoteTypesWithWideUnsigned) {
  EXPECT_EQ(promote_types(DType::UInt16, DType::UInt32), DType::UInt32);
  EXPECT_EQ(promote_types(DType::UInt8, DType::UInt64), DType::UInt64);
  EXPECT_EQ(promote_types(DType::UInt16, DType::Int8), DType::Int32);
  EXPECT_EQ(promote_types(DType::Int16, DType::UInt16), DType::Int32);
  EXPECT_EQ(promote_types(DType::UInt32, DType::Int32), DType::Int64);
  EXPECT_EQ(promote_types(DType::UInt16, DType::Int64), DType::Int64);
  EXPECT_EQ(promote_types(DType::Bool, DType::UInt32), DType::UInt32);
  EXPECT_EQ(promote_types(DType::UInt64, DType::Float16), DType::Float16);
  EXPECT_EQ(promote_types(DType::UInt64, DType::Complex64), DType::Complex64);
  EXPECT_THROW(promote_types(DType::UInt64, DType::Int8), Error);
  EXPECT_THROW(promote_types(DType::Int64, DType::UInt64), Error);
  EXPECT_EQ(element_size(DType::UInt32), 4u);
  EXPECT_EQ(dtype_title(DType::UInt64), "UInt64");
  EXPECT_TRUE(is_integral(DType::UInt16, false) && is_unsigned_integral(DType::UInt16));
  EXPECT_TRUE(is_wide_uint(DType::UInt64) && !is_wide_uint(DType::UInt8));
}

// dispatch_dtype refuses uint16..64 too; dispatch_dtype_with_uint and dispatch_any_dtype take them.
TEST(DType, DispatchDtypeRefusesWideUnsigned) {
  EXPECT_THROW(dispatch_dtype(DType::UInt32, [](auto) { return 0; }), Error);
  EXPECT_THROW(dispatch_dtype_with_complex(DType::UInt16, [](auto) { return 0; }), Error);
  auto size = [](auto tag) { return sizeof(typename decltype(tag)::type); };
  EXPECT_EQ(dispatch_dtype_with_uint(DType::UInt64, size), 8u);
  EXPECT_EQ(dispatch_any_dtype(DType::UInt16, size), 2u);
  EXPECT_THROW(dispatch_dtype_with_uint(DType::Complex64, size), Error);
}

TEST(Complex, ArithmeticMatchesStdComplex) {
  const complex<double> a(1.5, -2.0), b(-0.25, 3.0);
  const std::complex<double> sa(1.5, -2.0), sb(-0.25, 3.0);
  auto near = [](complex<double> z, std::complex<double> w) {
    return std::abs(z.re - w.real()) < 1e-14 && std::abs(z.im - w.imag()) < 1e-14;
  };
  EXPECT_TRUE(near(a + b, sa + sb));
  EXPECT_TRUE(near(a - b, sa - sb));
  EXPECT_TRUE(near(a * b, sa * sb));
  EXPECT_TRUE(near(a / b, sa / sb));
  EXPECT_TRUE(near(cexp(a), std::exp(sa)));
  EXPECT_TRUE(near(clog(a), std::log(sa)));
  EXPECT_TRUE(near(csqrt(b), std::sqrt(sb)));
  EXPECT_TRUE(near(csqrt(complex<double>(-4.0, 0.0)), std::sqrt(std::complex<double>(-4.0, 0.0))));
  EXPECT_TRUE(near(csin(a), std::sin(sa)));
  EXPECT_TRUE(near(ccos(a), std::cos(sa)));
  EXPECT_TRUE(near(ctanh(a), std::tanh(sa)));
  EXPECT_DOUBLE_EQ(cabs(a), std::abs(sa));
  EXPECT_DOUBLE_EQ(carg(a), std::arg(sa));
  static_assert(sizeof(complex<float>) == 8 && alignof(complex<double>) == 16);
  static_assert(std::is_trivially_copyable_v<complex<double>>);
}

TEST(DType, SizesAndNames) {
  EXPECT_EQ(element_size(DType::BFloat16), 2u);
  EXPECT_EQ(element_size(DType::Float64), 8u);
  EXPECT_EQ(dtype_name(DType::Int16), "int16");
  EXPECT_EQ(dtype_title(DType::Int64), "Long");
}

TEST(Half, RoundTripsAndRoundsToNearestEven) {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 6.103515625e-05f, 5.960464477539063e-08f})
    EXPECT_EQ(static_cast<float>(Half(f)), f);
  EXPECT_TRUE(std::isinf(static_cast<float>(Half(70000.0f))));
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(NAN))));
  // 1 + 2^-11 is halfway between 1 and the next half (1 + 2^-10): ties go to even (1).
  EXPECT_EQ(static_cast<float>(Half(1.0f + 0.00048828125f)), 1.0f);
  EXPECT_EQ(static_cast<float>(BFloat16(1.0f)), 1.0f);
  EXPECT_EQ(static_cast<float>(BFloat16(3.0f)), 3.0f);
}

// Every one of the 65536 halves widens to the value IEEE 754 binary16 defines: (-1)^s 2^(e-15) (1 + m/1024)
// for normals, (-1)^s 2^-14 (m/1024) for subnormals, and inf/NaN with the payload kept.
TEST(Half, EveryBitPatternWidensExactly) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    uint32_t sign = h >> 15, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    float widened = Half::to_float(static_cast<uint16_t>(h));
    if (exp == 0x1f) {
      ASSERT_EQ(float_bits(widened), (sign << 31) | 0x7f800000u | (man << 13)) << std::hex << h;
      continue;
    }
    double magnitude = exp == 0 ? std::ldexp(man / 1024.0, -14) : std::ldexp(1.0 + man / 1024.0, exp - 15);
    double expected = sign ? -magnitude : magnitude;
    ASSERT_EQ(float_bits(widened), float_bits(static_cast<float>(expected))) << std::hex << h;
  }
}
