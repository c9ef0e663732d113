// CPU kernels of copy/cast, where and clamp, and the registration of every elementwise slot (the op list's
// unary and binary ops are instantiated in their own files, see op_list_kernels.h).
#include "kernels/cpu/cpu_kernels.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <type_traits>

#include "kernels/cast_waypoint.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/op_list_kernels.h"
#include "kernels/functors.h"
#include "kernels/kernel_table.h"

TANDEM_CPU_KERNELS_BEGIN
void register_complex_kernels(KernelTable& table);  // complex_kernels.cpp

namespace {

// A copy between layouts that disagree on the innermost dim (x.t().contiguous(), a transposed out=, LAPACK's
// column-major buffers) walked element by element makes one side stride a whole row per element, and every
// cache line it touches is evicted before its neighbours are used (2048x2048 float32: 23 ms against
// PyTorch's 4.7). It goes in tiles instead: kRun elements along the output's unit-stride dim (the inner loop:
// writes in order) by kRows along the other. The sizes were measured (tests/cpp has no timing; the bench is
// bench/run.py's transpose rows): 8 x 64 beat 16 x 16, 16 x 64 and 32 x 64 on 2048^2 float32, 512^2 and
// 1000^2 float64 and 2048^2 uint8, e.g. 3.5 ms against 7.1 ms for 16 x 16 on the first.
constexpr int64_t kRun = 8, kRows = 64;

template <typename O, typename I>
bool copy_in_tiles(TensorIterator& iter) {
  if (iter.ndim() < 2) return false;
  const DimVector& so = iter.strides(0);
  const DimVector& si = iter.strides(1);
  // An input repeated along the output's unit-stride dim (stride 0 there: a column broadcast across rows,
  // as attention's per-row offsets and conv2d's bias) is no transpose: the row loop below fills each run with
  // one value, vectorised, where the tiles would go element by element (8% of an attention backward).
  const bool crossed =
      (so[0] == sizeof(O) && si[1] == sizeof(I) && si[0] != 0) || (si[0] == sizeof(I) && so[1] == sizeof(O));
  if (!crossed || iter.shape()[0] < kRun || iter.shape()[1] < kRun) return false;  // thin: few lines touched
  const int run_dim = so[0] == sizeof(O) ? 0 : 1, row_dim = 1 - run_dim;
  const int64_t runs = iter.shape()[run_dim], rows = iter.shape()[row_dim];
  const int64_t out_run = so[run_dim], out_row = so[row_dim], in_run = si[run_dim], in_row = si[row_dim];
  const int64_t outer = iter.numel() / (runs * rows), blocks = (rows + kRows - 1) / kRows;
  const int nd = iter.ndim();
  // One task: kRows rows (all their runs) of one of the outer matrices.
  parallel_for(0, outer * blocks, std::max<int64_t>(1, kParallelGrain / (kRows * runs)),
               [&](int64_t b, int64_t e) {
                 for (int64_t task = b; task < e; ++task) {
                   int64_t o = task / blocks, off_o = 0, off_i = 0;
                   for (int d = 2; d < nd; ++d) {  // the outer matrix's offsets, innermost outer dim first
                     const int64_t idx = o % iter.shape()[d];
                     o /= iter.shape()[d];
                     off_o += idx * so[d];
                     off_i += idx * si[d];
                   }
                   char* out = iter.data(0) + off_o;
                   const char* in = iter.data(1) + off_i;
                   const int64_t r0 = (task % blocks) * kRows, r1 = std::min(r0 + kRows, rows);
                   for (int64_t c0 = 0; c0 < runs; c0 += kRun) {
                     const int64_t c1 = std::min(c0 + kRun, runs);
                     for (int64_t r = r0; r < r1; ++r)
                       for (int64_t c = c0; c < c1; ++c)
                         *reinterpret_cast<O*>(out + r * out_row + c * out_run) =
                             convert<O>(*reinterpret_cast<const I*>(in + r * in_row + c * in_run));
                   }
                 }
               });
  return true;
}

// Every pair of dtypes, complex and uint16..64 included: the real <-> complex casts are the way into and out
// of complex.
void copy_kernel(TensorIterator& iter) {
  dispatch_any_dtype(iter.dtype(0), [&](auto out_tag) {
    using O = typename decltype(out_tag)::type;
    dispatch_any_dtype(iter.dtype(1), [&](auto in_tag) {
      using I = typename decltype(in_tag)::type;
      if constexpr (!cast_through_float_v<O, I>) {  // front ends cast those in two steps (cast_waypoint.h)
        if (copy_in_tiles<O, I>(iter)) return;
        iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
          if (strides[0] == sizeof(O) && strides[1] == sizeof(I)) {
            O* __restrict out = reinterpret_cast<O*>(data[0]);
            const I* __restrict in = reinterpret_cast<const I*>(data[1]);
            if constexpr (std::is_same_v<O, float> && kHalfFloat<I>)
              widen_halves(in, out, n);
            else if constexpr (kHalfFloat<O> && std::is_same_v<I, float>)
              narrow_to_halves(in, out, n);
            else
              for (int64_t i = 0; i < n; ++i) out[i] = convert<O>(in[i]);
          } else if (strides[0] == sizeof(O) && strides[1] == 0) {
            const O v = convert<O>(*reinterpret_cast<const I*>(data[1]));
            O* __restrict out = reinterpret_cast<O*>(data[0]);
            for (int64_t i = 0; i < n; ++i) out[i] = v;
          } else {
            char* o = data[0];
            const char* a = data[1];
            for (int64_t i = 0; i < n; ++i, o += strides[0], a += strides[1])
              *reinterpret_cast<O*>(o) = convert<O>(*reinterpret_cast<const I*>(a));
          }
        });
      }
    });
  });
}

