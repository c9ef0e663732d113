#include "ops/conv.h"
#include "ops/autocast.h"

#include <algorithm>
#include <vector>

#include "autograd/formula_node.h"
#include "core/error.h"
#include "core/parallel.h"
#include "core/profiler.h"
#include "ops/conv_columns.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/gemm_launch.h"
#include "ops/join.h"
#include "ops/layout.h"
#include "ops/linalg.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace tandem {

Window2d window_geometry(int64_t n, int64_t c, int64_t h, int64_t w, Pair kernel, Pair stride, Pair padding,
                         Pair dilation) {
  Window2d g;
  g.n = n;
  g.c = c;
  g.h = h;
  g.w = w;
  g.kh = kernel[0];
  g.kw = kernel[1];
  g.sh = stride[0];
  g.sw = stride[1];
  g.ph = padding[0];
  g.pw = padding[1];
  g.dh = dilation[0];
  g.dw = dilation[1];
  return g;
}

namespace {

// (size + 2 * pad - dil * (k - 1) - 1) / stride + 1, refused where a huge padding or dilation would overflow.
int64_t conv_output_size(int64_t size, int64_t pad, int64_t dil, int64_t k, int64_t stride) {
  int64_t padded, reach, span;
  bool overflow = __builtin_mul_overflow(pad, 2, &padded) || __builtin_add_overflow(size, padded, &padded) ||
                  __builtin_mul_overflow(dil, k - 1, &reach) ||
                  __builtin_sub_overflow(padded, reach + 1, &span);
  TANDEM_CHECK(!overflow, Runtime, "conv2d: the output size overflows for input size ", size, ", padding ",
               pad, ", dilation ", dil, " and kernel size ", k,
               "\nhint: padding and dilation must be far below 2**62");
  return span / stride + 1;
}

Window2d conv_window(const Tensor& input, const Tensor& weight, Pair stride, Pair padding, Pair dilation) {
  // c: the channels of one group
  Window2d g = window_geometry(input.size(0), weight.size(1), input.size(2), input.size(3),
                               Pair{weight.size(2), weight.size(3)}, stride, padding, dilation);
  g.oh = conv_output_size(g.h, g.ph, g.dh, g.kh, g.sh);
  g.ow = conv_output_size(g.w, g.pw, g.dw, g.kw, g.sw);
  return g;
}

void check_conv_args(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     Pair stride, Pair padding, Pair dilation, int64_t groups) {
  TANDEM_CHECK(
      input.dim() == 4, Runtime,
      "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: ", input.shape_str());
  TANDEM_CHECK(weight.dim() == 4, Runtime, "weight should have at least three dimensions");
  TANDEM_CHECK(groups > 0, Runtime, "non-positive groups is not supported");
  TANDEM_CHECK(weight.size(0) >= groups, Runtime, "Given groups=", groups,
               ", expected weight to be at least ", groups, " at dimension 0, but got weight of size ",
               weight.shape_str(), " instead",
               "\nhint: the weight needs at least one output channel per group");
  TANDEM_CHECK(weight.size(0) % groups == 0, Runtime, "Given groups=", groups,
               ", expected weight to be divisible by ", groups, " at dimension 0, but got weight of size [",
               weight.shape_str(), "] instead");  // the doubled brackets are PyTorch's
  for (int i = 0; i < 2; ++i) {
    TANDEM_CHECK(stride[i] > 0, Runtime, "non-positive stride is not supported");
    TANDEM_CHECK(padding[i] >= 0, Runtime, "negative padding is not supported");
    // PyTorch words a negative dilation and a zero one differently (two checks)
    TANDEM_CHECK(dilation[0] >= 0 && dilation[1] >= 0, Runtime, "dilation should be greater than zero");
    TANDEM_CHECK(dilation[i] > 0, Runtime, "dilation should be greater than zero, but got [", dilation[0],
                 ", ", dilation[1], "]");
  }
  TANDEM_CHECK(input.size(1) == weight.size(1) * groups, Runtime, "Given groups=", groups,
               ", weight of size ", weight.shape_str(), ", expected input", input.shape_str(), " to have ",
               weight.size(1) * groups, " channels, but got ", input.size(1), " channels instead");
  // PyTorch's order: the padded input must hold the (dilated) kernel; then the kernel must not be empty.
  // Sizes that overflow int64 are left to conv_output_size's check.
  int64_t padded[2] = {0, 0}, reach[2] = {0, 0};
  bool fits = true;
  for (int i = 0; i < 2; ++i)
    fits = fits && !__builtin_mul_overflow(padding[i], 2, &padded[i]) &&
           !__builtin_add_overflow(padded[i], input.size(2 + i), &padded[i]) &&
           !__builtin_mul_overflow(dilation[i], weight.size(2 + i) - 1, &reach[i]) &&
           !__builtin_add_overflow(reach[i], 1, &reach[i]);
  TANDEM_CHECK(!fits || (padded[0] >= reach[0] && padded[1] >= reach[1]), Runtime,
               "Calculated padded input size per channel: (", padded[0], " x ", padded[1],
               "). Kernel size: (", reach[0], " x ", reach[1],
               "). Kernel size can't be greater than actual input size\nhint: pad the input or use a smaller "
               "kernel or dilation");
  TANDEM_CHECK(weight.size(2) > 0 && weight.size(3) > 0, Runtime,
               "kernel size should be greater than zero, but got kernel_height: ", weight.size(2),
               " kernel_width: ", weight.size(3));
  check_same_device("conv2d", input, weight, "input", "weight");
  // PyTorch checks the bias's dtype first when there is one (the hint is the weight check's: the same fix).
  const DType param = bias ? bias->dtype() : input.dtype();
  TANDEM_CHECK(!bias || param == input.dtype(), Runtime, "Input type (", dtype_cpp_name(input.dtype()),
               ") and bias type (", dtype_cpp_name(param), ") should be the same\nhint: the input is ",
               dtype_name(input.dtype()), " and the parameters are ", dtype_name(param),
               "; convert the input, e.g. x.", param == DType::Float32 ? "float()" : "to(bias.dtype)",
               input.dtype() == DType::Float64 ? " (NumPy arrays are float64 by default: tandem.from_numpy("
                                                 "a.astype(np.float32)))"
                                               : "");
  TANDEM_CHECK(input.dtype() == weight.dtype(), Runtime, "expected scalar type ", dtype_title(input.dtype()),
               " but found ", dtype_title(weight.dtype()), "\nhint: the input is ", dtype_name(input.dtype()),
               " and the weights are ", dtype_name(weight.dtype()), "; convert the input, e.g. x.",
               weight.dtype() == DType::Float32 ? "float()" : "to(weight.dtype)",
               input.dtype() == DType::Float64 ? " (NumPy arrays are float64 by default: tandem.from_numpy("
                                                 "a.astype(np.float32)))"
                                               : "");
  TANDEM_CHECK(is_floating(input.dtype()), NotImplemented, "\"conv2d\" not implemented for '",
               dtype_title(input.dtype()), "'\nhint: convolve floating-point tensors, e.g. input.float()");
  if (bias) {
    TANDEM_CHECK(bias->dim() == 1 && bias->size(0) == weight.size(0), Runtime, "Given weight of size ",
                 weight.shape_str(), ", expected bias to be 1-dimensional with ", weight.size(0),
                 " elements, but got bias of size ", bias->shape_str(), " instead");
    TANDEM_CHECK(bias->dtype() == input.dtype() && bias->device() == input.device(), Runtime,
                 "Input type and bias type should be the same\nhint: convert the bias with bias.to(input)");
  }
}

// conv2d's gradients written with recorded ops, for create_graph (double backward, and so the jvp, hessian
// and jacfwd of tandem.func): the input's is conv_transpose2d of the output gradient with the same weight
// (output_padding restores the rows the forward's stride dropped); the weight's is, per group, conv2d of
// the input (channels as batch, N as channels) with the output gradient as filters, stride and dilation
// swapped, cropped to the kernel.
Conv2dGrads conv2d_backward_recorded(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                     Pair stride, Pair padding, Pair dilation, int64_t groups,
                                     bool need_input, bool need_weight, bool need_bias) {
  Conv2dGrads r;
  if (need_bias) r.bias = sum(grad, DimVector{0, 2, 3});
  if (need_input) {
    Pair output_padding{};
    for (int d = 0; d < 2; ++d) {
      const int64_t reach =
          (grad.size(2 + d) - 1) * stride[d] - 2 * padding[d] + dilation[d] * (weight.size(2 + d) - 1) + 1;
      output_padding[d] = input.size(2 + d) - reach;
    }
    r.input = conv_transpose2d(grad, weight, std::nullopt, stride, padding, output_padding, dilation, groups);
  }
  if (need_weight) {
    std::vector<Tensor> parts;
    for (int64_t gi = 0; gi < groups; ++gi) {
      Tensor channels_as_batch = permute(group_slice(input, 1, gi, groups), DimVector{1, 0, 2, 3});
      Tensor filters = permute(group_slice(grad, 1, gi, groups), DimVector{1, 0, 2, 3});
      Tensor w = conv2d(channels_as_batch, filters, std::nullopt, dilation, padding, stride, 1);
      w = narrow(narrow(w, 2, 0, weight.size(2)), 3, 0, weight.size(3));
      parts.push_back(permute(w, DimVector{1, 0, 2, 3}));
    }
    r.weight = contiguous(groups == 1 ? parts[0] : cat(parts, 0));
  }
  return r;
}

// ConvolutionBackward0: saved input and weight; ints = stride, padding, dilation, groups; variant 1 =
// unbatched input.
std::vector<Tensor> conv2d_formula(autograd::FormulaNode& n, const Tensor& grad) {
  const bool unbatched = n.variant == 1;
  Tensor input = n.saved_tensor(0), weight = n.saved_tensor(1);
  if (input.size(unbatched ? 0 : 1) == 0) {  // no channels: the (channel-less) output depends on nothing
    auto zeros = [&](int i, const DimVector& sizes) {
      return n.needs_input_grad(i) ? full(sizes, Scalar(0.0), weight.dtype(), weight.device()) : Tensor();
    };
    return {zeros(0, input.sizes()), zeros(1, weight.sizes()), zeros(2, DimVector{weight.size(0)})};
  }
  const bool builds_graph = autograd::GradMode::is_enabled() &&
                            (grad.requires_grad() || input.requires_grad() || weight.requires_grad());
  Conv2dGrads r = (builds_graph ? conv2d_backward_recorded : conv2d_backward)(
      unbatched ? unsqueeze(grad, 0) : grad, unbatched ? unsqueeze(input, 0) : input, weight,
      {n.ints[0], n.ints[1]}, {n.ints[2], n.ints[3]}, {n.ints[4], n.ints[5]}, n.ints[6],
      n.needs_input_grad(0), n.needs_input_grad(1), n.needs_input_grad(2));
  if (unbatched && r.input.defined()) r.input = squeeze(r.input, DimVector{0});
  return {r.input, r.weight, r.bias};
}

// conv2d_backward with whole batch elements per thread (per_element_on_threads): each thread's elements
// in turn, the patch matrix in its cache between im2col, the weight's GEMM, the input's GEMM and col2im. The
// weight's gradient sums over the batch: one partial sum per share of the batch, summed at the end (the
// shares are fixed by the thread count, so a result does not depend on which thread ran which share; each
// share has an element, as there are at least as many elements as threads).
Conv2dGrads conv2d_backward_per_element(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                        const Window2d& g, int64_t groups, bool need_input, bool need_weight,
                                        bool need_bias) {
  const int64_t cout = weight.size(0), coutg = cout / groups, ck = g.c * g.kh * g.kw, l = g.oh * g.ow;
  Conv2dGrads r;
  if (need_bias) r.bias = sum(grad, DimVector{0, 2, 3});
  if (!need_input && !need_weight) return r;
  if (need_input) r.input = empty(input.sizes(), input.dtype(), input.device());
  const int64_t shares = get_num_threads();
  Tensor partial =
      need_weight ? empty(DimVector{shares, cout, ck}, weight.dtype(), weight.device()) : Tensor();
  for_each_element_in_shares(
      g, shares, ck, l, input.dtype(), input.device(),
      [&](int64_t share, int64_t i, bool first, const Window2d& one, const Tensor& cols) {
        for (int64_t gi = 0; gi < groups; ++gi) {
          Tensor grad_rows = select(channel_rows(narrow(grad, 0, i, 1), gi * coutg, coutg), 0, 0);
          if (need_weight) {
            im2col(cols, narrow(narrow(input, 0, i, 1), 1, gi * g.c, g.c), one);
            launch_gemm(grad_rows, t(cols), group_slice(select(partial, 0, share), 0, gi, groups), 1.0,
                        first ? 0.0 : 1.0);
          }
          if (need_input) {
            launch_gemm(t(reshape(group_slice(weight, 0, gi, groups), DimVector{coutg, ck})), grad_rows, cols,
                        1.0, 0.0);
            col2im(narrow(narrow(r.input, 0, i, 1), 1, gi * g.c, g.c), cols, one);
          }
        }
      });
  if (need_weight) r.weight = reshape(sum(partial, DimVector{0}), weight.sizes());
  return r;
}

}  // namespace

