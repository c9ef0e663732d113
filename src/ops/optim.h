// Fused optimizer updates: one kernel call per parameter tensor and step, updating the parameter and its
// state tensors in place.
#pragma once
#include "core/tensor.h"
#include "kernels/fused_optim.h"
#include "kernels/nn_kernels.h"

namespace tandem {

// momentum_buffer is undefined when cfg.momentum == 0.
void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, const SgdConfig& cfg);
// max_exp_avg_sq is undefined unless cfg.amsgrad.
void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const Tensor& max_exp_avg_sq, const AdamConfig& cfg);
// RMSprop, Adagrad, Adadelta, Adamax, NAdam and RAdam (cfg.kind): states s0..s2 as kernels/fused_optim.h
// lists them per optimizer, undefined where the optimizer (with these options) has none.
void optim_step(const Tensor& param, const Tensor& grad, const Tensor& s0, const Tensor& s1, const Tensor& s2,
                const OptimStepConfig& cfg);

}  // namespace tandem