// A bitwise select on the operands' bits, never a branch on the condition: a random mask mispredicts half the
// branches (where() ran at 8-11 ns per element), and GCC keeps `c ? a : b` as a branch even with both
// operands loaded, while the mask form vectorises.
template <typename T>
TANDEM_INLINE T select_bits(uint8_t c, T a, T b) {
  if constexpr (sizeof(T) > 8) {
    return c ? a : b;  // complex128: no 16-byte integer to mask
  } else {
    using U = std::conditional_t<
        sizeof(T) == 1, uint8_t,
        std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
    static_assert(sizeof(T) == sizeof(U));
    const U mask = static_cast<U>(U(0) - static_cast<U>(c != 0));
    return std::bit_cast<T>(static_cast<U>((std::bit_cast<U>(a) & mask) | (std::bit_cast<U>(b) & ~mask)));
  }
}

template <typename T>
void where_strip(char** data, const int64_t* strides, int64_t n) {
  constexpr int64_t sz = sizeof(T);
  T* __restrict out = reinterpret_cast<T*>(data[0]);
  const uint8_t* __restrict cond = reinterpret_cast<const uint8_t*>(data[1]);  // bool bytes
  const T* __restrict a = reinterpret_cast<const T*>(data[2]);
  const T* __restrict b = reinterpret_cast<const T*>(data[3]);
  if (strides[0] == sz && strides[1] == 1 && strides[2] == sz && strides[3] == sz) {
    for (int64_t i = 0; i < n; ++i) out[i] = select_bits(cond[i], a[i], b[i]);
  } else if (strides[0] == sz && strides[1] == 1 && strides[2] == 0 && strides[3] == sz) {
    const T av = *a;
    for (int64_t i = 0; i < n; ++i) out[i] = select_bits(cond[i], av, b[i]);
  } else if (strides[0] == sz && strides[1] == 1 && strides[2] == sz && strides[3] == 0) {
    const T bv = *b;
    for (int64_t i = 0; i < n; ++i) out[i] = select_bits(cond[i], a[i], bv);
  } else {
    char *o = data[0], *c = data[1], *pa = data[2], *pb = data[3];
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<T*>(o) =
          select_bits(*reinterpret_cast<const uint8_t*>(c), *reinterpret_cast<const T*>(pa),
                      *reinterpret_cast<const T*>(pb));
      o += strides[0];
      c += strides[1];
      pa += strides[2];
      pb += strides[3];
    }
  }
}

// Complex too: where moves elements, it does no arithmetic.
void where_kernel(TensorIterator& iter) {
  dispatch_any_dtype(iter.dtype(0), [&](auto tag) {
    using T = typename decltype(tag)::type;
    iter.for_each([&](char** data, const int64_t* strides, int64_t n) { where_strip<T>(data, strides, n); });
  });
}

void clamp_kernel(TensorIterator& iter, const Scalar* lo, const Scalar* hi) {
  dispatch_dtype_with_uint(iter.dtype(0), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using op_t = opmath_t<T>;
    const ClampOp<op_t> f = make_clamp<op_t>(lo, hi);
    unary_loop<T, T>(iter, f);
  });
}

}  // namespace

void register_elementwise_kernels(KernelTable& table) {
  register_unary_float_kernels(table);
  register_unary_exact_kernels(table);
  register_binary_arith_kernels(table);
  register_binary_compare_kernels(table);
  register_complex_kernels(table);
  table.copy = &copy_kernel;
  table.where = &where_kernel;
  table.clamp = &clamp_kernel;
}

TANDEM_CPU_KERNELS_END
