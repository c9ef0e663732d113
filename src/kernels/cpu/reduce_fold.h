// The fold engine: out[o] = finish(fold of in[o, r] over r) for a Policy that names the accumulator type,
// its identity, how one element enters it and how two partial results combine.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "core/dtype.h"
#include "kernels/cpu/half_blocks.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/reduce_engine.h"
#include "kernels/cpu/simd.h"
#include "kernels/functors.h"
#include "kernels/reduce_kernels.h"

#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
#include <immintrin.h>
#endif

TANDEM_CPU_KERNELS_BEGIN

// Sum/Mean/Prod accumulate 16-bit floats in float and integers in 64 bits, as PyTorch does. The integer
// accumulator is unsigned so that overflow wraps (PyTorch's two's-complement result) instead of being
// undefined; finish() converts it back to int64.
template <typename T>
using sum_acc_t = std::conditional_t<is_floating_type_v<T>, opmath_t<T>, uint64_t>;

template <typename T>
struct SumPolicy {
  using acc_t = sum_acc_t<T>;
  using out_t = std::conditional_t<is_floating_type_v<T>, T, int64_t>;
  static constexpr bool kPairwise = true;  // pairwise summation keeps float error at O(log n)
  static constexpr bool kSimd = true;
  TANDEM_INLINE acc_t identity() const { return acc_t(0); }
  TANDEM_INLINE acc_t step(acc_t a, T x) const { return a + static_cast<acc_t>(x); }
  template <typename A>
  TANDEM_INLINE A combine(A a, A b) const {
    return a + b;
  }
  out_t finish(acc_t a) const { return convert<out_t>(a); }
};

template <typename T>
struct MeanPolicy : SumPolicy<T> {
  using typename SumPolicy<T>::acc_t;
  using typename SumPolicy<T>::out_t;
  acc_t inv_count;
  out_t finish(acc_t a) const { return convert<out_t>(a * inv_count); }
};

template <typename T>
struct ProdPolicy {
  using acc_t = sum_acc_t<T>;
  using out_t = std::conditional_t<is_floating_type_v<T>, T, int64_t>;
  static constexpr bool kPairwise = false;
  static constexpr bool kSimd = true;
  TANDEM_INLINE acc_t identity() const { return acc_t(1); }
  TANDEM_INLINE acc_t step(acc_t a, T x) const { return a * static_cast<acc_t>(x); }
  template <typename A>
  TANDEM_INLINE A combine(A a, A b) const {
    return a * b;
  }
  out_t finish(acc_t a) const { return convert<out_t>(a); }
};

// Max/Min propagate NaN: once the accumulator is NaN it stays NaN.
template <typename T, bool IsMax>
struct MaxMinPolicy {
  using acc_t = opmath_t<T>;
  using out_t = T;
  static constexpr bool kPairwise = false;
  static constexpr bool kSimd = true;
  TANDEM_INLINE acc_t identity() const {
    if constexpr (std::is_same_v<T, bool>)
      return !IsMax;
    else if constexpr (is_floating_type_v<T>)
      return IsMax ? -std::numeric_limits<acc_t>::infinity() : std::numeric_limits<acc_t>::infinity();
    else
      return IsMax ? std::numeric_limits<acc_t>::lowest() : std::numeric_limits<acc_t>::max();
  }
  // Written for scalars and vectors alike: two compares and a blend.
  template <typename A>
  TANDEM_INLINE A combine(A a, A b) const {
    auto take = (IsMax ? b > a : b < a) | (b != b);
    return take ? b : a;
  }
  TANDEM_INLINE acc_t step(acc_t a, T x) const { return combine(a, static_cast<acc_t>(x)); }
  out_t finish(acc_t a) const { return convert<out_t>(a); }
};

