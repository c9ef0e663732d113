// CPU layer normalisation: the nn family's layer_norm slots (contract in kernels/nn_kernels.h, per-element
// math in kernels/norm_functors.h). A row takes three passes over data that stays in L1 (sum, sum of squared
// deviations, write) instead of the composite's seven full-tensor ops and four temporaries; rows are split
// across threads. The backward pass takes two sums and one write per row for the input gradient, and folds
// the weight and bias gradients into one partial row per block of rows, summed in block order, so the result
// does not depend on the number of threads.
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

// Rows per thread chunk: about 64K elements, so a small batch stays on one thread.
int64_t row_grain(int64_t n) { return std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(n, 1)); }

// Blocks of rows whose weight and bias gradients are folded separately: a fixed count (not one per thread)
// keeps the sums' order, and so the result, the same at every thread count.
constexpr int64_t kMaxGradBlocks = 32;

template <typename A>
[[gnu::flatten]] void normalize_row(const A* __restrict x, int64_t n, A mean, A rstd, const A* __restrict w,
                                    const A* __restrict b, A* __restrict y) {
  for (int64_t i = 0; i < n; ++i)
    y[i] = LayerNormMath<A>::affine(LayerNormMath<A>::normalized(x[i], mean, rstd), w[i], b[i]);
}

template <typename T>
void layer_norm_typed(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& input,
                      const Tensor& weight, const Tensor& bias, double eps) {
  using A = opmath_t<T>;
  constexpr bool kWiden = !std::is_same_v<T, A>;
  const int64_t rows = input.sizes()[0], n = input.sizes()[1];
  std::vector<A> w_buf, b_buf;
  const A* w = affine_values<T>(weight, n, A(1), w_buf);
  const A* b = affine_values<T>(bias, n, A(0), b_buf);
  const T* in = input.data<T>();
  T* y = out.data<T>();
  A* mean_p = mean.data<A>();
  A* rstd_p = rstd.data<A>();
  parallel_for(0, rows, row_grain(n), [&](int64_t rb, int64_t re) {
    std::vector<A> buf(kWiden ? 2 * n : 0);
    for (int64_t r = rb; r < re; ++r) {
      const A* x = row_values(in + r * n, n, buf.data());
      const A m = static_cast<A>(fold_row<A>(n, [&](auto at) TANDEM_LAMBDA_INLINE { return at(x); }) / n);
      const double var = fold_row<A>(n,
                                     [&](auto at) TANDEM_LAMBDA_INLINE {
                                       auto d = at(x) - m;
                                       return d * d;
                                     }) /
                         n;
      const A rs = LayerNormMath<A>::rstd(static_cast<A>(var), static_cast<A>(eps));
      mean_p[r] = m;
      rstd_p[r] = rs;
      A* dst = row_destination(y + r * n, buf.data() + n);
      normalize_row(x, n, m, rs, w, b, dst);
      store_row(dst, y + r * n, n);
    }
  });
}

// dx of one row (when dx is not null) and its terms of the weight and bias gradients, added to gw and gb
// (when they are not null: neither gradient was asked for).
template <typename A>
[[gnu::flatten]] void backward_row(const A* __restrict dy, const A* __restrict x, const A* __restrict w,
                                   int64_t n, A mean, A rstd, A* __restrict dx, A* __restrict gw,
                                   A* __restrict gb) {
  if (dx) {
    const A mean_g =
        static_cast<A>(fold_row<A>(n, [&](auto at) TANDEM_LAMBDA_INLINE { return at(dy) * at(w); }) / n);
    const A mean_gx =
        static_cast<A>(fold_row<A>(n,
                                   [&](auto at) TANDEM_LAMBDA_INLINE {
                                     return at(dy) * at(w) * LayerNormMath<A>::normalized(at(x), mean, rstd);
                                   }) /
                       n);
    for (int64_t i = 0; i < n; ++i)
      dx[i] = LayerNormMath<A>::input_grad(dy[i] * w[i], LayerNormMath<A>::normalized(x[i], mean, rstd), rstd,
                                           mean_g, mean_gx);
  }
  if (!gw) return;
  for (int64_t i = 0; i < n; ++i) {
    gw[i] += dy[i] * LayerNormMath<A>::normalized(x[i], mean, rstd);
    gb[i] += dy[i];
  }
}

