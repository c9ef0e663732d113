// Fused optimizer updates: one kernel call per parameter tensor and step, updating the parameter and its
// state tensors in place.
#pragma once
#include "core/tensor.h"
#include "kernels/nn_kernels.h"

namespace tandem {

// momentum_buffer is undefined when cfg.momentum == 0.
void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, const SgdConfig& cfg);
// max_exp_avg_sq is undefined unless cfg.amsgrad.
void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const Tensor& max_exp_avg_sq, const AdamConfig& cfg);

}  // namespace tandem