// All/Any write uint8 for uint8 input and bool otherwise, as PyTorch does.
template <typename T, bool IsAll>
struct AllAnyPolicy {
  using acc_t = uint8_t;  // 0/1 combined with & and |, which vectorise where && and || would branch
  using out_t = std::conditional_t<std::is_same_v<T, uint8_t>, uint8_t, bool>;
  static constexpr bool kPairwise = false;
  static constexpr bool kSimd = false;  // the vector loop is fold_truth_vectors
  static constexpr bool kIsAll = IsAll;
  TANDEM_INLINE acc_t identity() const { return IsAll; }
  TANDEM_INLINE acc_t step(acc_t a, T x) const {
    acc_t nz = convert<bool>(x);
    return IsAll ? (a & nz) : (a | nz);
  }
  TANDEM_INLINE acc_t combine(acc_t a, acc_t b) const { return IsAll ? (a & b) : (a | b); }
  out_t finish(acc_t a) const { return static_cast<out_t>(a); }
};

// The lanes of a vector folded into one value as a tree (depth log2 of the width, not a chain of W
// dependent steps: that chain cost as much as the loads of a 1000-element row): the low half combined with
// the high half, as shuffles in registers up to 16 lanes (through memory, the narrower reload of a wide store
// misses store forwarding and stalls, once per row of a sum(dim=1)).
template <int B, typename T, typename P>
TANDEM_INLINE T combine_lanes(const P& p, vec_t<T, B> v) {
  constexpr int L = B / static_cast<int>(sizeof(T));
  static_assert(L >= 2, "a vector of at least two lanes");
  if constexpr (L == 2) {
    return p.combine(static_cast<T>(v[0]), static_cast<T>(v[1]));
  } else if constexpr (L <= 16) {
    const auto [low, high] = split_halves(v);
    return combine_lanes<B / 2, T>(p, p.combine(low, high));
  } else {
    vec_t<T, B / 2> low, high;
    std::memcpy(&low, &v, B / 2);
    std::memcpy(&high, reinterpret_cast<const char*>(&v) + B / 2, B / 2);
    return combine_lanes<B / 2, T>(p, p.combine(low, high));
  }
}

// The signed integer type of T's size, for lane masks of a vector of T.
template <typename T>
using lane_int_t = std::conditional_t<
    sizeof(T) == 1, int8_t,
    std::conditional_t<sizeof(T) == 2, int16_t, std::conditional_t<sizeof(T) == 4, int32_t, int64_t>>>;

// The body of a contiguous fold on B-byte vectors, n a multiple of 8 vectors: eight accumulators are
// independent chains that hide the latency of each add or blend (named variables, not an array, so GCC keeps
// them in registers). A pairwise policy folds blocks of kBlock elements into one vector each, sums up to
// kFoldLeaf / kBlock of those in a second accumulator, and splits longer strips in halves whose vectors
// combine: float error O(log n) with each lane's chains short, and no call per small block (calls every 4096
// elements cost 2x on a 16 MB sum; the blocks are inlined, as a call per 1000-element row shows too). The
// lanes are combined once per strip, by the caller.
template <int B, typename T, typename P>
TANDEM_INLINE vec_t<T, B> fold_vector_blocks(const P& p, const T* in, int64_t n) {
  using V = vec_t<T, B>;
  constexpr int64_t W = B / sizeof(T), kBlock = 4096;
  const V id = vsplat<B, T>(p.identity());
  const int64_t block = P::kPairwise ? kBlock : n;
  V total = id;
  for (int64_t b0 = 0; b0 < n; b0 += block) {
    const int64_t b1 = std::min(n, b0 + block);
    V a0 = id, a1 = id, a2 = id, a3 = id, a4 = id, a5 = id, a6 = id, a7 = id;
    for (int64_t i = b0; i < b1; i += 8 * W) {
      a0 = p.combine(a0, vload<B>(in + i));
      a1 = p.combine(a1, vload<B>(in + i + W));
      a2 = p.combine(a2, vload<B>(in + i + 2 * W));
      a3 = p.combine(a3, vload<B>(in + i + 3 * W));
      a4 = p.combine(a4, vload<B>(in + i + 4 * W));
      a5 = p.combine(a5, vload<B>(in + i + 5 * W));
      a6 = p.combine(a6, vload<B>(in + i + 6 * W));
      a7 = p.combine(a7, vload<B>(in + i + 7 * W));
    }
    total = p.combine(total, p.combine(p.combine(p.combine(a0, a4), p.combine(a2, a6)),
                                       p.combine(p.combine(a1, a5), p.combine(a3, a7))));
  }
  return total;
}
constexpr int64_t kFoldLeaf = 65536;
template <int B, typename T, typename P>
vec_t<T, B> fold_vector_halves(const P& p, const T* in, int64_t n) {
  constexpr int64_t W = B / sizeof(T);
  if (n <= kFoldLeaf) return fold_vector_blocks<B, T>(p, in, n);
  const int64_t half = n / 2 / (8 * W) * (8 * W);
  return p.combine(fold_vector_halves<B, T>(p, in, half), fold_vector_halves<B, T>(p, in + half, n - half));
}

