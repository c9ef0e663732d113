// The gradients of layer normalisation (ops/norm.h) and batch normalisation (ops/batch_norm.h): kernels
// normally; under create_graph the same gradients from differentiable ops that recompute the statistics from
// the input, so second-order code differentiates through them too.
#include <utility>

#include "autograd/formulas.h"
#include "ops/batch_norm.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/group_norm.h"
#include "ops/norm.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace tandem::autograd {
namespace {
using Grads = std::vector<Tensor>;

constexpr int8_t kHasWeight = 1;

// The gradients of (input, weight, bias) from differentiable ops (kernels/norm_functors.h has the formulas).
Grads layer_norm_grads_differentiable(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                      int64_t k, double eps, std::array<bool, 3> mask) {
  DimVector rows_dims, row_dims;  // the leading dims (over which weight and bias gradients sum) and the rest
  for (int64_t d = 0; d < input.dim(); ++d) (d < input.dim() - k ? rows_dims : row_dims).push_back(d);
  Tensor centred = sub(input, mean(input, row_dims, true));
  Tensor rstd = rsqrt(add(mean(mul(centred, centred), row_dims, true), Scalar(eps)));
  Tensor xhat = mul(centred, rstd);
  auto over_rows = [&](const Tensor& t) { return rows_dims.empty() ? t : sum(t, rows_dims); };
  Grads grads(3);
  if (mask[0]) {
    Tensor g = weight.defined() ? mul(grad, weight) : grad;
    grads[0] = mul(rstd, sub(sub(g, mean(g, row_dims, true)), mul(xhat, mean(mul(g, xhat), row_dims, true))));
  }
  if (mask[1]) grads[1] = over_rows(mul(grad, xhat));
  if (mask[2]) grads[2] = over_rows(grad);
  return grads;
}

Grads layer_norm_grads(FormulaNode& n, const Tensor& grad) {
  Tensor input = n.saved_tensor(0), mean = n.saved_tensor(1), rstd = n.saved_tensor(2);
  Tensor weight = n.variant & kHasWeight ? n.saved_tensor(3) : Tensor();
  const std::array<bool, 3> mask{n.next_edges[0].fn != nullptr, n.next_edges[1].fn != nullptr,
                                 n.next_edges[2].fn != nullptr};
  if (GradMode::is_enabled())
    return layer_norm_grads_differentiable(grad, input, weight, n.ints[0], n.real, mask);
  auto g = native_layer_norm_backward(grad, input, mean, rstd, weight, n.ints[0], mask);
  return {g[0], g[1], g[2]};
}

constexpr int8_t kTraining = 2;

// (input, weight, bias) gradients in their operands' dtypes: a float16/bfloat16 input with float32 parameters
// promotes in the differentiable formulas.
Grads in_operand_dtypes(Grads grads, DType input_dtype, DType param_dtype) {
  for (size_t i = 0; i < grads.size(); ++i) {
    const DType want = i == 0 ? input_dtype : param_dtype;
    if (grads[i].defined() && grads[i].dtype() != want) grads[i] = to_dtype(grads[i], want);
  }
  return grads;
}

// The batch-norm gradients from differentiable ops: in training the batch statistics recomputed (the same
// formulas as BatchNormMath's coefficients), otherwise the saved (constant) running ones.
Grads batch_norm_grads_differentiable(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                      const Tensor& saved_mean, const Tensor& saved_invstd, bool training,
                                      double eps, DType param_dtype, std::array<bool, 3> mask) {
  DimVector reduce_dims{0}, channel_shape(input.dim(), 1);  // every dim but the channels; (1, C, 1, ...)
  for (int64_t d = 2; d < input.dim(); ++d) reduce_dims.push_back(d);
  channel_shape[1] = input.sizes()[1];
  auto per_channel = [&](const Tensor& t) { return view(t, channel_shape); };
  Tensor centred, invstd;
  if (training) {
    centred = sub(input, mean(input, reduce_dims, true));
    invstd = rsqrt(add(mean(mul(centred, centred), reduce_dims, true), Scalar(eps)));
  } else {
    centred = sub(input, per_channel(saved_mean));
    invstd = per_channel(saved_invstd);
  }
  Tensor xhat = mul(centred, invstd);
  Grads grads(3);
  if (mask[0]) {
    Tensor g = weight.defined() ? mul(grad, per_channel(weight)) : grad;
    grads[0] = training ? mul(invstd, sub(sub(g, mean(g, reduce_dims, true)),
                                          mul(xhat, mean(mul(g, xhat), reduce_dims, true))))
                        : mul(g, invstd);
  }
  if (mask[1]) grads[1] = sum(mul(grad, xhat), reduce_dims);
  if (mask[2]) grads[2] = sum(grad, reduce_dims);
  return in_operand_dtypes(std::move(grads), input.dtype(), param_dtype);
}

Grads batch_norm_grads(FormulaNode& n, const Tensor& grad) {
  Tensor input = n.saved_tensor(0), mean = n.saved_tensor(1), invstd = n.saved_tensor(2);
  Tensor weight = n.variant & kHasWeight ? n.saved_tensor(3) : Tensor();
  const bool training = n.variant & kTraining;
  const std::array<bool, 3> mask{n.next_edges[0].fn != nullptr, n.next_edges[1].fn != nullptr,
                                 n.next_edges[2].fn != nullptr};
  if (GradMode::is_enabled())
    return batch_norm_grads_differentiable(grad, input, weight, mean, invstd, training, n.real,
                                           static_cast<DType>(n.ints[0]), mask);
  auto g = detail::batch_norm_backward_from_stats(grad, input, weight, mean, invstd, training,
                                                  static_cast<DType>(n.ints[0]), mask);
  return {g[0], g[1], g[2]};
}

// The group-norm gradients from differentiable ops that recompute each (sample, group)'s statistics.
Grads group_norm_grads_differentiable(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                      int64_t group, double eps, DType param_dtype,
                                      std::array<bool, 3> mask) {
  const int64_t n = input.sizes()[0];
  DimVector other_dims{0}, channel_shape(input.dim(), 1);  // every dim but the channels; (1, C, 1, ...)
  for (int64_t d = 2; d < input.dim(); ++d) other_dims.push_back(d);
  channel_shape[1] = input.sizes()[1];
  const DimVector grouped{n, group, -1};
  Tensor x = reshape(input, grouped);
  Tensor centred = sub(x, mean(x, DimVector{2}, true));
  Tensor rstd = rsqrt(add(mean(mul(centred, centred), DimVector{2}, true), Scalar(eps)));
  Tensor xhat = mul(centred, rstd);
  Grads grads(3);
  if (mask[0]) {
    Tensor g = reshape(weight.defined() ? mul(grad, view(weight, channel_shape)) : grad, grouped);
    Tensor gi = mul(
        rstd, sub(sub(g, mean(g, DimVector{2}, true)), mul(xhat, mean(mul(g, xhat), DimVector{2}, true))));
    grads[0] = reshape(gi, input.sizes());
  }
  if (mask[1]) grads[1] = sum(mul(grad, reshape(xhat, input.sizes())), other_dims);
  if (mask[2]) grads[2] = sum(grad, other_dims);
  return in_operand_dtypes(std::move(grads), input.dtype(), param_dtype);
}

Grads group_norm_grads(FormulaNode& n, const Tensor& grad) {
  Tensor input = n.saved_tensor(0), mean = n.saved_tensor(1), rstd = n.saved_tensor(2);
  Tensor weight = n.variant & kHasWeight ? n.saved_tensor(3) : Tensor();
  const std::array<bool, 3> mask{n.next_edges[0].fn != nullptr, n.next_edges[1].fn != nullptr,
                                 n.next_edges[2].fn != nullptr};
  const DType param_dtype = static_cast<DType>(n.ints[1]);
  if (GradMode::is_enabled())
    return group_norm_grads_differentiable(grad, input, weight, n.ints[0], n.real, param_dtype, mask);
  auto g =
      detail::group_norm_backward_from_stats(grad, input, mean, rstd, weight, n.ints[0], param_dtype, mask);
  return {g[0], g[1], g[2]};
}

// The node every normalisation records: input, its statistics (mean and 1/std) and the weight (when defined,
// flagged by kHasWeight) saved, in that order, for the formulas above.
std::shared_ptr<FormulaNode> norm_node(const char* name, FormulaNode::Formula formula, const Tensor& input,
                                       const Tensor& weight, const Tensor& bias, const Tensor& mean,
                                       const Tensor& inverse_std, const Tensor& out) {
  auto node = make_node(name, formula);
  set_history(node, {&input, &weight, &bias}, {&out});
  node->saved.emplace_back(input, false);
  node->saved.emplace_back(mean, false);
  node->saved.emplace_back(inverse_std, false);
  if (weight.defined()) node->saved.emplace_back(weight, false);
  node->variant = weight.defined() ? kHasWeight : 0;
  return node;
}

}  // namespace

void record_group_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& mean,
                       const Tensor& rstd, int64_t group, double eps, DType param_dtype, const Tensor& out) {
  auto node = norm_node("NativeGroupNormBackward0", group_norm_grads, input, weight, bias, mean, rstd, out);
  node->ints.push_back(group);
  node->ints.push_back(static_cast<int64_t>(param_dtype));
  node->real = eps;
}

void record_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& mean,
                       const Tensor& invstd, bool training, double eps, DType param_dtype,
                       const Tensor& out) {
  auto node = norm_node("NativeBatchNormBackward0", batch_norm_grads, input, weight, bias, mean, invstd, out);
  if (training) node->variant |= kTraining;
  node->ints.push_back(static_cast<int64_t>(param_dtype));
  node->real = eps;
}

void record_layer_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& mean,
                       const Tensor& rstd, int64_t normalized_dims, double eps, const Tensor& out) {
  auto node = norm_node("NativeLayerNormBackward0", layer_norm_grads, input, weight, bias, mean, rstd, out);
  node->ints.push_back(normalized_dims);
  node->real = eps;
}

}  // namespace tandem::autograd
