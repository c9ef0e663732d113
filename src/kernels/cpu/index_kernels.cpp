// CPU kernels of the index family. Gather and put move raw elements (only their size matters), so one loop
// per element width serves all dtypes; only accumulation needs the dtype.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/simd.h"
#include "kernels/functors.h"
#include "kernels/kernel_table.h"

TANDEM_CPU_KERNELS_BEGIN

namespace {

// Walks an IndexPlan row by row (a row is the innermost dim), giving each row's starting offsets.
struct RowCursor {
  const IndexPlan& plan;
  int64_t nd, inner;
  bool index_const_in_row;  // every index operand has stride 0 along the row

  explicit RowCursor(const IndexPlan& p)
      : plan(p), nd(static_cast<int64_t>(p.shape.size())), inner(nd ? p.shape[nd - 1] : 1) {
    index_const_in_row = true;
    for (const IndexOperand& ix : p.indices) index_const_in_row &= nd == 0 || ix.strides[nd - 1] == 0;
  }
  int64_t rows() const {
    int64_t n = 1;
    for (int64_t d = 0; d + 1 < nd; ++d) n *= plan.shape[d];
    return n;
  }
  // Offsets (elements) of the first element of `row` in self (without index terms) and other, and each
  // index operand's offset.
  void start(int64_t row, int64_t& self_off, int64_t& other_off, int64_t* idx_off) const {
    self_off = other_off = 0;
    const size_t k = plan.indices.size();
    for (size_t i = 0; i < k; ++i) idx_off[i] = 0;
    for (int64_t d = nd - 2; d >= 0; --d) {
      int64_t c = row % plan.shape[d];
      row /= plan.shape[d];
      self_off += c * plan.self_strides[d];
      other_off += c * plan.other_strides[d];
      for (size_t i = 0; i < k; ++i) idx_off[i] += c * plan.indices[i].strides[d];
    }
  }
  // The index contribution (elements into self) of element j of a row whose index offsets are idx_off.
  int64_t index_term(const int64_t* idx_off, int64_t j) const {
    int64_t off = 0;
    for (size_t i = 0; i < plan.indices.size(); ++i) {
      const IndexOperand& ix = plan.indices[i];
      int64_t v = ix.data[idx_off[i] + (nd ? j * ix.strides[nd - 1] : 0)];
      if (v < 0) v += ix.dim_size;
      off += v * ix.dim_stride;
    }
    return off;
  }
};

constexpr size_t kMaxIndexOperands = 64;

// One row with a single index operand: other[j] <-> self[j * ss + wrap(index[j]) * stride]. Always inlined so
// call sites with literal unit strides get their own tight loop.
template <typename E, bool kToOther>
__attribute__((always_inline)) inline void move_row(const int64_t* __restrict ip, int64_t is, int64_t size,
                                                    int64_t stride, E* __restrict srow, int64_t ss,
                                                    E* __restrict orow, int64_t os, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    int64_t v = ip[j * is];
    v += v < 0 ? size : 0;
    if constexpr (kToOther)
      orow[j * os] = srow[j * ss + v * stride];
    else
      srow[j * ss + v * stride] = orow[j * os];
  }
}

// Copies elements between self (at indexed positions) and other; kToOther picks the direction.
template <typename E, bool kToOther>
void move_elements(const IndexPlan& plan) {
  RowCursor cur(plan);
  const int64_t inner = cur.inner;
  const int64_t ss = cur.nd ? plan.self_strides[cur.nd - 1] : 0;
  const int64_t os = cur.nd ? plan.other_strides[cur.nd - 1] : 0;
  E* self = reinterpret_cast<E*>(plan.self);
  E* other = reinterpret_cast<E*>(plan.other);
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(inner, 1));
  parallel_for(0, cur.rows(), grain, [&](int64_t b, int64_t e) {
    int64_t idx_off[kMaxIndexOperands];
    for (int64_t row = b; row < e; ++row) {
      int64_t so, oo;
      cur.start(row, so, oo, idx_off);
      if (cur.index_const_in_row) {
        E* s = self + so + cur.index_term(idx_off, 0);
        E* o = other + oo;
        if (ss == 1 && os == 1) {
          if constexpr (kToOther)
            std::memcpy(o, s, inner * sizeof(E));
          else
            std::memcpy(s, o, inner * sizeof(E));
        } else {
          for (int64_t j = 0; j < inner; ++j) {
            if constexpr (kToOther)
              o[j * os] = s[j * ss];
            else
              s[j * ss] = o[j * os];
          }
        }
      } else if (plan.indices.size() == 1) {
        // One index varying along the row (gather, index_select on the last dim, x[:, idx]): a tight loop.
        const IndexOperand& ix = plan.indices[0];
        const int64_t is = ix.strides[cur.nd - 1];
        if (is == 1 && os == 1 &&
            ss == 0) {  // gather along a contiguous index: unit strides help the compiler
          move_row<E, kToOther>(ix.data + idx_off[0], 1, ix.dim_size, ix.dim_stride, self + so, 0, other + oo,
                                1, inner);
        } else {
          move_row<E, kToOther>(ix.data + idx_off[0], is, ix.dim_size, ix.dim_stride, self + so, ss,
                                other + oo, os, inner);
        }
      } else {
        for (int64_t j = 0; j < inner; ++j) {
          E* s = self + so + j * ss + cur.index_term(idx_off, j);
          if constexpr (kToOther)
            other[oo + j * os] = *s;
          else
            *s = other[oo + j * os];
        }
      }
    }
  });
}

