// CPU max/min with indices over the last dim (max(dim), argmax, ...). First index wins ties; a NaN beats
// every number and the first NaN is reported, as in PyTorch.
#include <algorithm>
#include <utility>
#include <vector>

#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/reduce_fold.h"
#include "kernels/cpu/simd.h"

TANDEM_CPU_KERNELS_BEGIN

namespace {

template <bool IsMax, typename V>
TANDEM_INLINE bool better(V x, V best) {
  // Bitwise, not short-circuit, so the column loops vectorise.
  return (IsMax ? x > best : x < best) | ((x != x) & (best == best));
}

template <typename T, bool IsMax>
std::pair<opmath_t<T>, int64_t> arg_strided(const T* in, int64_t n, int64_t stride) {
  using V = opmath_t<T>;
  V best = static_cast<V>(in[0]);
  int64_t at = 0;
  for (int64_t i = 1; i < n; ++i) {
    V x = static_cast<V>(in[i * stride]);
    if (better<IsMax>(x, best)) best = x, at = i;
  }
  return {best, at};
}

template <bool IsMax, typename X>
TANDEM_INLINE X pick(X x, X best) {
  return (IsMax ? x > best : x < best) ? x : best;
}

// Index of the first element equal to `target` (or the first NaN when `find_nan`), or n. Blocks are tested
// without early exit so they vectorise.
template <int B, typename T>
TANDEM_INLINE auto match(const T* at, T target, bool find_nan) {
  auto v = vload<B>(at);
  return find_nan ? v != v : v == target;
}

template <int B, typename T>
TANDEM_INLINE int64_t find_first(const T* in, int64_t n, T target, bool find_nan) {
  constexpr int64_t W = B / sizeof(T), K = 4;
  int64_t i = 0;
  for (; i + K * W <= n; i += K * W) {
    auto hit = match<B>(in + i, target, find_nan) | match<B>(in + i + W, target, find_nan) |
               match<B>(in + i + 2 * W, target, find_nan) | match<B>(in + i + 3 * W, target, find_nan);
    if (any_lane(hit)) break;
  }
  for (; i + W <= n; i += W) {
    auto hit = match<B>(in + i, target, find_nan);
    if (any_lane(hit)) return i + first_lane<sizeof(T)>(hit);
  }
  for (; i < n; ++i)
    if (find_nan ? in[i] != in[i] : in[i] == target) return i;
  return n;
}

// Contiguous row of 1- or 2-byte integers (lane positions would overflow their lanes): one pass for the
// extreme value, then a search for its first index.
template <int B, typename T, bool IsMax>
TANDEM_INLINE std::pair<T, int64_t> arg_two_pass(const T* in, int64_t n) {
  using Vec = vec_t<T, B>;
  constexpr int64_t W = B / sizeof(T);
  // Named accumulators (not arrays) stay in registers.
  Vec m0 = vsplat<B, T>(in[0]), m1 = m0, m2 = m0, m3 = m0;
  int64_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    m0 = pick<IsMax>(vload<B>(in + i), m0), m1 = pick<IsMax>(vload<B>(in + i + W), m1);
    m2 = pick<IsMax>(vload<B>(in + i + 2 * W), m2), m3 = pick<IsMax>(vload<B>(in + i + 3 * W), m3);
  }
  m0 = pick<IsMax>(pick<IsMax>(m0, m1), pick<IsMax>(m2, m3));
  for (; i + W <= n; i += W) m0 = pick<IsMax>(vload<B>(in + i), m0);  // short rows stay vectorised
  T best = in[0];
  for (int64_t j = 0; j < W; ++j) best = pick<IsMax>(static_cast<T>(m0[j]), best);
  for (; i < n; ++i) best = pick<IsMax>(in[i], best);
  return {best, find_first<B>(in, n, best, false)};
}

// Positions kept in vector lanes as wide as the values, so a select moves both with one mask.
template <size_t S>
struct LaneIndex;
template <>
struct LaneIndex<4> {
  using type = int32_t;
};
template <>
struct LaneIndex<8> {
  using type = int64_t;
};
template <typename T>
using lane_index_t = typename LaneIndex<sizeof(T)>::type;

template <int B, typename I>
TANDEM_INLINE vec_t<I, B> iota(I start) {
  vec_t<I, B> v;
  for (int j = 0; j < static_cast<int>(B / sizeof(I)); ++j) v[j] = start + static_cast<I>(j);
  return v;
}

// Per-lane winners (values v at positions p) to the row's winner: the best value, the smallest position
// among equal ones. Halves fold together until a 16-byte vector is left.
template <bool IsMax, int B, typename T, typename I>
TANDEM_INLINE std::pair<T, int64_t> resolve_lanes(vec_t<T, B> v, vec_t<I, B> p) {
  if constexpr (B > 16) {
    auto [vl, vh] = split_halves(v);
    auto [pl, ph] = split_halves(p);
    auto take = (IsMax ? vh > vl : vh < vl) | ((vh == vl) & (ph < pl));
    return resolve_lanes<IsMax, B / 2, T, I>(take ? vh : vl, take ? ph : pl);
  } else {
    T best = v[0];
    I at = p[0];
    for (int j = 1; j < static_cast<int>(B / sizeof(T)); ++j)
      if ((IsMax ? v[j] > best : v[j] < best) || (v[j] == best && p[j] < at)) best = v[j], at = p[j];
    return {best, at};
  }
}

