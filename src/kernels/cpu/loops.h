// CPU strip loops: the inner loop the TensorIterator calls for each 1-D strip. Each has a contiguous fast
// path (plain indexing, which the compiler vectorises), a scalar-operand path, and a generic strided path.
#pragma once
#include <cstdint>

#include "core/dtype.h"
#include "kernels/functors.h"
#include "ops/tensor_iterator.h"

namespace tandem::cpu {

template <typename T>
TANDEM_INLINE opmath_t<T> load(const char* p) {
  return static_cast<opmath_t<T>>(*reinterpret_cast<const T*>(p));
}

// out[i] = f(in[i]); in_t is the storage type of the input, out_t of the output.
template <typename out_t, typename in_t, typename F>
void unary_loop(TensorIterator& iter, const F& f) {
  using op_t = opmath_t<in_t>;
  iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
    if (strides[0] == sizeof(out_t) && strides[1] == sizeof(in_t)) {
      out_t* __restrict out = reinterpret_cast<out_t*>(data[0]);
      const in_t* __restrict in = reinterpret_cast<const in_t*>(data[1]);
      for (int64_t i = 0; i < n; ++i) out[i] = convert<out_t>(f(static_cast<op_t>(in[i])));
    } else {
      char* o = data[0];
      const char* a = data[1];
      for (int64_t i = 0; i < n; ++i, o += strides[0], a += strides[1])
        *reinterpret_cast<out_t*>(o) = convert<out_t>(f(load<in_t>(a)));
    }
  });
}

// out[i] = f(a[i], b[i]) with a and b of the same storage type.
template <typename out_t, typename in_t, typename F>
void binary_loop(TensorIterator& iter, const F& f) {
  using op_t = opmath_t<in_t>;
  iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
    constexpr int64_t so = sizeof(out_t), si = sizeof(in_t);
    out_t* __restrict out = reinterpret_cast<out_t*>(data[0]);
    const in_t* __restrict a = reinterpret_cast<const in_t*>(data[1]);
    const in_t* __restrict b = reinterpret_cast<const in_t*>(data[2]);
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
  });
}

}  // namespace tandem::cpu