template <bool kToOther>
void move_by_width(const IndexPlan& plan) {
  switch (element_size(plan.dtype)) {
    case 1:
      return move_elements<uint8_t, kToOther>(plan);
    case 2:
      return move_elements<uint16_t, kToOther>(plan);
    case 4:
      return move_elements<uint32_t, kToOther>(plan);
    case 16:  // complex128, moved as its own 16-byte type
      return move_elements<complex<double>, kToOther>(plan);
    default:
      return move_elements<uint64_t, kToOther>(plan);
  }
}

// s[j * ss] += o[j * os] for one row. Always inlined so the unit-stride call site gets its own vector loop.
template <typename T>
TANDEM_INLINE void accumulate_row(T* s, int64_t ss, const T* o, int64_t os, int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    s[j * ss] = convert<T>(static_cast<opmath_t<T>>(s[j * ss]) + static_cast<opmath_t<T>>(o[j * os]));
}

// self[index(i)] += other[i], serially so that duplicate positions add up without races. When the index is
// constant along the row (index_add / index_put along an outer dim: whole rows added, as sparse @ dense
// does), a row is one offset and one vector loop instead of an index lookup per element.
template <typename T>
void accumulate_elements(const IndexPlan& plan) {
  RowCursor cur(plan);
  const int64_t ss = cur.nd ? plan.self_strides[cur.nd - 1] : 0;
  const int64_t os = cur.nd ? plan.other_strides[cur.nd - 1] : 0;
  T* self = reinterpret_cast<T*>(plan.self);
  const T* other = reinterpret_cast<const T*>(plan.other);
  int64_t idx_off[kMaxIndexOperands];
  for (int64_t row = 0, rows = cur.rows(); row < rows; ++row) {
    int64_t so, oo;
    cur.start(row, so, oo, idx_off);
    if (cur.index_const_in_row) {
      T* s = self + so + cur.index_term(idx_off, 0);
      if (ss == 1 && os == 1)
        accumulate_row(s, 1, other + oo, 1, cur.inner);
      else
        accumulate_row(s, ss, other + oo, os, cur.inner);
      continue;
    }
    for (int64_t j = 0; j < cur.inner; ++j) {
      T* s = self + so + j * ss + cur.index_term(idx_off, j);
      *s = convert<T>(static_cast<opmath_t<T>>(*s) + static_cast<opmath_t<T>>(other[oo + j * os]));
    }
  }
}

void gather(const IndexPlan& plan) { move_by_width<true>(plan); }

void put(const IndexPlan& plan, bool accumulate) {
  if (!accumulate) return move_by_width<false>(plan);
  dispatch_dtype(plan.dtype, [&](auto tag) { accumulate_elements<typename decltype(tag)::type>(plan); });
}

// Bounds checks run over every index, so this loop matters: it vectorises where the capability has 64-bit
// compares (AVX2 and up).
void min_max_values(const int64_t* p, int64_t n, int64_t* lo, int64_t* hi) {
  int64_t mn = p[0], mx = p[0];
  for (int64_t i = 1; i < n; ++i) {
    mn = p[i] < mn ? p[i] : mn;
    mx = p[i] > mx ? p[i] : mx;
  }
  *lo = mn;
  *hi = mx;
}

void min_max(const Tensor& index, int64_t* lo, int64_t* hi) {
  min_max_values(index.data<int64_t>(), index.numel(), lo, hi);
}

template <typename T>
bool nonzero_at(const T* p, int64_t i) {
  if constexpr (std::is_arithmetic_v<T>)
    return p[i] != T(0);
  else
    return static_cast<float>(p[i]) != 0.0f;
}

int64_t count_nonzero(const Tensor& x) {
  return dispatch_dtype_with_uint(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = x.data<T>();
    int64_t count = 0;
    for (int64_t i = 0, n = x.numel(); i < n; ++i) count += nonzero_at(p, i);
    return count;
  });
}