// One pass over a contiguous row of W <= n < 2^31 elements of a 4- or 8-byte type. Four accumulators keep,
// per lane, the best value and the position of the vector it came from. The value update is a plain max
// (x > m ? x : m, one instruction) so the loop-carried chain is short; a lane's position moves when its value
// changed, which keeps the earliest of equal values. A ragged end reloads the last full group (or vector),
// overlapping elements already seen: they keep their true positions, so they change nothing. A NaN never
// wins a comparison; `probe` (a running sum, NaN once any element is) tells the caller to look for one.
template <int B, typename T, bool IsMax>
TANDEM_INLINE std::pair<T, int64_t> arg_one_pass(const T* in, int64_t n, bool& maybe_nan) {
  using Vec = vec_t<T, B>;
  using I = lane_index_t<T>;
  using IVec = vec_t<I, B>;
  constexpr int64_t W = B / sizeof(T);
  auto take = [](Vec x, Vec& m, IVec& pos, IVec at) TANDEM_LAMBDA_INLINE {
    Vec next = pick<IsMax>(x, m);
    pos = next != m ? at : pos;
    m = next;
  };
  Vec best, probe;
  IVec pos;
  if (n >= 4 * W) {
    Vec m0 = vload<B>(in), m1 = vload<B>(in + W), m2 = vload<B>(in + 2 * W), m3 = vload<B>(in + 3 * W);
    Vec q0 = m0, q1 = m1, q2 = m2, q3 = m3;
    IVec at{}, p0{}, p1{}, p2{}, p3{};
    auto step = [&](int64_t i) TANDEM_LAMBDA_INLINE {
      Vec x0 = vload<B>(in + i), x1 = vload<B>(in + i + W), x2 = vload<B>(in + i + 2 * W),
          x3 = vload<B>(in + i + 3 * W);
      take(x0, m0, p0, at), take(x1, m1, p1, at), take(x2, m2, p2, at), take(x3, m3, p3, at);
      if constexpr (std::is_floating_point_v<T>) q0 += x0, q1 += x1, q2 += x2, q3 += x3;
    };
    int64_t i = 4 * W;
    for (; i + 4 * W <= n; i += 4 * W) at += static_cast<I>(4 * W), step(i);
    if (i < n) at = vsplat<B, I>(static_cast<I>(n - 4 * W)), step(n - 4 * W);
    // Fold the four streams with absolute positions; ties keep the smaller one.
    p0 += iota<B, I>(0), p1 += iota<B, I>(W), p2 += iota<B, I>(2 * W), p3 += iota<B, I>(3 * W);
    auto fold = [](Vec& m, IVec& p, Vec m2, IVec p2) TANDEM_LAMBDA_INLINE {
      auto t = (IsMax ? m2 > m : m2 < m) | ((m2 == m) & (p2 < p));
      m = t ? m2 : m, p = t ? p2 : p;
    };
    fold(m0, p0, m1, p1), fold(m2, p2, m3, p3), fold(m0, p0, m2, p2);
    best = m0, pos = p0, probe = (q0 + q1) + (q2 + q3);
  } else {
    Vec m = vload<B>(in);
    IVec p{};
    probe = m;
    auto step = [&](int64_t i) TANDEM_LAMBDA_INLINE {
      Vec x = vload<B>(in + i);
      take(x, m, p, vsplat<B, I>(static_cast<I>(i)));
      if constexpr (std::is_floating_point_v<T>) probe += x;
    };
    int64_t i = W;
    for (; i + W <= n; i += W) step(i);
    if (i < n) step(n - W);
    best = m, pos = p + iota<B, I>(0);
  }
  if constexpr (std::is_floating_point_v<T>)
    maybe_nan = any_lane(probe != probe);
  else
    maybe_nan = false;
  return resolve_lanes<IsMax, B, T, I>(best, pos);
}

template <int B, typename T, bool IsMax>
TANDEM_INLINE std::pair<T, int64_t> arg_vectors(const T* in, int64_t n) {
  constexpr int64_t W = B / sizeof(T);
  if constexpr (sizeof(T) < 4) {
    return arg_two_pass<B, T, IsMax>(in, n);
  } else {
    if (n < W) return arg_strided<T, IsMax>(in, n, 1);
    // Lane positions are 32-bit for 4-byte types: longer rows go in chunks, combined in order.
    constexpr int64_t kChunk = int64_t{1} << 30;
    bool maybe_nan = false;
    std::pair<T, int64_t> best;
    for (int64_t lo = 0; lo < n; lo += kChunk) {
      int64_t start = std::min(lo, n - W), len = std::min(n, lo + kChunk) - start;
      bool chunk_nan;
      auto r = arg_one_pass<B, T, IsMax>(in + start, len, chunk_nan);
      r.second += start;
      maybe_nan |= chunk_nan;
      if (lo == 0 || (IsMax ? r.first > best.first : r.first < best.first)) best = r;
    }
    if constexpr (std::is_floating_point_v<T>) {
      if (maybe_nan) {  // a NaN, or infinities that summed to one: the first NaN wins if there is one
        int64_t at = find_first<B>(in, n, T(0), true);
        if (at < n) return {in[at], at};
      }
    }
    return best;
  }
}

