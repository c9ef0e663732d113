// CPU batch normalisation: the nn family's batch_norm slots (contract in kernels/nn_kernels.h, per-element
// math in kernels/norm_functors.h). The input is (N, C, S): a channel's values are N runs of S contiguous
// elements. When a run holds at least a vector (convolution outputs), threads take channels and fold each run
// in vectors (row_folds.h). Shorter runs (BatchNorm1d's (N, C), or (N, C, L) with a small L) would leave the
// vectors mostly empty, so there a thread takes a block of channels and walks the rows, adding the block's
// C_block * S contiguous columns into one double per column. The elementwise pass splits runs (or rows)
// across threads. Every sum has a fixed order, so the results do not depend on the thread count.
#include <algorithm>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/norm_kernels.h"
#include "kernels/cpu/row_folds.h"
#include "kernels/floating_dispatch.h"
#include "kernels/kernel_table.h"
#include "kernels/norm_functors.h"

TANDEM_CPU_KERNELS_BEGIN

namespace {

struct Geometry {
  int64_t n, c, s;
};
Geometry geometry(const Tensor& t) { return {t.sizes()[0], t.sizes()[1], t.sizes()[2]}; }

// Work per thread chunk: about 64K values, so a small input stays on one thread.
int64_t grain_for(int64_t values_per_item) {
  return std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(values_per_item, 1));
}

// Whether channel runs are long enough to fold in vectors of A.
template <typename A>
bool runs_fill_vectors(Geometry g) {
  return g.s >= static_cast<int64_t>(kVectorBytes / sizeof(A));
}

// The run of channel c in batch item i.
int64_t run_offset(Geometry g, int64_t i, int64_t c) { return (i * g.c + c) * g.s; }

// A per-channel vector repeated over each channel's S columns, for channels [cb, ce).
template <typename A>
void expand_to_columns(const A* per_channel, Geometry g, int64_t cb, int64_t ce, std::vector<A>& out) {
  out.resize((ce - cb) * g.s);
  for (int64_t c = cb; c < ce; ++c) std::fill_n(out.data() + (c - cb) * g.s, g.s, per_channel[c]);
}

// Sum the block's columns [0, width) into totals[c - cb], S columns per channel.
void columns_to_channels(const std::vector<double>& columns, int64_t s, int64_t cb, int64_t ce,
                         double* totals) {
  for (int64_t c = cb; c < ce; ++c) {
    double t = 0;
    for (int64_t k = 0; k < s; ++k) t += columns[(c - cb) * s + k];
    totals[c - cb] = t;
  }
}

template <typename T>
void stats_typed(const Tensor& mean_t, const Tensor& var_t, const Tensor& input) {
  using A = opmath_t<T>;
  constexpr bool kWiden = !std::is_same_v<T, A>;
  const Geometry g = geometry(input);
  const T* in = input.data<T>();
  A* mean = mean_t.data<A>();
  A* var = var_t.data<A>();
  const double count = static_cast<double>(g.n) * static_cast<double>(g.s);
  if (runs_fill_vectors<A>(g)) {
    parallel_for(0, g.c, grain_for(g.n * g.s), [&](int64_t cb, int64_t ce) {
      std::vector<A> buf(kWiden ? g.s : 0);
      for (int64_t c = cb; c < ce; ++c) {
        double s = 0;
        for (int64_t i = 0; i < g.n; ++i) {
          const A* x = row_values(in + run_offset(g, i, c), g.s, buf.data());
          s += fold_row<A>(g.s, [&](auto at) TANDEM_LAMBDA_INLINE { return at(x); });
        }
        const A m = static_cast<A>(s / count);
        double q = 0;
        for (int64_t i = 0; i < g.n; ++i) {
          const A* x = row_values(in + run_offset(g, i, c), g.s, buf.data());
          q += fold_row<A>(g.s, [&](auto at) TANDEM_LAMBDA_INLINE {
            auto d = at(x) - m;
            return d * d;
          });
        }
        mean[c] = m;
        var[c] = static_cast<A>(q / count);
      }
    });
    return;
  }
  parallel_for(0, g.c, grain_for(g.n * g.s), [&](int64_t cb, int64_t ce) {
    const int64_t width = (ce - cb) * g.s;
    std::vector<A> buf(kWiden ? width : 0), column_mean;
    std::vector<double> columns(width), totals(ce - cb);
    for (int64_t i = 0; i < g.n; ++i) {
      const A* x = row_values(in + run_offset(g, i, cb), width, buf.data());
      for (int64_t j = 0; j < width; ++j) columns[j] += x[j];
    }
    columns_to_channels(columns, g.s, cb, ce, totals.data());
    for (int64_t c = cb; c < ce; ++c) mean[c] = static_cast<A>(totals[c - cb] / count);
    expand_to_columns(mean, g, cb, ce, column_mean);
    std::fill(columns.begin(), columns.end(), 0.0);
    for (int64_t i = 0; i < g.n; ++i) {
      const A* x = row_values(in + run_offset(g, i, cb), width, buf.data());
      for (int64_t j = 0; j < width; ++j) {
        const A d = x[j] - column_mean[j];
        columns[j] += d * d;
      }
    }
    columns_to_channels(columns, g.s, cb, ce, totals.data());
    for (int64_t c = cb; c < ce; ++c) var[c] = static_cast<A>(totals[c - cb] / count);
  });
}