// A contiguous fold on B-byte vectors. Only for policies whose accumulator is the element type.
template <int B, typename T, typename P>
TANDEM_INLINE T fold_vectors(const P& p, const T* in, int64_t n) {
  using V = vec_t<T, B>;
  constexpr int64_t W = B / sizeof(T);
  const int64_t body = n / (8 * W) * (8 * W);
  V a0 = P::kPairwise && body > kFoldLeaf ? fold_vector_halves<B, T>(p, in, body)
                                          : fold_vector_blocks<B, T>(p, in, body);  // inline: rows are short
  // The rest (up to 7 vectors and a partial one) in independent accumulators, the partial vector padded with
  // the identity, instead of a chain of dependent steps (a vector, then an element at a time) ending every row
  // of a sum(dim=1) (4096 x 1000 float32: 252 -> 241 us at 1 thread).
  const V id = vsplat<B, T>(p.identity());
  V a1 = id, a2 = id, a3 = id;
  int64_t i = body;
  if (i + 4 * W <= n) {
    a0 = p.combine(a0, vload<B>(in + i));
    a1 = p.combine(a1, vload<B>(in + i + W));
    a2 = p.combine(a2, vload<B>(in + i + 2 * W));
    a3 = p.combine(a3, vload<B>(in + i + 3 * W));
    i += 4 * W;
  }
  if (i + 2 * W <= n) {
    a0 = p.combine(a0, vload<B>(in + i));
    a1 = p.combine(a1, vload<B>(in + i + W));
    i += 2 * W;
  }
  if (i + W <= n) {
    a2 = p.combine(a2, vload<B>(in + i));
    i += W;
  }
  if (i < n && n >= W) {
    // The vector that ends at n, with its lanes before the last n - i (folded above) set to the identity:
    // no call, no chain of single elements.
    using I = lane_int_t<T>;
    vec_t<I, B> lane;
    for (int k = 0; k < W; ++k) lane[k] = static_cast<I>(k);
    const V last = vload<B>(in + n - W);
    a3 = p.combine(a3, lane >= static_cast<I>(W - (n - i)) ? last : id);
  } else if (i < n) {  // a strip shorter than one vector
    V last = id;
    std::memcpy(&last, in + i, static_cast<size_t>(n - i) * sizeof(T));
    a3 = p.combine(a3, last);
  }
  return combine_lanes<B, T>(p, p.combine(p.combine(a0, a1), p.combine(a2, a3)));
}

// A contiguous float16 or bfloat16 strip folded by a float-accumulating policy. AVX2 and AVX-512 builds
// widen eight elements at a time (half_blocks.h) straight into four vector accumulators (2x faster than
// widening a block into a buffer and folding that); the baseline build widens a block at a time and folds it
// with the float vector loops.
template <typename P, typename H>
typename P::acc_t fold_widened_halves(const P& p, const H* in, int64_t n) {
#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
  using V = vec_t<float, 32>;
  auto widen = [](const H* at) TANDEM_LAMBDA_INLINE { return reinterpret_cast<V>(widen8(at)); };
  const V id = vsplat<32, float>(p.identity());
  V a0 = id, a1 = id, a2 = id, a3 = id;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = p.combine(a0, widen(in + i));
    a1 = p.combine(a1, widen(in + i + 8));
    a2 = p.combine(a2, widen(in + i + 16));
    a3 = p.combine(a3, widen(in + i + 24));
  }
  a0 = p.combine(p.combine(a0, a2), p.combine(a1, a3));
  for (; i + 8 <= n; i += 8) a0 = p.combine(a0, widen(in + i));
  float r = p.identity();
  for (int j = 0; j < 8; ++j) r = p.combine(r, static_cast<float>(a0[j]));
  for (; i < n; ++i) r = p.combine(r, static_cast<float>(in[i]));
  return r;