Tensor conv2d(const Tensor& input_, const Tensor& weight_, const std::optional<Tensor>& bias, Pair stride,
              Pair padding, Pair dilation, int64_t groups) {
  profiler::RecordScope profile_scope("aten::conv2d", input_, weight_, bias, stride, padding, dilation,
                                      groups);
  if (autocast::is_active())
    return autocast::run(autocast::kLower, conv2d, input_, weight_, bias, stride, padding, dilation, groups);
  // Inner ops work on aliases so that they record nothing for autograd: conv2d is one node.
  const bool unbatched = input_.dim() == 3;
  Tensor input = unbatched ? unsqueeze(alias(input_), 0) : alias(input_);
  Tensor weight = alias(weight_);
  check_conv_args(input, weight, bias, stride, padding, dilation, groups);
  input = contiguous(input);
  const Window2d g = conv_window(input, weight, stride, padding, dilation);
  TANDEM_CHECK(
      g.oh > 0 && g.ow > 0, Runtime, "Calculated output size: (", weight.size(0), "x", g.oh, "x", g.ow,
      "). Output size is too small\nhint: the kernel (with dilation) is larger than the padded input");
  // An input without channels gives an output without channels (PyTorch's shape, not weight.size(0) channels
  // of bias): there is nothing to convolve, so no group runs.
  const bool no_channels = input.size(1) == 0;
  const int64_t cout = no_channels ? 0 : weight.size(0), coutg = cout / groups, ck = g.c * g.kh * g.kw,
                l = g.oh * g.ow;
  // Per group and round of batch elements: the patch matrix, then one batched GEMM (its filters times each
  // element's columns) written straight into those elements' output channels. A bias starts the output,
  // which the GEMMs then add to (one pass over the output, not two).
  Tensor out = empty(DimVector{g.n, cout, g.oh, g.ow}, input.dtype(), input.device());
  if (bias && !no_channels) copy_(out, expand(view(alias(*bias), DimVector{1, cout, 1, 1}), out.sizes()));
  const bool per_element = !no_channels && per_element_on_threads(g, input.device());
  if (per_element) {
    // Each thread convolves whole batch elements: its patch matrix stays in its cache between im2col and
    // the GEMM, and one parallel region replaces the alternation of im2col's and the GEMMs' regions.
    for_each_element_in_shares(
        g, get_num_threads(), ck, l, input.dtype(), input.device(),
        [&](int64_t, int64_t i, bool, const Window2d& one, const Tensor& cols) {
          for (int64_t gi = 0; gi < groups; ++gi) {
            im2col(cols, narrow(narrow(input, 0, i, 1), 1, gi * g.c, g.c), one);
            launch_gemm(reshape(group_slice(weight, 0, gi, groups), DimVector{coutg, ck}), cols,
                        select(channel_rows(narrow(out, 0, i, 1), gi * coutg, coutg), 0, 0), 1.0,
                        bias ? 1.0 : 0.0);
          }
        });
  }
  const int64_t round = batch_per_round(g, input.device());
  Tensor buffer = per_element ? Tensor() : empty(DimVector{ck, round * l}, input.dtype(), input.device());
  for (int64_t gi = 0; gi < groups && !no_channels && !per_element; ++gi) {
    Tensor w = reshape(group_slice(weight, 0, gi, groups), DimVector{coutg, ck});
    Tensor input_g = contiguous(group_slice(input, 1, gi, groups));
    for (int64_t n0 = 0; n0 < g.n; n0 += round) {
      Window2d part = g;
      part.n = std::min(round, g.n - n0);
      Tensor cols = leading_columns(buffer, part.n * l);
      im2col(cols, narrow(input_g, 0, n0, part.n), part);
      gemm_per_batch(w, per_batch(cols, part.n), channel_rows(narrow(out, 0, n0, part.n), gi * coutg, coutg),
                     bias.has_value());
    }
  }
  // A channels-last input or weight gives a channels-last output, as PyTorch's.
  Tensor result = unbatched ? squeeze(out, DimVector{0}) : in_memory_format_of({&input_, &weight_}, out);
  const Tensor* bias_ptr = bias ? &*bias : nullptr;
  if (autograd::should_record(input_, weight_, bias_ptr)) {
    auto node = autograd::make_node("ConvolutionBackward0", &conv2d_formula);
    autograd::set_history(node, {&input_, &weight_, bias_ptr}, {&result});
    node->saved.emplace_back(input_, false);
    node->saved.emplace_back(weight_, false);
    node->ints = DimVector{stride[0], stride[1], padding[0], padding[1], dilation[0], dilation[1], groups};
    node->variant = unbatched ? 1 : 0;
  }
  return result;
}

