// CPU kernels of the fused recurrent cells: one pass over the N x H state per step, running the per-element
// math shared with CUDA (kernels/rnn_functors.h). Rows are split across threads; each row's loop over H reads
// the gate blocks at their offsets (H apart), so no gate is ever copied out.
#include <algorithm>

#include "core/parallel.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/rnn_kernels.h"
#include "kernels/floating_dispatch.h"
#include "kernels/kernel_table.h"
#include "kernels/rnn_functors.h"
#include "kernels/vector_libm.h"  // the cells' exp/tanh as libmvec vector calls (without it: a libm call per element)

TANDEM_CPU_KERNELS_BEGIN

namespace {

// Rows per thread chunk: ~64K elements. A step of batch 64, hidden 256 (16K elements, ~0.1 ms) stays on one
// thread: waking OpenMP workers between the BLAS calls of every step cost more than it saved at 2 threads.
int64_t row_grain(int64_t hidden) { return std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(hidden, 1)); }

// One row of each cell, flattened so that the gate math (kernel_sigmoidf/tanhf: libmvec's vector calls or the
// branch-free versions, kernels/vector_math.h) is inlined and the loop over j vectorises; a row's gate blocks
// are H apart.
template <typename T>
[[gnu::flatten]] void lstm_row(const T* __restrict g, const T* __restrict c_prev, T* __restrict h,
                               T* __restrict c, int64_t H) {
  using Acc = opmath_t<T>;
  for (int64_t j = 0; j < H; ++j) {
    Acc hv, cv;
    LstmCellMath<Acc>::forward(static_cast<Acc>(g[j]), static_cast<Acc>(g[H + j]),
                               static_cast<Acc>(g[2 * H + j]), static_cast<Acc>(g[3 * H + j]),
                               static_cast<Acc>(c_prev[j]), hv, cv);
    h[j] = static_cast<T>(hv);
    c[j] = static_cast<T>(cv);
  }
}

// kGradC: a gradient reached the new cell state (otherwise it counts as zero).
template <typename T, bool kGradC>
[[gnu::flatten]] void lstm_backward_row(const T* __restrict g, const T* __restrict c_prev,
                                        const T* __restrict gh, const T* __restrict gc, T* __restrict dg,
                                        T* __restrict dc, int64_t H) {
  using Acc = opmath_t<T>;
  for (int64_t j = 0; j < H; ++j) {
    Acc di, df, dgg, d_o, dcv;
    LstmCellMath<Acc>::backward(static_cast<Acc>(g[j]), static_cast<Acc>(g[H + j]),
                                static_cast<Acc>(g[2 * H + j]), static_cast<Acc>(g[3 * H + j]),
                                static_cast<Acc>(c_prev[j]), static_cast<Acc>(gh[j]),
                                kGradC ? static_cast<Acc>(gc[j]) : Acc(0), di, df, dgg, d_o, dcv);
    dg[j] = static_cast<T>(di);
    dg[H + j] = static_cast<T>(df);
    dg[2 * H + j] = static_cast<T>(dgg);
    dg[3 * H + j] = static_cast<T>(d_o);
    dc[j] = static_cast<T>(dcv);
  }
}

template <typename T>
[[gnu::flatten]] void gru_row(const T* __restrict x, const T* __restrict hh, const T* __restrict h,
                              T* __restrict out, int64_t H) {
  using Acc = opmath_t<T>;
  for (int64_t j = 0; j < H; ++j)
    out[j] = static_cast<T>(GruCellMath<Acc>::forward(
        static_cast<Acc>(x[j]), static_cast<Acc>(x[H + j]), static_cast<Acc>(x[2 * H + j]),
        static_cast<Acc>(hh[j]), static_cast<Acc>(hh[H + j]), static_cast<Acc>(hh[2 * H + j]),
        static_cast<Acc>(h[j])));
}

