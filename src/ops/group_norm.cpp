#include "ops/group_norm.h"

#include <limits>
#include <utility>

#include "autograd/formulas.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "ops/batch_norm.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/layout.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace tandem {

namespace {

using detail::accumulation_dtype, detail::in_dtype_or_undefined;

// A per-(sample, group) tensor (N, G) repeated over each group's channels, as (N * C).
Tensor per_sample_channel(const Tensor& per_group, int64_t n, int64_t group, int64_t channels) {
  return reshape(
      contiguous(expand(view(per_group, DimVector{n, group, 1}), DimVector{n, group, channels / group})),
      DimVector{n * channels});
}

// A per-channel vector (C) repeated for every sample, as (N * C).
Tensor per_sample(const Tensor& per_channel, int64_t n, int64_t channels) {
  return reshape(contiguous(expand(view(per_channel, DimVector{1, channels}), DimVector{n, channels})),
                 DimVector{n * channels});
}

// (N * C) values summed over each group's channels: (N, G).
Tensor group_sums(const Tensor& per_sample_channel_values, int64_t n, int64_t group, int64_t channels) {
  return sum(view(per_sample_channel_values, DimVector{n, group, channels / group}), DimVector{2});
}

// PyTorch's checks of native_group_norm's arguments, in its words; returns whether the call is mixed.
bool check_group_norm_args(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t n,
                           int64_t channels, int64_t hxw, int64_t group) {
  TANDEM_CHECK(group > 0 && channels % group == 0, Runtime,
               "Expected number of channels in input to be divisible by num_groups, but got input of shape ",
               input.shape_str(), " and num_groups=", group);
  TANDEM_CHECK(input.dim() >= 2 && input.sizes()[0] == n && input.sizes()[1] == channels &&
                   input.numel() == n * channels * hxw,
               Runtime, "Expected the input of shape ", input.shape_str(), " to hold N=", n,
               " samples of C=", channels, " channels of HxW=", hxw,
               " values\nhint: pass N, C and HxW of the input itself");
  for (auto [t, name] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}}) {
    if (!t->defined()) continue;
    TANDEM_CHECK(t->dim() == 1 && t->numel() == channels, Runtime, "Expected ", name,
                 " to be a vector of size equal to the number of channels in input, but got ", name,
                 " of shape ", t->shape_str(), " and input of shape ", input.shape_str());
    TANDEM_CHECK(t->device() == input.device(), Runtime,
                 "Expected all tensors to be on the same device, but found at least two devices, ",
                 input.device().str(), " and ", t->device().str(), "!");
  }
  TANDEM_CHECK(is_floating(input.dtype()), NotImplemented, "\"GroupNormKernelImpl\" not implemented for '",
               dtype_title(input.dtype()),
               "'\nhint: convert the input to a floating dtype first, e.g. x.float()");
  return detail::check_parameter_dtypes(input, {{&weight, "weight"}, {&bias, "bias"}});
}

}  // namespace