template <typename T>
void backward_reduce_typed(const Tensor& sum_dy_t, const Tensor& sum_dy_xmu_t, const Tensor& grad_out,
                           const Tensor& input, const Tensor& mean_t) {
  using A = opmath_t<T>;
  constexpr bool kWiden = !std::is_same_v<T, A>;
  const Geometry g = geometry(input);
  const T* in = input.data<T>();
  const T* go = grad_out.data<T>();
  const A* mean = mean_t.data<A>();
  A* sum_dy = sum_dy_t.data<A>();
  A* sum_dy_xmu = sum_dy_xmu_t.data<A>();
  if (runs_fill_vectors<A>(g)) {
    parallel_for(0, g.c, grain_for(g.n * g.s), [&](int64_t cb, int64_t ce) {
      std::vector<A> buf(kWiden ? 2 * g.s : 0);
      for (int64_t c = cb; c < ce; ++c) {
        const A m = mean[c];
        double s = 0, sx = 0;
        for (int64_t i = 0; i < g.n; ++i) {
          const A* x = row_values(in + run_offset(g, i, c), g.s, buf.data());
          const A* dy = row_values(go + run_offset(g, i, c), g.s, buf.data() + g.s);
          s += fold_row<A>(g.s, [&](auto at) TANDEM_LAMBDA_INLINE { return at(dy); });
          sx += fold_row<A>(g.s, [&](auto at) TANDEM_LAMBDA_INLINE { return at(dy) * (at(x) - m); });
        }
        sum_dy[c] = static_cast<A>(s);
        sum_dy_xmu[c] = static_cast<A>(sx);
      }
    });
    return;
  }
  parallel_for(0, g.c, grain_for(g.n * g.s), [&](int64_t cb, int64_t ce) {
    const int64_t width = (ce - cb) * g.s;
    std::vector<A> buf(kWiden ? 2 * width : 0), column_mean;
    expand_to_columns(mean, g, cb, ce, column_mean);
    std::vector<double> columns_dy(width), columns_dy_xmu(width), totals(ce - cb);
    for (int64_t i = 0; i < g.n; ++i) {
      const A* x = row_values(in + run_offset(g, i, cb), width, buf.data());
      const A* dy = row_values(go + run_offset(g, i, cb), width, buf.data() + width);
      for (int64_t j = 0; j < width; ++j) {
        columns_dy[j] += dy[j];
        columns_dy_xmu[j] += dy[j] * (x[j] - column_mean[j]);
      }
    }
    columns_to_channels(columns_dy, g.s, cb, ce, totals.data());
    for (int64_t c = cb; c < ce; ++c) sum_dy[c] = static_cast<A>(totals[c - cb]);
    columns_to_channels(columns_dy_xmu, g.s, cb, ce, totals.data());
    for (int64_t c = cb; c < ce; ++c) sum_dy_xmu[c] = static_cast<A>(totals[c - cb]);
  });
}

// The coefficients of one channel (a run) or of a row's columns (expanded per column).
template <typename A>
struct ChannelCoefficients {
  A a_, m_, b_, d_;
  A a(int64_t) const { return a_; }
  A m(int64_t) const { return m_; }
  A b(int64_t) const { return b_; }
  A d(int64_t) const { return d_; }
};
template <typename A>
struct ColumnCoefficients {
  const A *a_, *m_, *b_, *d_;
  A a(int64_t j) const { return a_[j]; }
  A m(int64_t j) const { return m_[j]; }
  A b(int64_t j) const { return b_[j]; }
  A d(int64_t j) const { return d_[j]; }
};

