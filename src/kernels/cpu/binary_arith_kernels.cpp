// CPU kernels of the arithmetic binary ops (add, sub, mul, div, floor_divide, remainder, pow, ...).
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/op_list_kernels.h"
#include "kernels/scaled_add_functor.h"

TANDEM_CPU_KERNELS_BEGIN
namespace {
constexpr bool in_this_file(BinaryRule r) {
  return r == BinaryRule::Arith || r == BinaryRule::ArithNoBool || r == BinaryRule::TrueDiv ||
         r == BinaryRule::FloatOnly || r == BinaryRule::IntDiv;
}
}  // namespace

#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
namespace {

// Floating remainder in blocks: operands widened to opmath (16-bit floats) or copied (a scalar splatted)
// into L1 buffers, fmod_by_quotient over the block (it vectorises), then std::fmod for the rare elements it
// cannot do exactly, and Python's sign rule. Only with FMA (the avx2 and avx512 builds): without it std::fma
// is itself a call.
template <typename T>
void load_block(const T* p, bool scalar, int64_t len, opmath_t<T>* buf) {
  if (scalar)
    std::fill(buf, buf + len, static_cast<opmath_t<T>>(*p));
  else if constexpr (kHalfFloat<T>)
    widen_halves(p, buf, len);
  else
    std::copy(p, p + len, buf);
}

// kPythonSign: remainder (the divisor's sign); otherwise fmod (the dividend's).
template <typename T, bool kPythonSign>
void remainder_strip(T* out, const T* a, const T* b, bool a_scalar, bool b_scalar, int64_t n) {
  using A = opmath_t<T>;
  A x[kHalfBlock], y[kHalfBlock], r[kHalfBlock];
  for (int64_t i = 0; i < n; i += kHalfBlock) {
    const int64_t len = std::min(kHalfBlock, n - i);
    load_block(a_scalar ? a : a + i, a_scalar, len, x);
    load_block(b_scalar ? b : b + i, b_scalar, len, y);
    int inexact = 0;  // an int, so the or-reduction vectorises
    for (int64_t k = 0; k < len; ++k) {
      r[k] = fmod_by_quotient(x[k], y[k]);
      inexact |= !fmod_by_quotient_exact(x[k], y[k]);
    }
    if (inexact)
      for (int64_t k = 0; k < len; ++k)
        if (!fmod_by_quotient_exact(x[k], y[k])) r[k] = std::fmod(x[k], y[k]);
    if constexpr (kPythonSign)
      for (int64_t k = 0; k < len; ++k) r[k] = RemainderOp::from_fmod(r[k], y[k]);
    if constexpr (kHalfFloat<T>)
      narrow_to_halves(r, out + i, len);
    else
      std::copy(r, r + len, out + i);
  }
}

template <typename Op, bool kPythonSign>
void remainder_kernel(TensorIterator& iter) {
  if (!is_floating(iter.dtype(1))) return binary_kernel<Op, BinaryRule::IntDiv>(iter);
  dispatch_dtype(iter.dtype(1), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
        constexpr int64_t s = sizeof(T);
        if (strides[0] == s && (strides[1] == s || strides[1] == 0) && (strides[2] == s || strides[2] == 0))
          remainder_strip<T, kPythonSign>(reinterpret_cast<T*>(data[0]), reinterpret_cast<const T*>(data[1]),
                                          reinterpret_cast<const T*>(data[2]), strides[1] == 0,
                                          strides[2] == 0, n);
        else
          binary_strip<T, T>(data, strides, n, Op{});
      });
    }
  });
}

}  // namespace
#endif

namespace {
// add/sub(alpha=) of floating tensors in one pass. Without FMA (the baseline build) std::fma is a call per
// element: slower, but the same bits as the avx2 and avx512 builds.
void scaled_add_kernel(TensorIterator& iter, double alpha) {
  dispatch_dtype(iter.dtype(0), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      using A = opmath_t<T>;
      binary_loop<T, T>(iter, ScaledAddOp<A>{static_cast<A>(convert<T>(alpha))});
    }
  });
}
}  // namespace

void register_binary_arith_kernels(KernelTable& table) {
#define TANDEM_BINARY_OP(name, functor, rule, ...) \
  set_binary<in_this_file, functor, BinaryRule::rule>(table, BinaryOp::name);
#include "kernels/op_list.def"
#undef TANDEM_BINARY_OP
  table.scaled_add = &scaled_add_kernel;
#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
  table.binary[static_cast<int>(BinaryOp::remainder)] = &remainder_kernel<RemainderOp, true>;
  table.binary[static_cast<int>(BinaryOp::fmod)] = &remainder_kernel<FmodOp, false>;
#endif
}

TANDEM_CPU_KERNELS_END