#else
  constexpr int64_t kBlock = 1024;
  float buf[kBlock];
  float r = p.identity();
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t len = std::min(kBlock, n - i);
    widen_halves(in + i, buf, len);
    r = p.combine(r, fold_vectors<kVectorBytes, float>(p, buf, len));
  }
  return r;
#endif
}

// all()/any() of a contiguous strip on B-byte vectors: OR together the masks of "is zero" (all) or "is not
// zero" (any) and look at them once at the end. NaN counts as non-zero, as in PyTorch.
template <int B, bool IsAll, typename T>
TANDEM_INLINE auto truth_mask(const T* at) {
  auto v = vload<B>(at);
  return IsAll ? v == vsplat<B, T>(T(0)) : v != vsplat<B, T>(T(0));
}
template <int B, typename T, bool IsAll>
TANDEM_INLINE bool fold_truth_vectors(const T* in, int64_t n) {
  constexpr int64_t W = B / sizeof(T);
  decltype(truth_mask<B, IsAll>(in)) m0{}, m1{}, m2{}, m3{};
  int64_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    m0 |= truth_mask<B, IsAll>(in + i), m1 |= truth_mask<B, IsAll>(in + i + W);
    m2 |= truth_mask<B, IsAll>(in + i + 2 * W), m3 |= truth_mask<B, IsAll>(in + i + 3 * W);
  }
  for (; i + W <= n; i += W) m0 |= truth_mask<B, IsAll>(in + i);
  bool found = any_lane(m0 | m1 | m2 | m3);
  for (; i < n; ++i) found |= IsAll ? in[i] == T(0) : in[i] != T(0);
  return IsAll ? !found : found;
}

// Folds one strip. Above kBlock elements, halves combine pairwise (O(log n) float error); below it,
// contiguous strips of vectorisable types use the vector loops and the rest (16-bit floats, integer sums
// widened to int64, strided strips) keep independent scalar accumulators the compiler may vectorise.
template <typename T, typename P, bool Contig>
typename P::acc_t fold_strip(const P& p, const T* in, int64_t n, int64_t stride) {
  using acc_t = typename P::acc_t;
  constexpr int64_t kLanes = 32 / (sizeof(acc_t) >= 8 ? 2 : 1), kBlock = 4096;
  if constexpr (Contig && requires { P::kIsAll; } && kSimdType<T>) {
    return fold_truth_vectors<kVectorBytes, T, P::kIsAll>(in, n);
  }
  if constexpr (Contig && P::kSimd && kSimdType<T> && std::is_same_v<acc_t, T>) {
    return fold_vectors<kVectorBytes, T>(p, in, n);  // pairwise inside, on vectors
  }
  if (P::kPairwise && n > kBlock) {
    int64_t half = (n / 2 + kLanes - 1) / kLanes * kLanes;
    return p.combine(fold_strip<T, P, Contig>(p, in, half, stride),
                     fold_strip<T, P, Contig>(p, in + half * stride, n - half, stride));
  }
  if constexpr (Contig && P::kSimd && kHalfFloat<T> && std::is_same_v<acc_t, float>) {
    return fold_widened_halves(p, in, n);
  }
  const int64_t s = Contig ? 1 : stride;
  acc_t lanes[kLanes];
  for (auto& l : lanes) l = p.identity();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) lanes[j] = p.step(lanes[j], in[(i + j) * s]);
  for (; i < n; ++i) lanes[0] = p.step(lanes[0], in[i * s]);
  for (int64_t w = kLanes / 2; w > 0; w /= 2)
    for (int64_t j = 0; j < w; ++j) lanes[j] = p.combine(lanes[j], lanes[j + w]);
  return lanes[0];
}