// out = p a + (q - m) b + d over n values; p or q may be null (its term left out).
template <typename A, typename Coefficients>
[[gnu::flatten]] void combine_values(A* __restrict out, const A* __restrict p, const A* __restrict q,
                                     int64_t n, const Coefficients& k) {
  if (p && q) {
    for (int64_t j = 0; j < n; ++j)
      out[j] = BatchNormMath<A>::combine(p[j], k.a(j), q[j], k.m(j), k.b(j), k.d(j));
  } else if (q) {
    for (int64_t j = 0; j < n; ++j) out[j] = BatchNormMath<A>::centred(q[j], k.m(j), k.b(j), k.d(j));
  } else {
    for (int64_t j = 0; j < n; ++j) out[j] = BatchNormMath<A>::scaled(p[j], k.a(j), k.d(j));
  }
}

template <typename T>
void elemt_typed(const Tensor& out_t, const Tensor& p_t, const Tensor& a_t, const Tensor& q_t,
                 const Tensor& m_t, const Tensor& b_t, const Tensor& d_t) {
  using A = opmath_t<T>;
  constexpr bool kWiden = !std::is_same_v<T, A>;
  const Geometry g = geometry(out_t);
  T* out = out_t.data<T>();
  const T* p = p_t.defined() ? p_t.data<T>() : nullptr;
  const T* q = q_t.defined() ? q_t.data<T>() : nullptr;
  // An absent term's coefficients are never read; zeros keep every pointer valid.
  const std::vector<A> zeros(g.c, A(0));
  const A* a = p ? a_t.data<A>() : zeros.data();
  const A* m = q ? m_t.data<A>() : zeros.data();
  const A* b = q ? b_t.data<A>() : zeros.data();
  const A* d = d_t.data<A>();
  if (runs_fill_vectors<A>(g)) {
    parallel_for(0, g.n * g.c, grain_for(g.s), [&](int64_t rb, int64_t re) {
      std::vector<A> buf(kWiden ? 3 * g.s : 0);
      for (int64_t r = rb; r < re; ++r) {
        const int64_t c = r % g.c;
        const A* pv = p ? row_values(p + r * g.s, g.s, buf.data()) : nullptr;
        const A* qv = q ? row_values(q + r * g.s, g.s, buf.data() + g.s) : nullptr;
        A* dst = row_destination(out + r * g.s, buf.data() + 2 * g.s);
        combine_values(dst, pv, qv, g.s, ChannelCoefficients<A>{a[c], m[c], b[c], d[c]});
        store_row(dst, out + r * g.s, g.s);
      }
    });
    return;
  }
  const int64_t width = g.c * g.s;
  std::vector<A> columns[4];
  for (auto [per_channel, k] : {std::pair{a, 0}, std::pair{m, 1}, std::pair{b, 2}, std::pair{d, 3}})
    expand_to_columns(per_channel, g, 0, g.c, columns[k]);
  const ColumnCoefficients<A> coefficients{columns[0].data(), columns[1].data(), columns[2].data(),
                                           columns[3].data()};
  parallel_for(0, g.n, grain_for(width), [&](int64_t ib, int64_t ie) {
    std::vector<A> buf(kWiden ? 3 * width : 0);
    for (int64_t i = ib; i < ie; ++i) {
      const A* pv = p ? row_values(p + i * width, width, buf.data()) : nullptr;
      const A* qv = q ? row_values(q + i * width, width, buf.data() + width) : nullptr;
      A* dst = row_destination(out + i * width, buf.data() + 2 * width);
      combine_values(dst, pv, qv, width, coefficients);
      store_row(dst, out + i * width, width);
    }
  });
}

void batch_norm_stats(const Tensor& mean, const Tensor& var, const Tensor& input) {
  dispatch_floating(input.dtype(),
                    [&](auto tag) { stats_typed<typename decltype(tag)::type>(mean, var, input); });
}

void batch_norm_backward_reduce(const Tensor& sum_dy, const Tensor& sum_dy_xmu, const Tensor& grad_out,
                                const Tensor& input, const Tensor& mean) {
  dispatch_floating(input.dtype(), [&](auto tag) {
    backward_reduce_typed<typename decltype(tag)::type>(sum_dy, sum_dy_xmu, grad_out, input, mean);
  });
}

void batch_norm_elemt(const Tensor& out, const Tensor& p, const Tensor& a, const Tensor& q, const Tensor& m,
                      const Tensor& b, const Tensor& d) {
  dispatch_floating(out.dtype(),
                    [&](auto tag) { elemt_typed<typename decltype(tag)::type>(out, p, a, q, m, b, d); });
}

}  // namespace

void register_batch_norm_kernels(KernelTable& table) {
  table.nn.batch_norm_stats = &batch_norm_stats;
  table.nn.batch_norm_backward_reduce = &batch_norm_backward_reduce;
  table.nn.batch_norm_elemt = &batch_norm_elemt;
}

TANDEM_CPU_KERNELS_END
