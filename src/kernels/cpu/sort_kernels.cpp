// CPU sort along the last dim (sort, argsort, topk and the order statistics built on them).
//
// Each element becomes an unsigned integer key whose unsigned order is PyTorch's order: NaN above every
// number and all NaNs equal, -0.0 equal to 0.0, descending as the bitwise complement (so NaN comes first).
// Comparing plain integers avoids a NaN test in every comparison, and the keys suit an LSD radix sort:
// a few linear passes instead of n log n mispredicted branches. The key travels with the element's position
// in the row; the radix sort is stable, so equal keys keep position order, which is PyTorch's stable result
// (and a valid unstable one). The values written out are gathered from the input by position, so -0.0 and
// NaN payloads come out as they went in.
#include <algorithm>
#include <bit>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/last_dim_rows.h"
#include "kernels/cpu/reduce_fold.h"

namespace tandem {
// The (key, position) order of the sort entries below: all entries differ, so any comparison sort yields the
// stable order. It sits outside the capability region on purpose: std::sort's body comes from a header
// (baseline code) and can inline only a baseline comparator; one from the region would be a call per
// comparison.
struct SortEntryLess {
  template <typename E>
  bool operator()(const E& x, const E& y) const {
    return x.key < y.key || (x.key == y.key && x.pos < y.pos);
  }
};
}  // namespace tandem

TANDEM_CPU_KERNELS_BEGIN

namespace {

template <typename T>
struct KeyOf {
  using type = std::make_unsigned_t<T>;
};
template <>
struct KeyOf<bool> {
  using type = uint8_t;
};
template <>
struct KeyOf<Half> {
  using type = uint16_t;
};
template <>
struct KeyOf<BFloat16> {
  using type = uint16_t;
};
template <>
struct KeyOf<float> {
  using type = uint32_t;
};
template <>
struct KeyOf<double> {
  using type = uint64_t;
};
template <typename T>
using key_t = typename KeyOf<T>::type;

// The bits of +infinity: a larger magnitude is a NaN.
template <typename T>
constexpr key_t<T> kInfBits = std::is_same_v<T, Half>       ? 0x7c00u
                              : std::is_same_v<T, BFloat16> ? 0x7f80u
                              : std::is_same_v<T, float>    ? 0x7f800000u
                                                            : 0x7ff0000000000000ull;

// Unsigned order of the result = ascending order of x, with PyTorch's NaN and signed-zero rules.
template <typename T>
TANDEM_INLINE key_t<T> order_key(T x) {
  using U = key_t<T>;
  if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
    return static_cast<U>(x);
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<U>(static_cast<U>(x) ^ (U(1) << (8 * sizeof(U) - 1)));  // two's complement: flip sign
  } else {
    U bits = std::bit_cast<U>(x);
    constexpr U sign = U(1) << (8 * sizeof(U) - 1);
    U mag = static_cast<U>(bits & ~sign);
    if (mag > kInfBits<T>) return static_cast<U>(~U(0));  // every NaN: one key above +inf
    if (mag == 0) return sign;                            // -0.0 ties with 0.0
    // Sign-magnitude to unsigned order: negatives reversed below the positives.
    return static_cast<U>((bits & sign) ? ~bits : (bits | sign));
  }
}

// The value whose key is `key`, or false when several values share it (-0.0 and 0.0; the NaNs) and the
// value must be read back from the input.
template <typename T>
TANDEM_INLINE bool value_of_key(key_t<T> key, T& value) {
  using U = key_t<T>;
  constexpr U sign = U(1) << (8 * sizeof(U) - 1);
  if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
    value = static_cast<T>(key);
  } else if constexpr (std::is_integral_v<T>) {
    value = static_cast<T>(static_cast<U>(key ^ sign));
  } else {
    if (key == sign || key == static_cast<U>(~U(0))) return false;
    value = std::bit_cast<T>(static_cast<U>((key & sign) ? (key & ~sign) : ~key));
  }
  return true;
}

template <typename U, typename I>
struct Entry {
  U key;
  I pos;
};