Conv2dGrads conv2d_backward(const Tensor& grad_out, const Tensor& input_, const Tensor& weight_, Pair stride,
                            Pair padding, Pair dilation, int64_t groups, bool need_input, bool need_weight,
                            bool need_bias) {
  Tensor input = contiguous(alias(input_));
  Tensor weight = alias(weight_);
  const Window2d g = conv_window(input, weight, stride, padding, dilation);
  const int64_t cout = weight.size(0), coutg = cout / groups, ck = g.c * g.kh * g.kw, l = g.oh * g.ow;
  Tensor grad = contiguous(alias(grad_out));
  if (per_element_on_threads(g, input.device()))
    return conv2d_backward_per_element(grad, input, weight, g, groups, need_input, need_weight, need_bias);
  Conv2dGrads r;
  // The weight's and bias's gradients sum over the batch: GEMMs (or a matrix-vector product) over the output
  // gradient as Cout x (n, oy, ox), matching the column order of the patch matrix.
  Tensor g_t;
  if (need_weight || need_bias)
    g_t = reshape(contiguous(permute(grad, DimVector{1, 0, 2, 3})), DimVector{cout, g.n * l});
  if (need_bias) r.bias = mv(g_t, full(DimVector{g_t.size(1)}, Scalar(1.0), g_t.dtype(), g_t.device()));
  if (!need_input && !need_weight) return r;
  // An empty batch sums nothing into the weight's gradient (no round runs).
  if (need_weight) r.weight = full(weight.sizes(), Scalar(0.0), weight.dtype(), weight.device());
  if (need_input) r.input = empty(input.sizes(), input.dtype(), input.device());
  Tensor weight_rows = need_weight ? view(r.weight, DimVector{cout, ck}) : Tensor();
  const int64_t round = batch_per_round(g, input.device());
  Tensor buffer = empty(DimVector{ck, round * l}, input.dtype(), input.device());
  Tensor input_grad_g = need_input && groups > 1
                            ? empty(DimVector{g.n, g.c, g.h, g.w}, input.dtype(), input.device())
                            : r.input;
  for (int64_t gi = 0; gi < groups; ++gi) {
    Tensor input_g = need_weight ? contiguous(group_slice(input, 1, gi, groups)) : Tensor();
    Tensor w = reshape(group_slice(weight, 0, gi, groups), DimVector{coutg, ck});
    for (int64_t n0 = 0; n0 < g.n; n0 += round) {
      Window2d part = g;
      part.n = std::min(round, g.n - n0);
      Tensor cols = leading_columns(buffer, part.n * l);
      if (need_weight) {  // accumulated over the rounds
        im2col(cols, narrow(input_g, 0, n0, part.n), part);
        launch_gemm(narrow(group_slice(g_t, 0, gi, groups), 1, n0 * l, part.n * l), t(cols),
                    group_slice(weight_rows, 0, gi, groups), 1.0, n0 == 0 ? 0.0 : 1.0);
      }
      if (need_input) {
        // Each batch element's columns are the filters' transpose times its own output gradient.
        gemm_per_batch(t(w), channel_rows(narrow(grad, 0, n0, part.n), gi * coutg, coutg),
                       per_batch(cols, part.n));
        col2im(narrow(input_grad_g, 0, n0, part.n), cols, part);
      }
    }
    if (need_input && groups > 1) copy_(group_slice(r.input, 1, gi, groups), input_grad_g);
  }
  return r;
}

}  // namespace tandem
