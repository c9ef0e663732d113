// The fused updates of RMSprop, Adagrad, Adadelta, Adamax, NAdam and RAdam: one kernel slot for all six (the
// loop is the same; the per-element math is a functor per optimizer in kernels/optim_functors.h).
//
// The slot lives in its own small per-device table rather than in kernels/kernel_slots.def so that adding it
// does not rebuild every file that includes the kernel table; it is filled by the same registration calls
// as the SGD/Adam slots (kernels/cpu/optim_kernels.cpp, kernels/cuda/nn_optim_kernels.cu).
#pragma once
#include "core/device.h"
#include "core/tensor.h"

namespace tandem {

enum class OptimKind : int8_t { Rmsprop, Adagrad, Adadelta, Adamax, Nadam, Radam };

// Hyper-parameters of one step on one tensor, as the Python optimizer holds them; the functors' from_config
// turns them (and `step`, already incremented) into the per-step scalars, in double as PyTorch's Python code
// computes them.
struct OptimStepConfig {
  OptimKind kind = OptimKind::Rmsprop;
  double lr = 0, weight_decay = 0, eps = 0;
  double alpha = 0;  // RMSprop's alpha, Adadelta's rho
  double beta1 = 0, beta2 = 0;
  double momentum = 0;        // RMSprop
  double lr_decay = 0;        // Adagrad
  double momentum_decay = 0;  // NAdam
  double mu_product = 1;      // NAdam: the product of the mu_t up to this step (PyTorch keeps it in float32)
  double step = 1;
  bool maximize = false, centered = false, decoupled_weight_decay = false;
};

// Updates param and its state tensors s0..s2 in place from grad; all dense with param's dtype, shape and
// element order. Which states an optimizer has (undefined tensors otherwise):
//   RMSprop: square_avg, grad_avg (centered), momentum_buffer (momentum > 0)
//   Adagrad: sum          Adadelta: square_avg, acc_delta          Adamax: exp_avg, exp_inf
//   NAdam, RAdam: exp_avg, exp_avg_sq
using OptimStepKernel = void (*)(const Tensor& param, const Tensor& grad, const Tensor& s0, const Tensor& s1,
                                 const Tensor& s2, const OptimStepConfig& cfg);

// The slot of a device type (nullptr until that device's kernels register). Inline: one table for the whole
// library, whichever file asks.
inline OptimStepKernel& optim_step_kernel(DeviceType type) {
  static OptimStepKernel slots[kNumDeviceTypes] = {};
  return slots[static_cast<int>(type)];
}

}  // namespace tandem