// fn(begin, end) over [0, n): split across the threads when `parallel`, else one call in this thread (rows
// that the threads already share out, and the many small rows, skip the parallel region's start-up).
template <typename Fn>
void maybe_parallel(bool parallel, int64_t n, int64_t grain, const Fn& fn) {
  if (parallel)
    parallel_for(0, n, grain, fn);
  else
    fn(0, n);
}

constexpr int kDigitBits = 8;
constexpr int64_t kBuckets = int64_t(1) << kDigitBits;
// Below this row length (per key byte: one radix pass each) the passes' per-bucket work outweighs a
// comparison sort's n log n.
constexpr int64_t kRadixMinLengthPerKeyByte = 64;
// A single row at least this long is sorted by all threads together (each takes a chunk of it).
constexpr int64_t kParallelRowMinLength = 1 << 17;
// topk selects first (nth_element, O(n)) when k is at most this fraction of the row; larger k sorts it all.
constexpr int64_t kSelectRatio = 16;

// Stable LSD radix sort of a[0, n) by key, 8 bits a pass, with b as scratch; returns whichever of a and b
// holds the result. The row is cut into `chunks` contiguous pieces counted and scattered in parallel; piece
// c's elements of digit d land after every smaller digit and after pieces 0..c-1's elements of digit d, so
// the order among equal digits is kept. A pass where every key has the same digit is skipped (the high
// bytes of small integers, the exponent byte of narrow-range floats).
template <typename E>
E* radix_sort(E* a, E* b, int64_t n, int64_t chunks) {
  using U = decltype(E::key);
  constexpr int kPasses = sizeof(U);
  std::vector<int64_t> counts(static_cast<size_t>(chunks * kPasses * kBuckets), 0);
  auto count_of = [&](int64_t c, int pass) { return counts.data() + (c * kPasses + pass) * kBuckets; };
  // Digits are taken of key - (smallest key): narrow-range data (small integers of either sign, whose keys
  // straddle 0x80..00) then has high bytes that are all zero, and their passes are skipped.
  U base = a[0].key;
  for (int64_t i = 1; i < n; ++i) base = std::min(base, a[i].key);
  auto digit = [base](U key, int pass) {
    return static_cast<int64_t>((static_cast<U>(key - base) >> (kDigitBits * pass)) & (kBuckets - 1));
  };
  // fn(chunk, first, last) for every chunk [first, last) of the row. The bounds are passed as values: read
  // through the captures inside the loops, they would be reloaded (and divided) after every store.
  auto each_chunk = [&](const auto& fn) {
    maybe_parallel(chunks > 1, chunks, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) fn(c, n * c / chunks, n * (c + 1) / chunks);
    });
  };
  // One read counts the digits of every pass; with several chunks, later passes recount (the chunks then
  // hold other elements).
  each_chunk([&, a](int64_t c, int64_t first, int64_t last) {
    int64_t* count = count_of(c, 0);
    for (int64_t i = first; i < last; ++i)
      for (int p = 0; p < kPasses; ++p) ++count[p * kBuckets + digit(a[i].key, p)];
  });
  for (int p = 0; p < kPasses; ++p) {
    if (p > 0 && chunks > 1)
      each_chunk([&, a, p](int64_t c, int64_t first, int64_t last) {
        int64_t* count = count_of(c, p);
        std::fill(count, count + kBuckets, 0);
        for (int64_t i = first; i < last; ++i) ++count[digit(a[i].key, p)];
      });
    int64_t first_digit = digit(a[0].key, p), same = 0;
    for (int64_t c = 0; c < chunks; ++c) same += count_of(c, p)[first_digit];
    if (same == n) continue;
    int64_t offset = 0;  // counts become each (chunk, digit)'s first output slot
    for (int64_t d = 0; d < kBuckets; ++d)
      for (int64_t c = 0; c < chunks; ++c) {
        int64_t count = count_of(c, p)[d];
        count_of(c, p)[d] = offset;
        offset += count;
      }
    each_chunk([&, a, b, p](int64_t c, int64_t first, int64_t last) {
      int64_t* slot = count_of(c, p);
      for (int64_t i = first; i < last; ++i) b[slot[digit(a[i].key, p)]++] = a[i];
    });
    std::swap(a, b);
  }
  return a;
}