namespace detail {

std::array<Tensor, 3> group_norm_backward_from_stats(const Tensor& grad_out_, const Tensor& input_,
                                                     const Tensor& mean, const Tensor& rstd,
                                                     const Tensor& weight, int64_t group, DType param_dtype,
                                                     std::array<bool, 3> output_mask) {
  profiler::RecordScope profile_scope("aten::native_group_norm_backward", grad_out_, input_, weight);
  autograd::GradModeGuard no_grad(false);
  const auto [grad_out, input] = detail::backward_operands("native_group_norm_backward", grad_out_, input_);
  const int64_t n = input.sizes()[0], channels = input.sizes()[1];
  const int64_t hxw = n * channels == 0 ? 0 : input.numel() / (n * channels);
  const DType acc = accumulation_dtype(input.dtype());
  const Device device = input.device();
  const NnKernels& kernels = kernel_table(device.type).nn;
  const DimVector geometry{1, n * channels, hxw};
  const Tensor mean_nc = per_sample_channel(mean, n, group, channels);
  Tensor sum_dy = empty(DimVector{n * channels}, acc, device),
         sum_dy_xmu = empty(DimVector{n * channels}, acc, device);
  if (input.numel() > 0)
    kernels.batch_norm_backward_reduce(sum_dy, sum_dy_xmu, view(grad_out, geometry), view(input, geometry),
                                       mean_nc);
  else
    fill_(sum_dy, Scalar(0.0)), fill_(sum_dy_xmu, Scalar(0.0));
  const Tensor rstd_nc = per_sample_channel(rstd, n, group, channels);
  std::array<Tensor, 3> grads;
  if (output_mask[1])
    grads[1] =
        to_dtype(sum(view(mul(sum_dy_xmu, rstd_nc), DimVector{n, channels}), DimVector{0}), param_dtype);
  if (output_mask[2])
    grads[2] = to_dtype(sum(view(sum_dy, DimVector{n, channels}), DimVector{0}), param_dtype);
  if (output_mask[0]) {
    grads[0] = empty(input.sizes(), input.dtype(), device);
    if (input.numel() > 0) {
      // With g = dy w and means over each group's values: dx = rstd (g - mean(g) - xhat mean(g xhat)), which
      // is BatchNormMath's combination per (sample, channel) with a = rstd w, b = -rstd^2 mean(g xhat) and d
      // = -rstd mean(g).
      const Tensor w = in_dtype_or_undefined(weight, acc);
      const Tensor w_nc = w.defined() ? per_sample(w, n, channels) : Tensor();
      const double values_per_group = static_cast<double>(channels / group) * static_cast<double>(hxw);
      const Tensor g_sums = w.defined() ? mul(sum_dy, w_nc) : sum_dy;
      const Tensor gx_sums = w.defined() ? mul(sum_dy_xmu, w_nc) : sum_dy_xmu;
      const Tensor mean_g = mul(group_sums(g_sums, n, group, channels), Scalar(1.0 / values_per_group));
      const Tensor mean_gxhat =
          mul(mul(group_sums(gx_sums, n, group, channels), rstd), Scalar(1.0 / values_per_group));
      const Tensor a = w.defined() ? mul(rstd_nc, w_nc) : rstd_nc;
      const Tensor b = per_sample_channel(neg(mul(mul(rstd, rstd), mean_gxhat)), n, group, channels);
      const Tensor d = per_sample_channel(neg(mul(rstd, mean_g)), n, group, channels);
      kernels.batch_norm_elemt(view(grads[0], geometry), view(grad_out, geometry), a, view(input, geometry),
                               mean_nc, b, d);
    }
  }
  return grads;
}

}  // namespace detail

std::array<Tensor, 3> native_group_norm(const Tensor& input_, const Tensor& weight, const Tensor& bias,
                                        int64_t n, int64_t channels, int64_t hxw, int64_t group, double eps) {
  profiler::RecordScope profile_scope("aten::native_group_norm", input_, weight, bias);
  const bool mixed = check_group_norm_args(input_, weight, bias, n, channels, hxw, group);
  const bool record = autograd::should_record(input_, weight, bias);
  autograd::GradModeGuard no_grad(false);
  const Tensor input = contiguous(input_);
  const DType acc = accumulation_dtype(input.dtype());
  const DType saved_dtype = mixed || !input.device().is_cpu() ? acc : input.dtype();
  const Device device = input.device();
  const NnKernels& kernels = kernel_table(device.type).nn;
  Tensor out = empty(input.sizes(), input.dtype(), device);
  Tensor mean = empty(DimVector{n, group}, acc, device), var = empty(DimVector{n, group}, acc, device);
  const int64_t values_per_group = channels / group * hxw;
  if (n > 0 && values_per_group > 0) {
    kernels.batch_norm_stats(view(mean, DimVector{n * group}), view(var, DimVector{n * group}),
                             view(input, DimVector{1, n * group, values_per_group}));
  } else {  // PyTorch's statistics of empty groups: a mean of 0, a NaN rstd
    fill_(mean, Scalar(0.0)), fill_(var, Scalar(std::numeric_limits<double>::quiet_NaN()));
  }
  const Tensor rstd = rsqrt(add(var, Scalar(eps)));
  if (input.numel() > 0) {
    const Tensor w = in_dtype_or_undefined(weight, acc);
    const Tensor rstd_nc = per_sample_channel(rstd, n, group, channels);
    const Tensor scale = w.defined() ? mul(rstd_nc, per_sample(w, n, channels)) : rstd_nc;
    const Tensor shift = bias.defined() ? per_sample(in_dtype_or_undefined(bias, acc), n, channels)
                                        : full(DimVector{n * channels}, Scalar(0.0), acc, device);
    const DimVector geometry{1, n * channels, hxw};
    kernels.batch_norm_elemt(view(out, geometry), Tensor(), Tensor(), view(input, geometry),
                             per_sample_channel(mean, n, group, channels), scale, shift);
  }
  out = in_memory_format_of({&input_}, out);  // channels-last in, channels-last out, as PyTorch's
  if (record)
    autograd::record_group_norm(input_, weight, bias, mean, rstd, group, eps,
                                mixed ? DType::Float32 : input.dtype(), out);
  return {out, to_dtype(mean, saved_dtype), to_dtype(rstd, saved_dtype)};
}

}  // namespace tandem