template <typename T, typename P>
typename P::acc_t fold_any_strip(const P& p, const T* in, int64_t n, int64_t stride) {
  return stride == 1 ? fold_strip<T, P, true>(p, in, n, 1) : fold_strip<T, P, false>(p, in, n, stride);
}

// Path (a)/(general): acc for outputs [ob, oe) by folding strips of the innermost reduced dim.
template <typename T, typename P, typename Emit>
void fold_outputs(const P& p, const ReduceGeometry& g, const T* in, int64_t ob, int64_t oe,
                  const Emit& emit) {
  size_t nr = g.red_sizes.size();
  int64_t inner = nr ? g.red_sizes[nr - 1] : 1, inner_stride = nr ? g.red_strides[nr - 1] : 0;
  DimVector outer_sizes(g.red_sizes), outer_strides(g.red_strides);
  if (nr) outer_sizes[nr - 1] = 1;
  int64_t n_outer = inner ? g.n_red / inner : 0;
  OffsetCounter out_pos(g.kept_sizes, g.kept_strides, ob);
  for (int64_t o = ob; o < oe; ++o, out_pos.next()) {
    const T* base = in + out_pos.offset();
    if (n_outer == 1) {  // one reduced dim after merging: the common case, without a second counter
      emit(o, fold_any_strip(p, base, inner, inner_stride));
      continue;
    }
    typename P::acc_t acc = p.identity();
    OffsetCounter red_pos(outer_sizes, outer_strides, 0);
    for (int64_t r = 0; r < n_outer; ++r, red_pos.next())
      acc = p.combine(acc, fold_any_strip(p, base + red_pos.offset(), inner, inner_stride));
    emit(o, acc);
  }
}

// Columns per tile of path (b): whole rows of up to this many elements, so reads stream through memory.
constexpr int64_t kRowTile = 1024;

// Path (b): the innermost kept dim (length J, stride 1) is folded a tile of columns at a time.
template <typename T, typename P, typename Emit>
void fold_rows(const P& p, const ReduceGeometry& g, const T* in, int64_t ub, int64_t ue, const Emit& emit) {
  using acc_t = typename P::acc_t;
  constexpr int64_t kTile = kRowTile, kBlock = 256;
  size_t nk = g.kept_sizes.size();
  int64_t J = g.kept_sizes[nk - 1];
  int64_t tiles = (J + kTile - 1) / kTile;
  DimVector outer_sizes(g.kept_sizes), outer_strides(g.kept_strides);
  outer_sizes[nk - 1] = 1;
  acc_t total[kTile], acc[kTile];
  for (int64_t u = ub; u < ue; ++u) {
    int64_t outer = u / tiles, j0 = (u % tiles) * kTile, n = std::min(kTile, J - j0);
    OffsetCounter outer_pos(outer_sizes, outer_strides, outer);
    const T* base = in + outer_pos.offset() + j0;
    for (int64_t j = 0; j < n; ++j) total[j] = p.identity();
    OffsetCounter red_pos(g.red_sizes, g.red_strides, 0);
    // Rows are folded in blocks whose partials then combine, so long float sums don't drift.
    for (int64_t r0 = 0; r0 < g.n_red; r0 += kBlock) {
      for (int64_t j = 0; j < n; ++j) acc[j] = p.identity();
      int64_t r1 = std::min(g.n_red, r0 + kBlock);
      int64_t r = r0;
      // Four rows per pass over the tile: the accumulators are loaded and stored once per four rows.
      for (; r + 4 <= r1; r += 4) {
        const T* __restrict a = base + red_pos.offset();
        red_pos.next();
        const T* __restrict b = base + red_pos.offset();
        red_pos.next();
        const T* __restrict c = base + red_pos.offset();
        red_pos.next();
        const T* __restrict d = base + red_pos.offset();
        red_pos.next();
        for (int64_t j = 0; j < n; ++j)
          acc[j] = p.step(p.step(p.step(p.step(acc[j], a[j]), b[j]), c[j]), d[j]);
      }
      for (; r < r1; ++r, red_pos.next()) {
        const T* __restrict row = base + red_pos.offset();
        for (int64_t j = 0; j < n; ++j) acc[j] = p.step(acc[j], row[j]);
      }
      for (int64_t j = 0; j < n; ++j) total[j] = p.combine(total[j], acc[j]);
    }
    for (int64_t j = 0; j < n; ++j) emit(outer * J + j0 + j, total[j]);
  }
}

