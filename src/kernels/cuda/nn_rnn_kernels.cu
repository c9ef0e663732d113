// The fused recurrent cells on CUDA: one thread per (row, hidden unit), running the per-element math shared
// with the CPU loop (kernels/rnn_functors.h).
#include "kernels/cuda/flat_launch.cuh"
#include "kernels/cuda/nn_parts.h"
#include "kernels/nn_kernels.h"
#include "kernels/rnn_functors.h"

namespace tandem::cuda {

namespace {

template <typename T>
__global__ void lstm_cell_kernel(T* __restrict__ h, T* __restrict__ c, const T* __restrict__ gates,
                                 const T* __restrict__ c_prev, int64_t n, int64_t H) {
  using Acc = opmath_t<T>;
  for (int64_t i = flat_begin(); i < n; i += flat_stride()) {
    const T* g = gates + (i / H) * 4 * H + i % H;
    Acc hv, cv;
    LstmCellMath<Acc>::forward(static_cast<Acc>(g[0]), static_cast<Acc>(g[H]), static_cast<Acc>(g[2 * H]),
                               static_cast<Acc>(g[3 * H]), static_cast<Acc>(c_prev[i]), hv, cv);
    h[i] = static_cast<T>(hv);
    c[i] = static_cast<T>(cv);
  }
}

template <typename T>
__global__ void lstm_cell_backward_kernel(T* __restrict__ grad_gates, T* __restrict__ grad_c_prev,
                                          const T* __restrict__ gates, const T* __restrict__ c_prev,
                                          const T* __restrict__ grad_h, const T* __restrict__ grad_c,
                                          int64_t n, int64_t H) {
  using Acc = opmath_t<T>;
  for (int64_t i = flat_begin(); i < n; i += flat_stride()) {
    const int64_t at = (i / H) * 4 * H + i % H;
    const T* g = gates + at;
    T* dg = grad_gates + at;
    Acc di, df, dgg, d_o, dc;
    LstmCellMath<Acc>::backward(static_cast<Acc>(g[0]), static_cast<Acc>(g[H]), static_cast<Acc>(g[2 * H]),
                                static_cast<Acc>(g[3 * H]), static_cast<Acc>(c_prev[i]),
                                static_cast<Acc>(grad_h[i]), grad_c ? static_cast<Acc>(grad_c[i]) : Acc(0),
                                di, df, dgg, d_o, dc);
    dg[0] = static_cast<T>(di);
    dg[H] = static_cast<T>(df);
    dg[2 * H] = static_cast<T>(dgg);
    dg[3 * H] = static_cast<T>(d_o);
    grad_c_prev[i] = static_cast<T>(dc);
  }
}

template <typename T>
__global__ void gru_cell_kernel(T* __restrict__ h_new, const T* __restrict__ x_proj,
                                const T* __restrict__ h_proj, const T* __restrict__ h, int64_t n, int64_t H) {
  using Acc = opmath_t<T>;
  for (int64_t i = flat_begin(); i < n; i += flat_stride()) {
    const int64_t at = (i / H) * 3 * H + i % H;
    const T* x = x_proj + at;
    const T* hh = h_proj + at;
    h_new[i] = static_cast<T>(GruCellMath<Acc>::forward(
        static_cast<Acc>(x[0]), static_cast<Acc>(x[H]), static_cast<Acc>(x[2 * H]), static_cast<Acc>(hh[0]),
        static_cast<Acc>(hh[H]), static_cast<Acc>(hh[2 * H]), static_cast<Acc>(h[i])));
  }
}

template <typename T>
__global__ void gru_cell_backward_kernel(T* __restrict__ grad_x_proj, T* __restrict__ grad_h_proj,
                                         T* __restrict__ grad_h, const T* __restrict__ x_proj,
                                         const T* __restrict__ h_proj, const T* __restrict__ h,
                                         const T* __restrict__ grad, int64_t n, int64_t H) {
  using Acc = opmath_t<T>;
  for (int64_t i = flat_begin(); i < n; i += flat_stride()) {
    const int64_t at = (i / H) * 3 * H + i % H;
    const T* x = x_proj + at;
    const T* hh = h_proj + at;
    Acc dr, dz, dxn, dhn, dh;
    GruCellMath<Acc>::backward(static_cast<Acc>(x[0]), static_cast<Acc>(x[H]), static_cast<Acc>(x[2 * H]),
                               static_cast<Acc>(hh[0]), static_cast<Acc>(hh[H]), static_cast<Acc>(hh[2 * H]),
                               static_cast<Acc>(h[i]), static_cast<Acc>(grad[i]), dr, dz, dxn, dhn, dh);
    grad_x_proj[at] = grad_h_proj[at] = static_cast<T>(dr);
    grad_x_proj[at + H] = grad_h_proj[at + H] = static_cast<T>(dz);
    grad_x_proj[at + 2 * H] = static_cast<T>(dxn);
    grad_h_proj[at + 2 * H] = static_cast<T>(dhn);
    grad_h[i] = static_cast<T>(dh);
  }
}

void lstm_cell(const Tensor& h, const Tensor& c, const Tensor& gates, const Tensor& c_prev) {
  const int64_t n = c.numel(), H = c.sizes()[1];
  launch_flat_floating(c, [&](auto tag, auto blocks, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    lstm_cell_kernel<T><<<blocks, kFlatBlock, 0, stream>>>(h.data<T>(), c.data<T>(), gates.data<T>(),
                                                           c_prev.data<T>(), n, H);
  });
}

void lstm_cell_backward(const Tensor& grad_gates, const Tensor& grad_c_prev, const Tensor& gates,
                        const Tensor& c_prev, const Tensor& grad_h, const Tensor& grad_c) {
  const int64_t n = c_prev.numel(), H = c_prev.sizes()[1];
  launch_flat_floating(grad_c_prev, [&](auto tag, auto blocks, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    lstm_cell_backward_kernel<T><<<blocks, kFlatBlock, 0, stream>>>(
        grad_gates.data<T>(), grad_c_prev.data<T>(), gates.data<T>(), c_prev.data<T>(), grad_h.data<T>(),
        grad_c.defined() ? grad_c.data<T>() : nullptr, n, H);
  });
}

void gru_cell(const Tensor& h_new, const Tensor& x_proj, const Tensor& h_proj, const Tensor& h) {
  const int64_t n = h.numel(), H = h.sizes()[1];
  launch_flat_floating(h_new, [&](auto tag, auto blocks, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    gru_cell_kernel<T><<<blocks, kFlatBlock, 0, stream>>>(h_new.data<T>(), x_proj.data<T>(), h_proj.data<T>(),
                                                          h.data<T>(), n, H);
  });
}

void gru_cell_backward(const Tensor& grad_x_proj, const Tensor& grad_h_proj, const Tensor& grad_h,
                       const Tensor& x_proj, const Tensor& h_proj, const Tensor& h, const Tensor& grad) {
  const int64_t n = h.numel(), H = h.sizes()[1];
  launch_flat_floating(grad_h, [&](auto tag, auto blocks, cudaStream_t stream) {
    using T = typename decltype(tag)::type;
    gru_cell_backward_kernel<T><<<blocks, kFlatBlock, 0, stream>>>(
        grad_x_proj.data<T>(), grad_h_proj.data<T>(), grad_h.data<T>(), x_proj.data<T>(), h_proj.data<T>(),
        h.data<T>(), grad.data<T>(), n, H);
  });
}

}  // namespace

void register_rnn_kernels(NnKernels& k) {
  k.lstm_cell = &lstm_cell;
  k.lstm_cell_backward = &lstm_cell_backward;
  k.gru_cell = &gru_cell;
  k.gru_cell_backward = &gru_cell_backward;
}

}  // namespace tandem::cuda