template <typename T>
[[gnu::flatten]] void gru_backward_row(const T* __restrict x, const T* __restrict hh, const T* __restrict h,
                                       const T* __restrict grad, T* __restrict dx, T* __restrict dhh,
                                       T* __restrict dh, int64_t H) {
  using Acc = opmath_t<T>;
  for (int64_t j = 0; j < H; ++j) {
    Acc dr, dz, dxn, dhn, dhv;
    GruCellMath<Acc>::backward(static_cast<Acc>(x[j]), static_cast<Acc>(x[H + j]),
                               static_cast<Acc>(x[2 * H + j]), static_cast<Acc>(hh[j]),
                               static_cast<Acc>(hh[H + j]), static_cast<Acc>(hh[2 * H + j]),
                               static_cast<Acc>(h[j]), static_cast<Acc>(grad[j]), dr, dz, dxn, dhn, dhv);
    dx[j] = dhh[j] = static_cast<T>(dr);
    dx[H + j] = dhh[H + j] = static_cast<T>(dz);
    dx[2 * H + j] = static_cast<T>(dxn);
    dhh[2 * H + j] = static_cast<T>(dhn);
    dh[j] = static_cast<T>(dhv);
  }
}

void lstm_cell(const Tensor& h, const Tensor& c, const Tensor& gates, const Tensor& c_prev) {
  const int64_t rows = c.sizes()[0], H = c.sizes()[1];
  dispatch_floating(c.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* gp = gates.data<T>();
    const T* cp = c_prev.data<T>();
    T* hp = h.data<T>();
    T* cn = c.data<T>();
    parallel_for(0, rows, row_grain(H), [=](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) lstm_row(gp + r * 4 * H, cp + r * H, hp + r * H, cn + r * H, H);
    });
  });
}

void lstm_cell_backward(const Tensor& grad_gates, const Tensor& grad_c_prev, const Tensor& gates,
                        const Tensor& c_prev, const Tensor& grad_h, const Tensor& grad_c) {
  const int64_t rows = c_prev.sizes()[0], H = c_prev.sizes()[1];
  dispatch_floating(c_prev.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* gp = gates.data<T>();
    const T* cp = c_prev.data<T>();
    const T* ghp = grad_h.data<T>();
    const T* gcp = grad_c.defined() ? grad_c.data<T>() : nullptr;
    T* dgp = grad_gates.data<T>();
    T* dcp = grad_c_prev.data<T>();
    parallel_for(0, rows, row_grain(H), [=](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        if (gcp)
          lstm_backward_row<T, true>(gp + r * 4 * H, cp + r * H, ghp + r * H, gcp + r * H, dgp + r * 4 * H,
                                     dcp + r * H, H);
        else
          lstm_backward_row<T, false>(gp + r * 4 * H, cp + r * H, ghp + r * H, nullptr, dgp + r * 4 * H,
                                      dcp + r * H, H);
      }
    });
  });
}

void gru_cell(const Tensor& h_new, const Tensor& x_proj, const Tensor& h_proj, const Tensor& h) {
  const int64_t rows = h.sizes()[0], H = h.sizes()[1];
  dispatch_floating(h.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x_proj.data<T>();
    const T* hp = h_proj.data<T>();
    const T* hs = h.data<T>();
    T* out = h_new.data<T>();
    parallel_for(0, rows, row_grain(H), [=](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) gru_row(xp + r * 3 * H, hp + r * 3 * H, hs + r * H, out + r * H, H);
    });
  });
}

void gru_cell_backward(const Tensor& grad_x_proj, const Tensor& grad_h_proj, const Tensor& grad_h,
                       const Tensor& x_proj, const Tensor& h_proj, const Tensor& h, const Tensor& grad) {
  const int64_t rows = h.sizes()[0], H = h.sizes()[1];
  dispatch_floating(h.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x_proj.data<T>();
    const T* hp = h_proj.data<T>();
    const T* hs = h.data<T>();
    const T* gp = grad.data<T>();
    T* dxp = grad_x_proj.data<T>();
    T* dhp = grad_h_proj.data<T>();
    T* dhs = grad_h.data<T>();
    parallel_for(0, rows, row_grain(H), [=](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r)
        gru_backward_row(xp + r * 3 * H, hp + r * 3 * H, hs + r * H, gp + r * H, dxp + r * 3 * H,
                         dhp + r * 3 * H, dhs + r * H, H);
    });
  });
}

}  // namespace

void register_rnn_kernels(KernelTable& table) {
  NnKernels& k = table.nn;
  k.lstm_cell = &lstm_cell;
  k.lstm_cell_backward = &lstm_cell_backward;
  k.gru_cell = &gru_cell;
  k.gru_cell_backward = &gru_cell_backward;
}

TANDEM_CPU_KERNELS_END
