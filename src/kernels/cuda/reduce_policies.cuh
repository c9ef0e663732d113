// Fold policies of the CUDA reductions, with the CPU's accumulator types (kernels/cpu/reduce_fold.h): 16-bit
// floats accumulate in float, integer and bool sums and products in uint64 (so overflow wraps) and write
// int64; max/min propagate NaN; all/any write uint8 for uint8 input. The arg policies carry (value, index)
// pairs and prefer the lower index on ties, which makes their combine order-independent.
#pragma once
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/dtype.h"
#include "kernels/functors.h"

namespace tandem::cuda {

template <typename T>
using sum_acc_t = std::conditional_t<is_floating_type_v<T>, opmath_t<T>, uint64_t>;
template <typename T>
using sum_out_t = std::conditional_t<is_floating_type_v<T>, T, int64_t>;

// Sum (scale 1) and Mean (scale 1/count, floating inputs only).
template <typename T>
struct SumPolicy {
  using acc_t = sum_acc_t<T>;
  sum_out_t<T>* out;
  acc_t scale;
  __device__ acc_t identity() const { return acc_t(0); }
  __device__ acc_t step(acc_t a, T x, int64_t) const { return a + static_cast<acc_t>(x); }
  __device__ acc_t combine(acc_t a, acc_t b) const { return a + b; }
  __device__ void emit(int64_t o, acc_t a) const {
    if constexpr (is_floating_type_v<T>)
      out[o] = convert<sum_out_t<T>>(a * scale);
    else
      out[o] = static_cast<sum_out_t<T>>(a);
  }
};

template <typename T>
struct ProdPolicy {
  using acc_t = sum_acc_t<T>;
  sum_out_t<T>* out;
  __device__ acc_t identity() const { return acc_t(1); }
  __device__ acc_t step(acc_t a, T x, int64_t) const { return a * static_cast<acc_t>(x); }
  __device__ acc_t combine(acc_t a, acc_t b) const { return a * b; }
  __device__ void emit(int64_t o, acc_t a) const { out[o] = convert<sum_out_t<T>>(a); }
};

// The value a max (min) fold starts from: below (above) every element.
template <typename V, bool IsMax>
__device__ V extreme_identity() {
  if constexpr (std::is_same_v<V, bool>)
    return !IsMax;
  else if constexpr (std::is_floating_point_v<V>)
    return IsMax ? -std::numeric_limits<V>::infinity() : std::numeric_limits<V>::infinity();
  else
    return IsMax ? std::numeric_limits<V>::lowest() : std::numeric_limits<V>::max();
}

// Once the accumulator is NaN it stays NaN.
template <typename T, bool IsMax>
struct MaxMinPolicy {
  using acc_t = opmath_t<T>;
  T* out;
  __device__ acc_t identity() const { return extreme_identity<acc_t, IsMax>(); }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    bool take = (IsMax ? b > a : b < a) || (b != b);
    return take ? b : a;
  }
  __device__ acc_t step(acc_t a, T x, int64_t) const { return combine(a, static_cast<acc_t>(x)); }
  __device__ void emit(int64_t o, acc_t a) const { out[o] = convert<T>(a); }
};

template <typename T, bool IsAll>
struct AllAnyPolicy {
  using acc_t = uint8_t;
  using out_t = std::conditional_t<std::is_same_v<T, uint8_t>, uint8_t, bool>;
  out_t* out;
  __device__ acc_t identity() const { return IsAll; }
  __device__ acc_t combine(acc_t a, acc_t b) const { return IsAll ? (a & b) : (a | b); }
  __device__ acc_t step(acc_t a, T x, int64_t) const { return combine(a, convert<bool>(x)); }
  __device__ void emit(int64_t o, acc_t a) const { out[o] = static_cast<out_t>(a); }
};

template <typename V>
struct ValueIndex {
  V value;
  int64_t index;
};

// max/min with the first index: NaN beats every number, and among equals (or NaNs) the lower index wins.
template <typename T, bool IsMax>
struct ArgPolicy {
  using V = opmath_t<T>;
  using acc_t = ValueIndex<V>;
  T* values;  // null for argmax/argmin
  int64_t* indices;
  __device__ acc_t identity() const {
    return {extreme_identity<V, IsMax>(), std::numeric_limits<int64_t>::max()};
  }
  __device__ acc_t combine(acc_t a, acc_t b) const {
    const bool a_nan = a.value != a.value, b_nan = b.value != b.value;
    bool take_b;
    if (a_nan || b_nan)
      take_b = b_nan && (!a_nan || b.index < a.index);
    else
      take_b = (IsMax ? b.value > a.value : b.value < a.value) || (b.value == a.value && b.index < a.index);
    return take_b ? b : a;
  }
  __device__ acc_t step(acc_t a, T x, int64_t r) const { return combine(a, {static_cast<V>(x), r}); }
  __device__ void emit(int64_t o, acc_t a) const {
    if (values) values[o] = convert<T>(a.value);
    indices[o] = a.index;
  }
};

}  // namespace tandem::cuda