template <typename T>
void layer_norm_backward_typed(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                               const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                               const Tensor& rstd, const Tensor& weight) {
  using A = opmath_t<T>;
  constexpr bool kWiden = !std::is_same_v<T, A>;
  const int64_t rows = input.sizes()[0], n = input.sizes()[1];
  std::vector<A> w_buf;
  const A* w = affine_values<T>(weight, n, A(1), w_buf);
  const T* in = input.data<T>();
  const T* go = grad_out.data<T>();
  T* gi = grad_input.defined() ? grad_input.data<T>() : nullptr;
  const A* mean_p = mean.data<A>();
  const A* rstd_p = rstd.data<A>();
  const int64_t grain = row_grain(n);
  const int64_t blocks = std::clamp<int64_t>((rows + grain - 1) / grain, 1, kMaxGradBlocks);
  const int64_t rows_per_block = (rows + blocks - 1) / blocks;
  // Each block's weight and bias gradient terms, n of each (none when neither gradient is asked for: a
  // layer_norm without affine parameters, group_norm's normalisation).
  const bool affine_grads = grad_weight.defined() || grad_bias.defined();
  std::vector<A> partial(affine_grads ? static_cast<size_t>(blocks) * 2 * n : 0, A(0));
  parallel_for(0, blocks, 1, [&](int64_t bb, int64_t be) {
    std::vector<A> buf(kWiden ? 3 * n : 0);
    for (int64_t blk = bb; blk < be; ++blk) {
      A* gw = affine_grads ? partial.data() + blk * 2 * n : nullptr;
      A* gb = affine_grads ? gw + n : nullptr;
      for (int64_t r = blk * rows_per_block; r < std::min(rows, (blk + 1) * rows_per_block); ++r) {
        const A* x = row_values(in + r * n, n, buf.data());
        const A* dy = row_values(go + r * n, n, buf.data() + n);
        A* dx = gi ? row_destination(gi + r * n, buf.data() + 2 * n) : nullptr;
        backward_row(dy, x, w, n, mean_p[r], rstd_p[r], dx, gw, gb);
        if (gi) store_row(dx, gi + r * n, n);
      }
    }
  });
  // The blocks' terms, summed in block order: offset 0 in a block's partial row is the weight's, n the
  // bias's.
  auto sum_blocks = [&](const Tensor& grad, int64_t offset) {
    if (!grad.defined()) return;
    T* g = grad.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      A s = 0;
      for (int64_t blk = 0; blk < blocks; ++blk) s += partial[blk * 2 * n + offset + i];
      g[i] = static_cast<T>(s);
    }
  };
  sum_blocks(grad_weight, 0);
  sum_blocks(grad_bias, n);
}

void layer_norm(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& input,
                const Tensor& weight, const Tensor& bias, double eps) {
  dispatch_floating(input.dtype(), [&](auto tag) {
    layer_norm_typed<typename decltype(tag)::type>(out, mean, rstd, input, weight, bias, eps);
  });
}

void layer_norm_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                         const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& rstd,
                         const Tensor& weight) {
  dispatch_floating(input.dtype(), [&](auto tag) {
    layer_norm_backward_typed<typename decltype(tag)::type>(grad_input, grad_weight, grad_bias, grad_out,
                                                            input, mean, rstd, weight);
  });
}

}  // namespace

void register_norm_kernels(KernelTable& table) {
  table.nn.layer_norm = &layer_norm;
  table.nn.layer_norm_backward = &layer_norm_backward;
}

TANDEM_CPU_KERNELS_END
