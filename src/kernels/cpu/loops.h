// CPU strip loops: the inner loop the TensorIterator calls for each 1-D strip. Each has a contiguous fast
// path (plain indexing, which the compiler vectorises), a scalar-operand path, and a generic strided path.
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/dtype.h"
#include "kernels/cpu/half_blocks.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/functors.h"
#include "kernels/tensor_iterator.h"
#include "kernels/vector_libm.h"

#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
#include <immintrin.h>
#endif

TANDEM_CPU_KERNELS_BEGIN

template <typename T>
TANDEM_INLINE opmath_t<T> load(const char* p) {
  return static_cast<opmath_t<T>>(*reinterpret_cast<const T*>(p));
}

// Contiguous 16-bit float strips (H is Half or BFloat16): widen, compute in float, narrow once. AVX2 and
// AVX-512 builds do eight lanes at a time in registers (the compiler vectorises the eight-element loop; 1.5x
// faster than a buffer), then the rest, and the baseline build everything, a block at a time (see
// half_blocks.h).
template <typename H, typename F>
void half_unary_strip(H* out, const H* a, int64_t n, const F& f) {
  int64_t i = 0;
#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
  for (; i + 8 <= n; i += 8) {
    float x[8];
    _mm256_storeu_ps(x, widen8(a + i));
    for (int k = 0; k < 8; ++k) x[k] = convert<float>(f(x[k]));
    narrow8(_mm256_loadu_ps(x), out + i);
  }
#endif
  float x[kHalfBlock];
  for (; i < n; i += kHalfBlock) {
    const int64_t len = std::min(kHalfBlock, n - i);
    widen_halves(a + i, x, len);
    for (int64_t k = 0; k < len; ++k) x[k] = convert<float>(f(x[k]));
    narrow_to_halves(x, out + i, len);
  }
}
// The same for two operands; a scalar operand (stride 0) is widened once.
template <typename H, typename F>
void half_binary_strip(H* out, const H* a, const H* b, bool a_scalar, bool b_scalar, int64_t n, const F& f) {
  const float a0 = static_cast<float>(*a), b0 = static_cast<float>(*b);
  int64_t i = 0;
#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
  float x[8], y[8];
  if (!a_scalar && !b_scalar) {
    for (; i + 8 <= n; i += 8) {
      _mm256_storeu_ps(x, widen8(a + i));
      _mm256_storeu_ps(y, widen8(b + i));
      for (int k = 0; k < 8; ++k) x[k] = convert<float>(f(x[k], y[k]));
      narrow8(_mm256_loadu_ps(x), out + i);
    }
  } else if (b_scalar && !a_scalar) {
    for (; i + 8 <= n; i += 8) {
      _mm256_storeu_ps(x, widen8(a + i));
      for (int k = 0; k < 8; ++k) x[k] = convert<float>(f(x[k], b0));
      narrow8(_mm256_loadu_ps(x), out + i);
    }
  } else if (a_scalar && !b_scalar) {
    for (; i + 8 <= n; i += 8) {
      _mm256_storeu_ps(y, widen8(b + i));
      for (int k = 0; k < 8; ++k) x[k] = convert<float>(f(a0, y[k]));
      narrow8(_mm256_loadu_ps(x), out + i);
    }
  }
#endif
  float xb[kHalfBlock], yb[kHalfBlock];
  for (; i < n; i += kHalfBlock) {
    const int64_t len = std::min(kHalfBlock, n - i);
    if (!a_scalar) widen_halves(a + i, xb, len);
    if (!b_scalar) widen_halves(b + i, yb, len);
    if (a_scalar && b_scalar)
      std::fill(xb, xb + len, convert<float>(f(a0, b0)));
    else if (a_scalar)
      for (int64_t k = 0; k < len; ++k) xb[k] = convert<float>(f(a0, yb[k]));
    else if (b_scalar)
      for (int64_t k = 0; k < len; ++k) xb[k] = convert<float>(f(xb[k], b0));
    else
      for (int64_t k = 0; k < len; ++k) xb[k] = convert<float>(f(xb[k], yb[k]));
    narrow_to_halves(xb, out + i, len);
  }
}
// Both operands and the result are the same 16-bit float type.
template <typename out_t, typename in_t>
constexpr bool kHalfToHalf = std::is_same_v<out_t, in_t> && (kHalfFloat<in_t>);

