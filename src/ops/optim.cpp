#include "ops/optim.h"

#include <algorithm>
#include <optional>

#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "ops/copy.h"
#include "ops/view.h"

namespace tandem {

namespace {

// The kernels walk the parameter, its gradient and its state as flat arrays side by side, so each must be
// dense (its elements fill numel() slots from data_ptr() without gaps) and lay its elements out in the same
// order. That order is the dims from the largest stride to the smallest, size-1 dims left out (they move
// nothing); nullopt when t is not dense. A contiguous tensor gives 0, 1, ..., a channels-last one 0, 2, 3, 1.
std::optional<DimVector> dense_order(const Tensor& t) {
  DimVector dims;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.size(d) != 1) dims.push_back(d);
  std::stable_sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) { return t.stride(a) > t.stride(b); });
  int64_t expected = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    if (t.stride(dims[i]) != expected) return std::nullopt;
    expected *= t.size(dims[i]);
  }
  return dims;
}

// State tensors must match the parameter exactly: shape, dtype, device and element order.
void check_state(const char* op, const Tensor& param, const Tensor& t, const char* name) {
  TANDEM_CHECK(
      t.sizes() == param.sizes() && t.dtype() == param.dtype() && t.device() == param.device() &&
          ((t.is_contiguous() && param.is_contiguous()) || dense_order(t) == dense_order(param)),
      Runtime, op, ": ", name, " of shape ", t.shape_str(), " (", dtype_name(t.dtype()), ", ",
      t.device().str(), ") does not match the parameter of shape ", param.shape_str(), " (",
      dtype_name(param.dtype()), ", ", param.device().str(),
      ")\nhint: optimizer state must be created like the parameter (zeros_like(param) keeps its memory "
      "format); reload a matching state_dict");
}

// The gradient in the parameter's dtype and element order (a copy only when it differs).
Tensor prepare(const char* op, const Tensor& param, const Tensor& grad) {
  TANDEM_CHECK(is_floating(param.dtype()), Runtime, op, ": parameter of dtype ", dtype_name(param.dtype()),
               " cannot be optimized\nhint: only floating-point parameters have gradients");
  std::optional<DimVector> order = dense_order(param);
  TANDEM_CHECK(order.has_value(), NotImplemented, op,
               ": the parameter is a view with gaps between its elements\nhint: optimize a dense tensor (a "
               "contiguous or channels-last one), e.g. param.contiguous(), before building the optimizer");
  check_writeable(param, op);
  TANDEM_CHECK(grad.sizes() == param.sizes() && grad.device() == param.device(), Runtime, op,
               ": gradient of shape ", grad.shape_str(), " on ", grad.device().str(),
               " does not match the parameter of shape ", param.shape_str(), " on ", param.device().str(),
               "\nhint: the gradient must have the parameter's shape and device");
  Tensor g = to_dtype(grad, param.dtype());
  if (dense_order(g) == order) return g;
  // Copy into the parameter's order: its dims outermost first (size-1 dims anywhere), made contiguous.
  DimVector perm = *order;
  for (int64_t d = 0; d < param.dim(); ++d)
    if (param.size(d) == 1) perm.push_back(d);
  DimVector inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return permute(contiguous(permute(g, perm)), inverse);
}

}  // namespace

void sgd_step(const Tensor& param, const Tensor& grad_, const Tensor& momentum_buffer, const SgdConfig& cfg) {
  profiler::RecordScope profile_scope("tandem::sgd_step", param, grad_, momentum_buffer, cfg);
  Tensor grad = prepare("sgd", param, grad_);
  if (momentum_buffer.defined()) check_state("sgd", param, momentum_buffer, "momentum_buffer");
  if (param.numel() > 0) kernel_table(param.device().type).nn.sgd_step(param, grad, momentum_buffer, cfg);
  param.bump_version();
  if (momentum_buffer.defined()) momentum_buffer.bump_version();
}

void adam_step(const Tensor& param, const Tensor& grad_, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const Tensor& max_exp_avg_sq, const AdamConfig& cfg) {
  profiler::RecordScope profile_scope("tandem::adam_step", param, grad_, exp_avg, exp_avg_sq, max_exp_avg_sq,
                                      cfg);
  const char* op = cfg.decoupled_weight_decay ? "adamw" : "adam";
  Tensor grad = prepare(op, param, grad_);
  check_state(op, param, exp_avg, "exp_avg");
  check_state(op, param, exp_avg_sq, "exp_avg_sq");
  if (cfg.amsgrad) check_state(op, param, max_exp_avg_sq, "max_exp_avg_sq");
  if (param.numel() > 0)
    kernel_table(param.device().type).nn.adam_step(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, cfg);
  for (const Tensor* t : {&param, &exp_avg, &exp_avg_sq}) t->bump_version();
}

namespace {

// The optimizer's name (PyTorch's lower-case class name) and the names of its state slots s0..s2 (nullptr for
// a slot it never has).
struct OptimNames {
  const char* op;
  const char* states[3];
};

OptimNames optim_names(OptimKind kind) {
  switch (kind) {
    case OptimKind::Rmsprop:
      return {"rmsprop", {"square_avg", "grad_avg", "momentum_buffer"}};
    case OptimKind::Adagrad:
      return {"adagrad", {"sum", nullptr, nullptr}};
    case OptimKind::Adadelta:
      return {"adadelta", {"square_avg", "acc_delta", nullptr}};
    case OptimKind::Adamax:
      return {"adamax", {"exp_avg", "exp_inf", nullptr}};
    case OptimKind::Nadam:
      return {"nadam", {"exp_avg", "exp_avg_sq", nullptr}};
    case OptimKind::Radam:
      return {"radam", {"exp_avg", "exp_avg_sq", nullptr}};
  }
  return {"optim", {nullptr, nullptr, nullptr}};
}

}  // namespace

void optim_step(const Tensor& param, const Tensor& grad_, const Tensor& s0, const Tensor& s1,
                const Tensor& s2, const OptimStepConfig& cfg) {
  profiler::RecordScope profile_scope("tandem::optim_step", param, grad_);
  const OptimNames names = optim_names(cfg.kind);
  Tensor grad = prepare(names.op, param, grad_);
  // Which slots this optimizer uses with these options: the kernel reads exactly those.
  bool needed[3] = {true, names.states[1] != nullptr, false};
  if (cfg.kind == OptimKind::Rmsprop) needed[1] = cfg.centered, needed[2] = cfg.momentum > 0;
  const Tensor* states[3] = {&s0, &s1, &s2};
  for (int i = 0; i < 3; ++i) {
    if (!needed[i]) continue;
    TANDEM_CHECK(states[i]->defined(), Runtime, names.op, ": the optimizer state has no ", names.states[i],
                 "\nhint: reload a state_dict saved with the same options (centered, momentum)");
    check_state(names.op, param, *states[i], names.states[i]);
  }
  OptimStepKernel kernel = optim_step_kernel(param.device().type);
  TANDEM_CHECK(kernel != nullptr, NotImplemented, names.op, ": no fused update on ", param.device().str());
  if (param.numel() > 0)
    kernel(param, grad, needed[0] ? s0 : Tensor(), needed[1] ? s1 : Tensor(), needed[2] ? s2 : Tensor(), cfg);
  param.bump_version();
  for (int i = 0; i < 3; ++i)
    if (needed[i]) states[i]->bump_version();
}

}  // namespace tandem