// Puts the k first entries of a[0, n) in order at the front of the returned buffer (a or scratch).
template <typename E>
E* order_entries(E* a, E* scratch, int64_t n, int64_t k, int64_t chunks) {
  if (k < n && k <= n / kSelectRatio) {
    std::nth_element(a, a + k, a + n, SortEntryLess{});
    std::sort(a, a + k, SortEntryLess{});
    return a;
  }
  if (n < kRadixMinLengthPerKeyByte * static_cast<int64_t>(sizeof(E::key))) {
    std::sort(a, a + n, SortEntryLess{});
    return a;
  }
  return radix_sort(a, scratch, n, chunks);
}

// Sorts every row of `in` with positions of type I (32 bits when the row allows: half the memory traffic).
template <typename T, typename I>
void sort_rows(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k, bool descending) {
  using U = key_t<T>;
  using E = Entry<U, I>;
  Rows ri(in), rv(values), rx(indices);
  int64_t n = last_size(in), si = last_stride(in), sv = last_stride(values), sx = last_stride(indices);
  const T* src = in.data<T>();
  T* vals = values.data<T>();
  int64_t* idxs = indices.data<int64_t>();
  const U flip = descending ? static_cast<U>(~U(0)) : U(0);
  // Sorts one row with `chunks` threads working inside it (1 when the threads share out whole rows). The
  // loops copy what they read into locals, which the compiler then keeps in registers across the stores.
  auto sort_row = [&](const T* s, T* dv, int64_t* dx, int64_t chunks, E* buffer) {
    maybe_parallel(chunks > 1, n, kReduceGrain, [&, s, buffer, si = si, flip = flip](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        buffer[i] = E{static_cast<U>(order_key(s[i * si]) ^ flip), static_cast<I>(i)};
    });
    const E* sorted = order_entries(buffer, buffer + n, n, k, chunks);
    // Values come back from the keys (a sequential read) rather than by position from the input (a random
    // one); only keys that several values share are read back from the input.
    maybe_parallel(chunks > 1, k, kReduceGrain,
                   [&, s, dv, dx, sorted, si = si, sv = sv, sx = sx, flip = flip](int64_t b, int64_t e) {
                     for (int64_t i = b; i < e; ++i) {
                       int64_t pos = static_cast<int64_t>(sorted[i].pos);
                       dx[i * sx] = pos;
                       T value;
                       dv[i * sv] =
                           value_of_key(static_cast<U>(sorted[i].key ^ flip), value) ? value : s[pos * si];
                     }
                   });
  };
  // new E[] leaves the trivially constructible entries uninitialised: every one is written before use.
  if (ri.count == 1) {
    std::unique_ptr<E[]> buffer(new E[static_cast<size_t>(2 * n)]);
    int64_t chunks = n >= kParallelRowMinLength ? std::max<int64_t>(1, get_num_threads()) : 1;
    sort_row(src, vals, idxs, chunks, buffer.get());
    return;
  }
  parallel_over_outputs(ri.count, n * 16, [&](int64_t b, int64_t e) {
    std::unique_ptr<E[]> buffer(new E[static_cast<size_t>(2 * n)]);
    OffsetCounter pi(ri.sizes, ri.strides, b), pv(rv.sizes, rv.strides, b), px(rx.sizes, rx.strides, b);
    for (int64_t r = b; r < e; ++r, pi.next(), pv.next(), px.next())
      sort_row(src + pi.offset(), vals + pv.offset(), idxs + px.offset(), 1, buffer.get());
  });
}

}  // namespace

void sort(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k, bool descending,
          bool stable) {
  // Both paths are stable, so `stable` needs no path of its own.
  (void)stable;
  dispatch_dtype_with_uint(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (last_size(in) <= int64_t(std::numeric_limits<uint32_t>::max()))
      sort_rows<T, uint32_t>(values, indices, in, k, descending);
    else
      sort_rows<T, uint64_t>(values, indices, in, k, descending);
  });
}

TANDEM_CPU_KERNELS_END