// Runs the fold of `in` into `out` with policy p, choosing the layout path and the parallel split.
template <typename T, typename P>
void run_fold(const P& p, const Tensor& out, const Tensor& in, int64_t n_reduced) {
  using acc_t = typename P::acc_t;
  using out_t = typename P::out_t;
  ReduceGeometry g = make_reduce_geometry(in, n_reduced);
  if (g.n_out == 0) return;
  const T* data = in.data<T>();
  out_t* dst = out.data<out_t>();
  size_t nk = g.kept_sizes.size(), nr = g.red_sizes.size();
  bool rows = nk && nr && g.kept_strides[nk - 1] == 1 && g.red_strides[nr - 1] != 1;
  int64_t tiles = rows ? (g.kept_sizes[nk - 1] + kRowTile - 1) / kRowTile : 0;
  int64_t units = rows ? g.n_out / g.kept_sizes[nk - 1] * tiles : g.n_out;
  auto run_units = [&](const ReduceGeometry& geo, const T* base, int64_t b, int64_t e, auto emit) {
    if (rows)
      fold_rows<T>(p, geo, base, b, e, emit);
    else
      fold_outputs<T>(p, geo, base, b, e, emit);
  };
  if (nr && should_split_reduction(units, g.red_sizes[0], g.n_out * g.n_red)) {
    // Few outputs, long reduction: each chunk of the outermost reduced dim folds into its own partials.
    int64_t chunks = std::min<int64_t>(get_num_threads(), g.red_sizes[0]);
    std::unique_ptr<acc_t[]> partial(new acc_t[static_cast<size_t>(chunks * g.n_out)]);
    parallel_for(0, chunks, 1, [&](int64_t cb, int64_t ce) {
      for (int64_t c = cb; c < ce; ++c) {
        ReduceGeometry sub = g;
        // size * c / chunks without overflowing size * c (the size may be near 2**63 for an expanded input).
        auto split = [&](int64_t i) {
          const int64_t q = g.red_sizes[0] / chunks, r = g.red_sizes[0] % chunks;
          return q * i + r * i / chunks;
        };
        int64_t lo = split(c), hi = split(c + 1);
        sub.red_sizes[0] = hi - lo;
        sub.n_red = g.n_red / g.red_sizes[0] * (hi - lo);
        acc_t* part = partial.get() + c * g.n_out;
        run_units(sub, data + lo * g.red_strides[0], 0, units, [&](int64_t o, acc_t a) { part[o] = a; });
      }
    });
    for (int64_t o = 0; o < g.n_out; ++o) {
      acc_t a = partial[o];
      for (int64_t c = 1; c < chunks; ++c) a = p.combine(a, partial[c * g.n_out + o]);
      dst[o] = p.finish(a);
    }
    return;
  }
  parallel_over_outputs(units, g.n_out * g.n_red / std::max<int64_t>(units, 1), [&](int64_t b, int64_t e) {
    run_units(g, data, b, e, [&](int64_t o, acc_t a) { dst[o] = p.finish(a); });
  });
}

TANDEM_CPU_KERNELS_END

TANDEM_CPU_KERNELS_BEGIN
// One translation unit per op group keeps compile units small.
void fold_sum_prod(ReduceOp op, const Tensor& out, const Tensor& in, int64_t n_reduced);
void fold_max_min(ReduceOp op, const Tensor& out, const Tensor& in, int64_t n_reduced);
void fold_all_any(ReduceOp op, const Tensor& out, const Tensor& in, int64_t n_reduced);
void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in);
void cumsum(const Tensor& out, const Tensor& in);
void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log_space);
void sort(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k, bool descending,
          bool stable);
TANDEM_CPU_KERNELS_END
