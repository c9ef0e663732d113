#include "ops/batch_norm.h"

#include <utility>

#include "autograd/formulas.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/layout.h"
#include "ops/view.h"

namespace tandem {

namespace detail {

bool is_16bit(DType d) { return d == DType::Float16 || d == DType::BFloat16; }

DType accumulation_dtype(DType d) { return is_16bit(d) ? DType::Float32 : d; }

Tensor in_dtype_or_undefined(const Tensor& t, DType dtype) {
  return t.defined() ? reshape(contiguous(to_dtype(t, dtype)), DimVector{t.numel()}) : Tensor();
}

std::pair<Tensor, Tensor> backward_operands(const char* op, const Tensor& grad_out, const Tensor& input) {
  TANDEM_CHECK(grad_out.sizes() == input.sizes(), Runtime, op, ": grad_out has shape ", grad_out.shape_str(),
               " but the input ", input.shape_str());
  TANDEM_CHECK(grad_out.device() == input.device(), Runtime,
               "Expected all tensors to be on the same device, but found at least two devices, ",
               input.device().str(), " and ", grad_out.device().str(), "!");
  return {contiguous(to_dtype(grad_out, input.dtype())), contiguous(input)};
}

bool check_parameter_dtypes(const Tensor& input,
                            std::initializer_list<std::pair<const Tensor*, const char*>> params) {
  DType first = input.dtype();
  bool any = false;
  for (auto [t, name] : params)
    if (t->defined() && !any) first = t->dtype(), any = true;
  const bool mixed = any && first != input.dtype();
  // Mixed: every parameter float32, then the input 16-bit. Otherwise every parameter has the input's dtype.
  const char* share =
      "mixed dtype (CPU): all inputs must share same datatype.\nhint: only a float16/bfloat16 "
      "input takes float32 parameters; give every parameter the input's dtype (";
  for (auto [t, name] : params) {
    if (!t->defined()) continue;
    if (mixed) {
      TANDEM_CHECK(t->dtype() == DType::Float32, Runtime,
                   "mixed dtype (CPU): expect parameter to have scalar type of Float\nhint: ", name, " is ",
                   dtype_name(t->dtype()), "; give every parameter the input's dtype (",
                   dtype_name(input.dtype()), ")");
    } else {
      TANDEM_CHECK(t->dtype() == input.dtype(), Runtime, "expected scalar type ", dtype_title(input.dtype()),
                   " but found ", dtype_title(t->dtype()), "\nhint: ", name, " must have the input's dtype");
    }
  }
  TANDEM_CHECK(!mixed || is_16bit(input.dtype()), Runtime, share, dtype_name(input.dtype()), ")");
  return mixed;
}

}  // namespace detail

namespace {

using detail::accumulation_dtype, detail::in_dtype_or_undefined;

// PyTorch's checks, with its messages. The dtype rule is its CPU one: parameters of the input's dtype, or a
// float16/bfloat16 input with float32 parameters (mixed precision: the first defined parameter decides).
// Returns whether the call is mixed.
bool check_batch_norm_args(const Tensor& input, const Tensor& weight, const Tensor& bias,
                           const Tensor& running_mean, const Tensor& running_var) {
  TANDEM_CHECK(
      input.dim() >= 2, Index, "Dimension out of range (expected to be in range of [",
      -std::max<int64_t>(input.dim(), 1), ", ", std::max<int64_t>(input.dim(), 1) - 1,
      "], but got 1)\nhint: batch_norm normalises over dim 1, the channels: the input needs (N, C, ...)");
  const int64_t channels = input.sizes()[1];
  const std::pair<const Tensor*, const char*> params[] = {
      {&weight, "weight"}, {&bias, "bias"}, {&running_mean, "running_mean"}, {&running_var, "running_var"}};
  for (int k : {2, 3, 0, 1}) {
    auto [t, name] = params[k];
    if (!t->defined()) continue;
    TANDEM_CHECK(t->numel() == channels, Runtime, name, " should contain ", channels, " elements not ",
                 t->numel());
    TANDEM_CHECK(t->device() == input.device(), Runtime,
                 "Expected all tensors to be on the same device, but found at least two devices, ",
                 input.device().str(), " and ", t->device().str(), "!");
  }
  TANDEM_CHECK(is_floating(input.dtype()), NotImplemented, "\"batch_norm\" not implemented for '",
               dtype_title(input.dtype()),
               "'\nhint: convert the input to a floating dtype first, e.g. x.float()");
  return detail::check_parameter_dtypes(input, {params[0], params[1], params[2], params[3]});
}

// Views of the input and its like as (N, C, S), S the product of the dims after the channels.
DimVector channel_geometry(const Tensor& t) {
  int64_t s = 1;
  for (int64_t d = 2; d < t.dim(); ++d) s *= t.sizes()[d];
  return {t.sizes()[0], t.sizes()[1], s};
}

}  // namespace

namespace detail {

std::array<Tensor, 3> batch_norm_backward_from_stats(const Tensor& grad_out_, const Tensor& input_,
                                                     const Tensor& weight, const Tensor& mean,
                                                     const Tensor& invstd, bool training, DType param_dtype,
                                                     std::array<bool, 3> output_mask) {
  profiler::RecordScope profile_scope("aten::native_batch_norm_backward", grad_out_, input_, weight);
  autograd::GradModeGuard no_grad(false);
  const auto [grad_out, input] = backward_operands("native_batch_norm_backward", grad_out_, input_);
  const DType acc = accumulation_dtype(input.dtype());
  const Device device = input.device();
  const DimVector geometry = channel_geometry(input);
  const int64_t channels = geometry[1];
  const double count = static_cast<double>(geometry[0]) * static_cast<double>(geometry[2]);
  const NnKernels& kernels = kernel_table(device.type).nn;
  std::array<Tensor, 3> grads;
  Tensor sum_dy, sum_dy_xmu;
  if (output_mask[1] || output_mask[2] || (training && output_mask[0])) {
    sum_dy = empty(DimVector{channels}, acc, device);
    sum_dy_xmu = empty(DimVector{channels}, acc, device);
    if (input.numel() > 0)
      kernels.batch_norm_backward_reduce(sum_dy, sum_dy_xmu, view(grad_out, geometry), view(input, geometry),
                                         mean);
    else
      fill_(sum_dy, Scalar(0.0)), fill_(sum_dy_xmu, Scalar(0.0));
  }
  if (output_mask[0]) {
    grads[0] = empty(input.sizes(), input.dtype(), device);
    const Tensor w = in_dtype_or_undefined(weight, acc);
    const Tensor a = w.defined() ? mul(invstd, w) : invstd;
    if (input.numel() > 0 && training) {
      // BatchNormMath's coefficients: b = -a rstd^2 sum(dy (x - mean)) / M, d = -a sum(dy) / M.
      const Tensor b = neg(mul(mul(mul(invstd, invstd), sum_dy_xmu), mul(a, Scalar(1.0 / count))));
      const Tensor d = neg(mul(sum_dy, mul(a, Scalar(1.0 / count))));
      kernels.batch_norm_elemt(view(grads[0], geometry), view(grad_out, geometry), a, view(input, geometry),
                               mean, b, d);
    } else if (input.numel() > 0) {  // evaluation: dx = dy a
      kernels.batch_norm_elemt(view(grads[0], geometry), view(grad_out, geometry), a, Tensor(), Tensor(),
                               Tensor(), full(DimVector{channels}, Scalar(0.0), acc, device));
    }
  }
  if (output_mask[1]) grads[1] = to_dtype(mul(sum_dy_xmu, invstd), param_dtype);
  if (output_mask[2]) grads[2] = to_dtype(sum_dy, param_dtype);
  return grads;
}

}  // namespace detail

std::array<Tensor, 3> native_batch_norm(const Tensor& input_, const Tensor& weight, const Tensor& bias,
                                        const Tensor& running_mean, const Tensor& running_var, bool training,
                                        double momentum, double eps) {
  profiler::RecordScope profile_scope("aten::native_batch_norm", input_, weight, bias);
  const bool mixed = check_batch_norm_args(input_, weight, bias, running_mean, running_var);
  TANDEM_CHECK(
      training || (running_mean.defined() && running_var.defined()), Runtime,
      "running_mean must be defined in evaluation mode\nhint: pass running statistics, or training=True");
  const bool record = autograd::should_record(input_, weight, bias);
  // The statistics, coefficients and running updates are not recorded.
  autograd::GradModeGuard no_grad(false);
  const Tensor input = contiguous(input_);
  const DType acc = accumulation_dtype(input.dtype());
  // The saved statistics' dtype: PyTorch's CPU keeps the input's unless mixed; its CUDA kernels keep float.
  const DType saved_dtype = mixed || !input.device().is_cpu() ? acc : input.dtype();
  const Device device = input.device();
  const DimVector geometry = channel_geometry(input);
  const int64_t channels = geometry[1];
  const double count = static_cast<double>(geometry[0]) * static_cast<double>(geometry[2]);
  const NnKernels& kernels = kernel_table(device.type).nn;
  Tensor out = empty(input.sizes(), input.dtype(), device);
  Tensor mean, invstd;
  if (training) {
    mean = empty(DimVector{channels}, acc, device);
    Tensor var = empty(DimVector{channels}, acc, device);
    if (input.numel() > 0) {
      kernels.batch_norm_stats(mean, var, view(input, geometry));
      // running = momentum stat + (1 - momentum) running, in double and rounded once to the running
      // statistics' dtype, as PyTorch's CPU kernel (its momentum is a double); the variance unbiased
      // (count / (count - 1): a single value per channel gives PyTorch's NaN).
      const auto update = [&](const Tensor& running, const Tensor& stat, double factor) {
        if (!running.defined()) return;
        copy_(running, add(mul(to_dtype(stat, DType::Float64), Scalar(momentum * factor)),
                           mul(to_dtype(running, DType::Float64), Scalar(1.0 - momentum))));
      };
      update(running_mean, mean, 1.0);
      update(running_var, var, count / (count - 1.0));
    } else {  // nothing to normalise (PyTorch's F.batch_norm passes an empty batch through)
      fill_(mean, Scalar(0.0)), fill_(var, Scalar(0.0));
    }
    invstd = rsqrt(add(var, Scalar(eps)));
    if (saved_dtype != acc) {
      // PyTorch's CPU kernel keeps a 16-bit input's batch statistics in that dtype and normalises with the
      // rounded values (the running statistics above take the unrounded ones).
      mean = to_dtype(to_dtype(mean, saved_dtype), acc);
      invstd = to_dtype(to_dtype(invstd, saved_dtype), acc);
    }
  } else {
    mean = in_dtype_or_undefined(running_mean, acc);
    invstd = rsqrt(add(in_dtype_or_undefined(running_var, acc), Scalar(eps)));
  }
  if (input.numel() > 0) {
    const Tensor w = in_dtype_or_undefined(weight, acc);
    const Tensor scale = w.defined() ? mul(invstd, w) : invstd;
    const Tensor shift = bias.defined() ? in_dtype_or_undefined(bias, acc)
                                        : full(DimVector{channels}, Scalar(0.0), acc, device);
    kernels.batch_norm_elemt(view(out, geometry), Tensor(), Tensor(), view(input, geometry), mean, scale,
                             shift);
  }
  out = in_memory_format_of({&input_}, out);  // channels-last in, channels-last out, as PyTorch's
  if (record) {
    const DType param_dtype = mixed ? DType::Float32 : input.dtype();
    autograd::record_batch_norm(input_, weight, bias, mean, invstd, training, eps, param_dtype, out);
  }
  if (!training) {
    const Tensor none = empty(DimVector{0}, saved_dtype, device);
    return {out, none, none};
  }
  return {out, to_dtype(mean, saved_dtype), to_dtype(invstd, saved_dtype)};
}

std::array<Tensor, 3> native_batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                 const Tensor& weight, const Tensor& running_mean,
                                                 const Tensor& running_var, const Tensor& save_mean,
                                                 const Tensor& save_invstd, bool training, double eps,
                                                 std::array<bool, 3> output_mask) {
  const bool mixed = check_batch_norm_args(input, weight, Tensor(), running_mean, running_var);
  const DType acc = accumulation_dtype(input.dtype());
  const int64_t channels = input.sizes()[1];
  autograd::GradModeGuard no_grad(false);
  Tensor mean, invstd;
  if (training) {
    for (auto [t, name] : {std::pair{&save_mean, "save_mean"}, std::pair{&save_invstd, "save_invstd"}})
      TANDEM_CHECK(t->defined() && t->numel() == channels && t->device() == input.device(), Runtime, name,
                   " should contain ", channels, " elements on ", input.device().str(),
                   "\nhint: pass the statistics native_batch_norm returned in training");
    mean = in_dtype_or_undefined(save_mean, acc), invstd = in_dtype_or_undefined(save_invstd, acc);
  } else {
    TANDEM_CHECK(running_mean.defined() && running_var.defined(), Runtime,
                 "running_mean must be defined in evaluation mode");
    mean = in_dtype_or_undefined(running_mean, acc);
    invstd = rsqrt(add(in_dtype_or_undefined(running_var, acc), Scalar(eps)));
  }
  return detail::batch_norm_backward_from_stats(grad_out, input, weight, mean, invstd, training,
                                                mixed ? DType::Float32 : input.dtype(), output_mask);
}

}  // namespace tandem
