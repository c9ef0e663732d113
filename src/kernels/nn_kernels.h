// Kernel slots of the nn family (filled per device type at backend registration): the memory-bound parts of
// convolution and pooling, and the fused optimizer updates. Every tensor is contiguous and already allocated;
// the front ends in ops/conv.cpp, ops/pool.cpp and ops/optim.cpp check shapes, dtypes and devices.
#pragma once
#include "core/tensor.h"

namespace tandem {

// The geometry of a 2-D sliding window over an N x C x H x W input producing OH x OW positions.
struct Window2d {
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t oh = 0, ow = 0;
  int64_t kh = 1, kw = 1;
  int64_t sh = 1, sw = 1;
  int64_t ph = 0, pw = 0;
  int64_t dh = 1, dw = 1;
};

// Hyper-parameters of one optimizer step on one tensor (the step count already incremented).
struct SgdConfig {
  double lr = 0, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false, maximize = false;
  bool first_step = false;  // the momentum buffer is initialised to the gradient
};
struct AdamConfig {
  double lr = 0, beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0;
  int64_t step = 1;
  bool amsgrad = false, maximize = false;
  bool decoupled_weight_decay = false;  // AdamW
};

// cols[(c, ky, kx), (n, oy, ox)] = input[n, c, oy*sh - ph + ky*dh, ox*sw - pw + kx*dw] (0 outside).
using Im2colKernel = void (*)(const Tensor& cols, const Tensor& input, const Window2d& g);
// The adjoint: grad_input (zeroed by the kernel) accumulates every column entry at its input position.
using Col2imKernel = void (*)(const Tensor& grad_input, const Tensor& cols, const Window2d& g);
// Max over each window (padding never wins); `indices` (int64) gets the flat h*w position of the max.
using MaxPool2dKernel = void (*)(const Tensor& out, const Tensor& indices, const Tensor& input,
                                 const Window2d& g);
using MaxPool2dBackwardKernel = void (*)(const Tensor& grad_input, const Tensor& grad_out,
                                         const Tensor& indices, const Window2d& g);
// Mean over each window; the divisor counts padding when count_include_pad.
using AvgPool2dKernel = void (*)(const Tensor& out, const Tensor& input, const Window2d& g,
                                 bool count_include_pad);
using AvgPool2dBackwardKernel = void (*)(const Tensor& grad_input, const Tensor& grad_out, const Window2d& g,
                                         bool count_include_pad);
// Output cell (i, j) averages rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the same for columns.
using AdaptiveAvgPool2dKernel = void (*)(const Tensor& out, const Tensor& input, const Window2d& g);
using AdaptiveAvgPool2dBackwardKernel = void (*)(const Tensor& grad_input, const Tensor& grad_out,
                                                 const Window2d& g);
// In-place updates of `param` (and the state tensors) from `grad`; all have param's dtype and shape.
using SgdStepKernel = void (*)(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                               const SgdConfig& cfg);
using AdamStepKernel = void (*)(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
                                const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq,
                                const AdamConfig& cfg);

// The fused recurrent cells (ops/rnn_cell.h, math in kernels/rnn_functors.h). All tensors are contiguous, of
// one floating dtype, with N rows: gates (N, 4H) and x_proj/h_proj (N, 3H) in PyTorch's gate order, the rest
// (N, H).
using LstmCellKernel = void (*)(const Tensor& h, const Tensor& c, const Tensor& gates, const Tensor& c_prev);
// grad_c may be undefined (no gradient reached the new cell state).
using LstmCellBackwardKernel = void (*)(const Tensor& grad_gates, const Tensor& grad_c_prev,
                                        const Tensor& gates, const Tensor& c_prev, const Tensor& grad_h,
                                        const Tensor& grad_c);
using GruCellKernel = void (*)(const Tensor& h_new, const Tensor& x_proj, const Tensor& h_proj,
                               const Tensor& h);
using GruCellBackwardKernel = void (*)(const Tensor& grad_x_proj, const Tensor& grad_h_proj,
                                       const Tensor& grad_h, const Tensor& x_proj, const Tensor& h_proj,
                                       const Tensor& h, const Tensor& grad);

// Layer normalisation of M contiguous rows of N elements (ops/norm.h, math in kernels/norm_functors.h).
// input, out, grad_out, grad_input: (M, N); weight, bias, grad_weight, grad_bias: (N) of input's dtype, each
// may be undefined (no weight: 1, no bias: 0; an undefined gradient is not computed); mean and rstd: (M) of
// the accumulation dtype (float for 16-bit floats), written by the forward kernel, read by the backward.
using LayerNormKernel = void (*)(const Tensor& out, const Tensor& mean, const Tensor& rstd,
                                 const Tensor& input, const Tensor& weight, const Tensor& bias, double eps);
using LayerNormBackwardKernel = void (*)(const Tensor& grad_input, const Tensor& grad_weight,
                                         const Tensor& grad_bias, const Tensor& grad_out, const Tensor& input,
                                         const Tensor& mean, const Tensor& rstd, const Tensor& weight);

// Batch normalisation over an input viewed as (N, C, S), contiguous: channel c's values are S contiguous
// elements in each of the N batch items (ops/batch_norm.h; math in kernels/norm_functors.h). The per-channel
// vectors (mean, var, sums, and the coefficients a, m, b, d) are (C) of the accumulation dtype.
// stats: mean and biased variance of each channel over its N * S values (two passes, so a large mean
// cancels).
using BatchNormStatsKernel = void (*)(const Tensor& mean, const Tensor& var, const Tensor& input);
// backward_reduce: sum_dy[c] = sum of grad_out, sum_dy_xmu[c] = sum of grad_out * (input - mean[c]).
using BatchNormBackwardReduceKernel = void (*)(const Tensor& sum_dy, const Tensor& sum_dy_xmu,
                                               const Tensor& grad_out, const Tensor& input,
                                               const Tensor& mean);
// elemt: out = p a[c] + (q - m[c]) b[c] + d[c] (BatchNormMath::combine); p with a, or q with m and b, may be
// undefined (that term is left out).
using BatchNormElemtKernel = void (*)(const Tensor& out, const Tensor& p, const Tensor& a, const Tensor& q,
                                      const Tensor& m, const Tensor& b, const Tensor& d);

// The slots, listed in kernels/kernel_slots.def.
struct NnKernels {
#define TANDEM_NN_SLOT(name, Type) Type name = nullptr;
#include "kernels/kernel_slots.def"
#undef TANDEM_NN_SLOT
};

}  // namespace tandem