// One strip of unary_loop. flatten: the functor and everything it calls are inlined here, so the contiguous
// loop vectorises whatever GCC's inlining heuristics decide for the functor elsewhere (they stopped inlining
// the branch-free tanh/log/expm1 once the op list's kernels were split over several files, 6x slower).
//
// The functor is copied into a local first: a functor with parameters (clamp's bounds, leaky_relu's slope)
// read through the reference could alias the output as far as GCC knows, and kept the loop scalar.
template <typename out_t, typename in_t, typename F>
[[gnu::flatten]] void unary_strip(char** data, const int64_t* strides, int64_t n, const F& functor) {
  using op_t = opmath_t<in_t>;
  const F f = functor;
  if (strides[0] == sizeof(out_t) && strides[1] == sizeof(in_t)) {
    out_t* __restrict out = reinterpret_cast<out_t*>(data[0]);
    const in_t* __restrict in = reinterpret_cast<const in_t*>(data[1]);
    if constexpr (kHalfToHalf<out_t, in_t>)
      half_unary_strip(out, in, n, f);
    else
      for (int64_t i = 0; i < n; ++i) out[i] = convert<out_t>(f(static_cast<op_t>(in[i])));
  } else {
    char* o = data[0];
    const char* a = data[1];
    for (int64_t i = 0; i < n; ++i, o += strides[0], a += strides[1])
      *reinterpret_cast<out_t*>(o) = convert<out_t>(f(load<in_t>(a)));
  }
}

// out[i] = f(in[i]); in_t is the storage type of the input, out_t of the output.
template <typename out_t, typename in_t, typename F>
void unary_loop(TensorIterator& iter, const F& f) {
  iter.for_each(
      [&](char** data, const int64_t* strides, int64_t n) { unary_strip<out_t, in_t>(data, strides, n, f); });
}

// One strip of binary_loop, flattened for the same reason as unary_strip.
template <typename out_t, typename in_t, typename F>
[[gnu::flatten]] void binary_strip(char** data, const int64_t* strides, int64_t n, const F& functor) {
  using op_t = opmath_t<in_t>;
  const F f = functor;
  constexpr int64_t so = sizeof(out_t), si = sizeof(in_t);
  out_t* __restrict out = reinterpret_cast<out_t*>(data[0]);
  const in_t* __restrict a = reinterpret_cast<const in_t*>(data[1]);
  const in_t* __restrict b = reinterpret_cast<const in_t*>(data[2]);
  if constexpr (kHalfToHalf<out_t, in_t>) {
    if (strides[0] == so && (strides[1] == si || strides[1] == 0) && (strides[2] == si || strides[2] == 0)) {
      half_binary_strip(out, a, b, strides[1] == 0, strides[2] == 0, n, f);
      return;
    }
  }
  if (strides[0] == so && strides[1] == si && strides[2] == si) {
    for (int64_t i = 0; i < n; ++i)
      out[i] = convert<out_t>(f(static_cast<op_t>(a[i]), static_cast<op_t>(b[i])));
  } else if (strides[0] == so && strides[1] == si && strides[2] == 0) {
    const op_t bv = static_cast<op_t>(*b);
    for (int64_t i = 0; i < n; ++i) out[i] = convert<out_t>(f(static_cast<op_t>(a[i]), bv));
  } else if (strides[0] == so && strides[1] == 0 && strides[2] == si) {
    const op_t av = static_cast<op_t>(*a);
    for (int64_t i = 0; i < n; ++i) out[i] = convert<out_t>(f(av, static_cast<op_t>(b[i])));
  } else {
    char* o = data[0];
    const char *pa = data[1], *pb = data[2];
    for (int64_t i = 0; i < n; ++i, o += strides[0], pa += strides[1], pb += strides[2])
      *reinterpret_cast<out_t*>(o) = convert<out_t>(f(load<in_t>(pa), load<in_t>(pb)));
  }
}

// out[i] = f(a[i], b[i]) with a and b of the same storage type.
template <typename out_t, typename in_t, typename F>
void binary_loop(TensorIterator& iter, const F& f) {
  iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
    binary_strip<out_t, in_t>(data, strides, n, f);
  });
}

TANDEM_CPU_KERNELS_END
