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

struct NnKernels {
  // cols[(c, ky, kx), (n, oy, ox)] = input[n, c, oy*sh - ph + ky*dh, ox*sw - pw + kx*dw] (0 outside).
  void (*im2col)(const Tensor& cols, const Tensor& input, const Window2d& g) = nullptr;
  // The adjoint: grad_input (zeroed by the kernel) accumulates every column entry at its input position.
  void (*col2im)(const Tensor& grad_input, const Tensor& cols, const Window2d& g) = nullptr;
  // Max over each window (padding never wins); `indices` (int64) gets the flat h*w position of the max.
  void (*max_pool2d)(const Tensor& out, const Tensor& indices, const Tensor& input,
                     const Window2d& g) = nullptr;
  void (*max_pool2d_backward)(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices,
                              const Window2d& g) = nullptr;
  // Mean over each window; the divisor counts padding when count_include_pad.
  void (*avg_pool2d)(const Tensor& out, const Tensor& input, const Window2d& g,
                     bool count_include_pad) = nullptr;
  void (*avg_pool2d_backward)(const Tensor& grad_input, const Tensor& grad_out, const Window2d& g,
                              bool count_include_pad) = nullptr;
  // Output cell (i, j) averages rows [floor(i*H/OH), ceil((i+1)*H/OH)) and the same for columns.
  void (*adaptive_avg_pool2d)(const Tensor& out, const Tensor& input, const Window2d& g) = nullptr;
  void (*adaptive_avg_pool2d_backward)(const Tensor& grad_input, const Tensor& grad_out,
                                       const Window2d& g) = nullptr;
  // In-place updates of `param` (and the state tensors) from `grad`; all have param's dtype and shape.
  void (*sgd_step)(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
                   const SgdConfig& cfg) = nullptr;
  void (*adam_step)(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                    const Tensor& max_exp_avg_sq, const AdamConfig& cfg) = nullptr;
};

}  // namespace tandem
