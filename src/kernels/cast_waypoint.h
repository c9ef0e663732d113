// Casts between uint16/uint32/uint64 and float16, bfloat16 or complex go through float32 (float64 for
// complex128): those conversions pass through that float anyway (convert<Half>(v) is Half(float(v)),
// convert<uint32_t>(z) reads z's real part), so two steps give the same values, and the copy kernels skip
// those 24 of their 225 dtype pairs (compile time: the copy kernel is instantiated per pair, per CPU
// capability and for CUDA). Front ends (ops/copy.cpp's copy_elements) take the two steps.
#pragma once
#include <cstdint>
#include <type_traits>

#include "core/complex.h"
#include "core/dtype.h"
#include "core/half.h"

namespace tandem {

template <typename T>
constexpr bool is_wide_uint_type_v =
    std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t>;
template <typename T>
constexpr bool needs_float_waypoint_v =
    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> || std::is_same_v<T, complex<float>> ||
    std::is_same_v<T, complex<double>>;
// True for the dtype pairs the copy kernels skip.
template <typename O, typename I>
constexpr bool cast_through_float_v = (is_wide_uint_type_v<O> && needs_float_waypoint_v<I>) ||
                                      (needs_float_waypoint_v<O> && is_wide_uint_type_v<I>);

// The dtype a cast from `from` to `to` goes through, or `to` itself when it is direct.
inline DType cast_waypoint(DType to, DType from) {
  if (is_wide_uint(to) == is_wide_uint(from)) return to;
  const DType other = is_wide_uint(to) ? from : to;
  if (other == DType::Float16 || other == DType::BFloat16 || other == DType::Complex64) return DType::Float32;
  if (other == DType::Complex128) return DType::Float64;
  return to;
}

}  // namespace tandem
