// CPU kernels that work row by row along the last dim: cumsum, and sort/topk.
#include <algorithm>
#include <numeric>
#include <vector>

#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/reduce_fold.h"

TANDEM_CPU_KERNELS_BEGIN

namespace {

// Sizes and strides of all dims but the last: the row index space.
struct Rows {
  DimVector sizes, strides;
  int64_t count = 1;
  Rows(const Tensor& t) {
    for (int64_t d = 0; d + 1 < t.dim(); ++d) {
      sizes.push_back(t.sizes()[d]);
      strides.push_back(t.strides()[d]);
      count *= t.sizes()[d];
    }
  }
};

int64_t last_size(const Tensor& t) { return t.dim() ? t.sizes()[t.dim() - 1] : 1; }
int64_t last_stride(const Tensor& t) { return t.dim() ? t.strides()[t.dim() - 1] : 0; }

}  // namespace

void cumsum(const Tensor& out, const Tensor& in) {
  dispatch_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = wrapping_t<opmath_t<T>>;  // integer running sums wrap, as in PyTorch
    Rows ri(in), ro(out);
    int64_t n = last_size(in), si = last_stride(in), so = last_stride(out);
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    parallel_over_outputs(ri.count, n, [&](int64_t b, int64_t e) {
      OffsetCounter pi(ri.sizes, ri.strides, b), po(ro.sizes, ro.strides, b);
      for (int64_t r = b; r < e; ++r, pi.next(), po.next()) {
        const T* s = src + pi.offset();
        T* d = dst + po.offset();
        A acc = A(0);
        for (int64_t i = 0; i < n; ++i) {
          acc = static_cast<A>(acc + static_cast<A>(s[i * si]));
          d[i * so] = convert<T>(acc);
        }
      }
    });
  });
}

void sort(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k, bool descending,
          bool stable) {
  // Ties break by position, which makes every sort stable, so `stable` needs no separate path.
  (void)stable;
  dispatch_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using V = opmath_t<T>;
    Rows ri(in), rv(values), rx(indices);
    int64_t n = last_size(in), si = last_stride(in), sv = last_stride(values), sx = last_stride(indices);
    const T* src = in.data<T>();
    T* vals = values.data<T>();
    int64_t* idxs = indices.data<int64_t>();
    parallel_over_outputs(ri.count, n * 16, [&](int64_t b, int64_t e) {
      std::vector<std::pair<V, int64_t>> row(static_cast<size_t>(n));
      OffsetCounter pi(ri.sizes, ri.strides, b), pv(rv.sizes, rv.strides, b), px(rx.sizes, rx.strides, b);
      for (int64_t r = b; r < e; ++r, pi.next(), pv.next(), px.next()) {
        const T* s = src + pi.offset();
        for (int64_t i = 0; i < n; ++i) row[i] = {static_cast<V>(s[i * si]), i};
        // NaN sorts above every number.
        auto before = [descending](const std::pair<V, int64_t>& a, const std::pair<V, int64_t>& c) {
          bool an = a.first != a.first, cn = c.first != c.first;
          if (an || cn) return an != cn ? (descending ? an : cn) : a.second < c.second;
          if (a.first != c.first) return descending ? a.first > c.first : a.first < c.first;
          return a.second < c.second;
        };
        if (k < n)
          std::partial_sort(row.begin(), row.begin() + k, row.end(), before);
        else
          std::sort(row.begin(), row.end(), before);
        T* dv = vals + pv.offset();
        int64_t* dx = idxs + px.offset();
        for (int64_t i = 0; i < k; ++i) {
          dv[i * sv] = convert<T>(row[i].first);
          dx[i * sx] = row[i].second;
        }
      }
    });
  });
}

TANDEM_CPU_KERNELS_END