void nonzero(const Tensor& out, const Tensor& x) {
  dispatch_dtype_with_uint(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = x.data<T>();
    const int64_t nd = x.dim();
    int64_t* o = out.data<int64_t>();
    DimVector coord(nd, 0);
    for (int64_t i = 0, n = x.numel(); i < n; ++i) {
      if (nonzero_at(p, i)) {
        std::memcpy(o, coord.data(), nd * sizeof(int64_t));
        o += nd;
      }
      for (int64_t d = nd - 1; d >= 0 && ++coord[d] == x.sizes()[d]; --d) coord[d] = 0;
    }
  });
}

// A 16-byte element (complex128), moved whole.
struct Bytes16 {
  uint64_t lo, hi;
};

// AVX-512's expand-load writes 4- and 8-byte elements a vector at a time: the next (popcount) source elements
// go to the lanes whose mask byte is true, in order, and the other lanes keep self's values. Returns where
// the element loop goes on (its start for other widths and builds).
#if TANDEM_CPU_CAPABILITY_LEVEL >= 2
int64_t expand_lanes(uint32_t* self, const bool* mask, const uint32_t* source, int64_t i, int64_t e,
                     int64_t& k) {
  for (; i + 16 <= e; i += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(mask + i));
    const __mmask16 lanes = _mm_test_epi8_mask(bytes, bytes);
    if (!lanes) continue;
    _mm512_storeu_si512(self + i,
                        _mm512_mask_expandloadu_epi32(_mm512_loadu_si512(self + i), lanes, source + k));
    k += __builtin_popcount(lanes);
  }
  return i;
}
int64_t expand_lanes(uint64_t* self, const bool* mask, const uint64_t* source, int64_t i, int64_t e,
                     int64_t& k) {
  for (; i + 8 <= e; i += 8) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(mask + i));
    const __mmask8 lanes = static_cast<__mmask8>(_mm_test_epi8_mask(bytes, bytes));
    if (!lanes) continue;
    _mm512_storeu_si512(self + i,
                        _mm512_mask_expandloadu_epi64(_mm512_loadu_si512(self + i), lanes, source + k));
    k += __builtin_popcount(lanes);
  }
  return i;
}
#endif
template <typename E>
int64_t expand_lanes(E*, const bool*, const E*, int64_t i, int64_t, int64_t&) {
  return i;
}

// The k-th true mask position takes source[k]. Chunks of the mask count their true positions first, so each
// knows where in source it starts and all of them write at once. The write loop has no branch (a random mask
// would mispredict half of them): every position stores either its own value or its source element.
template <typename E>
void masked_scatter_as(E* self, const bool* mask, const E* source, int64_t n) {
  constexpr int64_t kGrain = int64_t{1} << 16;  // a chunk's count costs less than a thread start below this
  const int64_t chunks = std::clamp<int64_t>(n / kGrain, 1, 16 * static_cast<int64_t>(get_num_threads()));
  const int64_t chunk = (n + chunks - 1) / chunks;
  std::vector<int64_t> starts(static_cast<size_t>(chunks) + 1, 0);
  parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t b = c * chunk, e = std::min(n, b + chunk);
      int64_t count = 0;
      for (int64_t i = b; i < e; ++i) count += mask[i];
      starts[static_cast<size_t>(c) + 1] = count;
    }
  });
  for (int64_t c = 0; c < chunks; ++c) starts[c + 1] += starts[c];
  const int64_t total = starts[chunks];
  if (total == 0) return;
  parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      int64_t k = starts[c];
      const int64_t b = c * chunk, e = std::min(n, b + chunk);
      for (int64_t i = expand_lanes(self, mask, source, b, e, k); i < e; ++i) {
        const E value = source[k < total ? k : total - 1];  // read in bounds after the last true position
        self[i] = mask[i] ? value : self[i];
        k += mask[i];
      }
    }
  });
}

void masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  const int64_t n = self.numel();
  const bool* m = mask.data<bool>();
  auto run = [&](auto element) {
    using E = decltype(element);
    masked_scatter_as(static_cast<E*>(self.data_ptr()), m, static_cast<const E*>(source.data_ptr()), n);
  };
  switch (element_size(self.dtype())) {
    case 1:
      return run(uint8_t{});
    case 2:
      return run(uint16_t{});
    case 4:
      return run(uint32_t{});
    case 8:
      return run(uint64_t{});
    default:
      return run(Bytes16{});
  }
}

}  // namespace

void register_index_kernels(KernelTable& table) {
  table.index.gather = &gather;
  table.index.put = &put;
  table.index.min_max = &min_max;
  table.index.count_nonzero = &count_nonzero;
  table.index.nonzero = &nonzero;
  table.index.masked_scatter = &masked_scatter;
}

TANDEM_CPU_KERNELS_END