template <typename T, bool IsMax>
std::pair<opmath_t<T>, int64_t> arg_contig(const T* in, int64_t n) {
  if constexpr (kSimdType<T>) {
    return arg_vectors<kVectorBytes, T, IsMax>(in, n);
  } else {
    return arg_strided<T, IsMax>(in, n, 1);
  }
}

template <typename T, bool IsMax>
void run_arg(const Tensor& values, const Tensor& indices, const Tensor& in) {
  using V = opmath_t<T>;
  ReduceGeometry g = make_reduce_geometry(in, 1);
  if (g.n_out == 0) return;
  const T* data = in.data<T>();
  T* vals = values.defined() ? values.data<T>() : nullptr;
  int64_t* idxs = indices.data<int64_t>();
  int64_t n = g.red_sizes.empty() ? 1 : g.red_sizes[0], rs = g.red_sizes.empty() ? 0 : g.red_strides[0];
  auto emit = [&](int64_t o, V v, int64_t i) {
    if (vals) vals[o] = convert<T>(v);
    idxs[o] = i;
  };
  auto row = [&](const T* p, int64_t len) {
    return rs == 1 ? arg_contig<T, IsMax>(p, len) : arg_strided<T, IsMax>(p, len, rs);
  };
  size_t nk = g.kept_sizes.size();
  if (nk && rs != 1 && g.kept_strides[nk - 1] == 1) {
    // Innermost kept dim contiguous: fold whole rows into a tile of (value, index) accumulators.
    constexpr int64_t kTile = 256;
    int64_t J = g.kept_sizes[nk - 1], tiles = (J + kTile - 1) / kTile;
    DimVector outer_sizes(g.kept_sizes), outer_strides(g.kept_strides);
    outer_sizes[nk - 1] = 1;
    parallel_over_outputs(g.n_out / J * tiles, n * kTile, [&](int64_t ub, int64_t ue) {
      V best[kTile];
      int64_t at[kTile];
      for (int64_t u = ub; u < ue; ++u) {
        int64_t outer = u / tiles, j0 = (u % tiles) * kTile, m = std::min(kTile, J - j0);
        OffsetCounter pos(outer_sizes, outer_strides, outer);
        const T* base = data + pos.offset() + j0;
        for (int64_t j = 0; j < m; ++j) best[j] = static_cast<V>(base[j]), at[j] = 0;
        for (int64_t r = 1; r < n; ++r) {
          const T* __restrict p = base + r * rs;
          for (int64_t j = 0; j < m; ++j) {
            V x = static_cast<V>(p[j]);
            bool b = better<IsMax>(x, best[j]);
            best[j] = b ? x : best[j];
            at[j] = b ? r : at[j];
          }
        }
        for (int64_t j = 0; j < m; ++j) emit(outer * J + j0 + j, best[j], at[j]);
      }
    });
    return;
  }
  if (should_split_reduction(g.n_out, n, g.n_out * n)) {
    // Few long rows: each thread scans a chunk; chunk results combine in order so the first index wins.
    int64_t chunks = get_num_threads();
    for (int64_t o = 0; o < g.n_out; ++o) {
      OffsetCounter pos(g.kept_sizes, g.kept_strides, o);
      const T* base = data + pos.offset();
      std::vector<std::pair<V, int64_t>> part(static_cast<size_t>(chunks));
      parallel_for(0, chunks, 1, [&](int64_t cb, int64_t ce) {
        for (int64_t c = cb; c < ce; ++c) {
          int64_t lo = n * c / chunks, hi = n * (c + 1) / chunks;
          part[c] = row(base + lo * rs, hi - lo);
          part[c].second += lo;
        }
      });
      auto best = part[0];
      for (int64_t c = 1; c < chunks; ++c)
        if (better<IsMax>(part[c].first, best.first)) best = part[c];
      emit(o, best.first, best.second);
    }
    return;
  }
  parallel_over_outputs(g.n_out, n, [&](int64_t b, int64_t e) {
    OffsetCounter pos(g.kept_sizes, g.kept_strides, b);
    for (int64_t o = b; o < e; ++o, pos.next()) {
      auto r = row(data + pos.offset(), n);
      emit(o, r.first, r.second);
    }
  });
}

}  // namespace

void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in) {
  dispatch_dtype_with_uint(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (is_max)
      run_arg<T, true>(values, indices, in);
    else
      run_arg<T, false>(values, indices, in);
  });
}

TANDEM_CPU_KERNELS_END
