#include "ops/norm.h"

#include <algorithm>
#include <limits>

#include "autograd/formulas.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "ops/copy.h"
#include "ops/view.h"

namespace tandem {

namespace {

// The dtype the row statistics are kept in (the kernels' accumulation type).
DType stats_dtype(DType d) { return d == DType::Float16 || d == DType::BFloat16 ? DType::Float32 : d; }

// PyTorch's checks of native_layer_norm's arguments, in its words.
void check_layer_norm_args(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight,
                           const Tensor& bias) {
  TANDEM_CHECK(
      !normalized_shape.empty(), Runtime,
      "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, "
      "but got normalized_shape = ",
      shape_to_string(normalized_shape));
  for (auto [t, name] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}}) {
    if (!t->defined()) continue;
    TANDEM_CHECK(std::ranges::equal(t->sizes(), normalized_shape), Runtime, "Expected ", name,
                 " to be of same shape as normalized_shape, but got ", name, " of shape ", t->shape_str(),
                 " and normalized_shape = ", shape_to_string(normalized_shape));
  }
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  const bool fits = input.dim() >= k &&
                    std::ranges::equal(IntArrayRef(input.sizes()).subspan(input.dim() - k), normalized_shape);
  if (!fits) {
    std::string want = shape_to_string(normalized_shape);
    TANDEM_CHECK(false, Runtime, "Given normalized_shape=", want, ", expected input with shape [*, ",
                 want.substr(1, want.size() - 2), "], but got input of size", input.shape_str());
  }
  TANDEM_CHECK(is_floating(input.dtype()), NotImplemented, "\"LayerNormKernelImpl\" not implemented for '",
               dtype_title(input.dtype()),
               "'\nhint: convert the input to a floating dtype first, e.g. x.float()");
  for (const Tensor* t : {&weight, &bias}) {
    if (!t->defined()) continue;
    TANDEM_CHECK(t->dtype() == input.dtype(), Runtime, "mixed dtype (",
                 input.device().is_cpu() ? "CPU" : "CUDA",
                 "): all inputs must share same datatype.\nhint: the input is ", dtype_name(input.dtype()),
                 " and the weight or bias ", dtype_name(t->dtype()), "; convert them to one dtype");
    TANDEM_CHECK(t->device() == input.device(), Runtime,
                 "Expected all tensors to be on the same device, but found at least two devices, ",
                 input.device().str(), " and ", t->device().str(), "!");
  }
}

Tensor contiguous_or_undefined(const Tensor& t) { return t.defined() ? contiguous(t) : Tensor(); }

}  // namespace

std::array<Tensor, 3> native_layer_norm(const Tensor& input_, IntArrayRef normalized_shape,
                                        const Tensor& weight_, const Tensor& bias_, double eps) {
  profiler::RecordScope profile_scope("aten::native_layer_norm", input_, weight_, bias_);
  check_layer_norm_args(input_, normalized_shape, weight_, bias_);
  const int64_t n = compute_numel(normalized_shape);
  const int64_t rows =
      n == 0 ? compute_numel(IntArrayRef(input_.sizes()).first(input_.dim() - normalized_shape.size()))
             : input_.numel() / n;
  const bool record = autograd::should_record(input_, weight_, bias_);
  autograd::GradModeGuard no_grad(false);  // the contiguous copies and views below are not part of the graph
  Tensor input = contiguous(input_);
  Tensor weight = contiguous_or_undefined(weight_), bias = contiguous_or_undefined(bias_);
  Tensor out = empty(input.sizes(), input.dtype(), input.device());
  Tensor mean = empty(DimVector{rows}, stats_dtype(input.dtype()), input.device());
  Tensor rstd = empty(DimVector{rows}, stats_dtype(input.dtype()), input.device());
  if (n == 0) {
    // PyTorch's statistics of empty rows: a mean of 0 and a NaN rstd.
    fill_(mean, Scalar(0.0));
    fill_(rstd, Scalar(std::numeric_limits<double>::quiet_NaN()));
  } else if (rows > 0) {
    DimVector matrix{rows, n};
    kernel_table(input.device().type)
        .nn.layer_norm(view(out, matrix), mean, rstd, view(input, matrix), weight, bias, eps);
  }
  if (record)
    autograd::record_layer_norm(input_, weight_, bias_, mean, rstd,
                                static_cast<int64_t>(normalized_shape.size()), eps, out);
  return {out, mean, rstd};
}

std::array<Tensor, 3> native_layer_norm_backward(const Tensor& grad_out_, const Tensor& input_,
                                                 const Tensor& mean, const Tensor& rstd,
                                                 const Tensor& weight_, int64_t normalized_dims,
                                                 std::array<bool, 3> output_mask) {
  profiler::RecordScope profile_scope("aten::native_layer_norm_backward", grad_out_, input_, weight_);
  const int64_t rows = mean.numel();
  const int64_t n =
      rows == 0 ? compute_numel(IntArrayRef(input_.sizes()).last(normalized_dims)) : input_.numel() / rows;
  TANDEM_CHECK(grad_out_.sizes() == input_.sizes(), Runtime,
               "native_layer_norm_backward: grad_out has shape ", grad_out_.shape_str(), " but the input ",
               input_.shape_str());
  autograd::GradModeGuard no_grad(false);
  Tensor input = contiguous(input_), grad_out = contiguous(grad_out_),
         weight = contiguous_or_undefined(weight_);
  const IntArrayRef affine_shape = IntArrayRef(input.sizes()).last(normalized_dims);
  std::array<Tensor, 3> grads;
  if (output_mask[0]) grads[0] = empty(input.sizes(), input.dtype(), input.device());
  for (int i : {1, 2})
    if (output_mask[i]) grads[i] = empty(affine_shape, input.dtype(), input.device());
  if (n == 0) return grads;  // nothing to normalise: every gradient is empty
  if (rows == 0) {           // no rows: the weight and bias gradients are sums of nothing
    for (int i : {1, 2})
      if (grads[i].defined()) fill_(grads[i], Scalar(0.0));
    return grads;
  }
  DimVector matrix{rows, n};
  kernel_table(input.device().type)
      .nn.layer_norm_backward(grads[0].defined() ? view(grads[0], matrix) : Tensor(), grads[1], grads[2],
                              view(grad_out, matrix), view(input, matrix), mean, rstd, weight);
  return grads;
}

}  // namespace tandem
