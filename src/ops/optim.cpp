#include "ops/optim.h"

#include "core/error.h"
#include "kernels/kernel_table.h"
#include "ops/copy.h"

namespace tandem {

namespace {

// State tensors must match the parameter exactly: the kernel walks them as flat arrays side by side.
void check_state(const char* op, const Tensor& param, const Tensor& t, const char* name) {
  TANDEM_CHECK(t.sizes() == param.sizes() && t.dtype() == param.dtype() && t.device() == param.device() &&
                   t.is_contiguous(),
               Runtime, op, ": ", name, " of shape ", t.shape_str(), " (", dtype_name(t.dtype()), ", ",
               t.device().str(), ") does not match the parameter of shape ", param.shape_str(), " (",
               dtype_name(param.dtype()), ", ", param.device().str(),
               ")\nhint: optimizer state must be created like the parameter; reload a matching state_dict");
}

// The gradient in the parameter's dtype and layout.
Tensor prepare(const char* op, const Tensor& param, const Tensor& grad) {
  TANDEM_CHECK(is_floating(param.dtype()), Runtime, op, ": parameter of dtype ", dtype_name(param.dtype()),
               " cannot be optimized\nhint: only floating-point parameters have gradients");
  TANDEM_CHECK(param.is_contiguous(), NotImplemented, op,
               ": the parameter is not contiguous\nhint: make it contiguous before building the optimizer");
  check_writeable(param, op);
  TANDEM_CHECK(grad.sizes() == param.sizes() && grad.device() == param.device(), Runtime, op,
               ": gradient of shape ", grad.shape_str(), " on ", grad.device().str(),
               " does not match the parameter of shape ", param.shape_str(), " on ", param.device().str(),
               "\nhint: the gradient must have the parameter's shape and device");
  return contiguous(to_dtype(grad, param.dtype()));
}

}  // namespace

void sgd_step(const Tensor& param, const Tensor& grad_, const Tensor& momentum_buffer, const SgdConfig& cfg) {
  Tensor grad = prepare("sgd", param, grad_);
  if (momentum_buffer.defined()) check_state("sgd", param, momentum_buffer, "momentum_buffer");
  if (param.numel() > 0) kernel_table(param.device().type).nn.sgd_step(param, grad, momentum_buffer, cfg);
  param.bump_version();
  if (momentum_buffer.defined()) momentum_buffer.bump_version();
}

void adam_step(const Tensor& param, const Tensor& grad_, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const Tensor& max_exp_avg_sq, const AdamConfig& cfg) {
  const char* op = cfg.decoupled_weight_decay ? "adamw" : "adam";
  Tensor grad = prepare(op, param, grad_);
  check_state(op, param, exp_avg, "exp_avg");
  check_state(op, param, exp_avg_sq, "exp_avg_sq");
  if (cfg.amsgrad) check_state(op, param, max_exp_avg_sq, "max_exp_avg_sq");
  if (param.numel() > 0)
    kernel_table(param.device().type).nn.adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, cfg);
  for (const Tensor* t : {&param, &exp_avg, &exp_avg_sq}) t->bump_version();
}

}  // namespace tandem
