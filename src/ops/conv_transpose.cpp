// conv_transpose2d as the input-gradient half of conv2d run forward: per group, one batched GEMM gives every
// input pixel's products with the filters (the patch matrix of the output) and col2im sums them in place.
// Its backward is conv2d's forward work: im2col of the output gradient, shared by both gradients.
#include <algorithm>
#include <vector>

#include "autograd/formula_node.h"
#include "autograd/grad_mode.h"
#include "core/error.h"
#include "core/parallel.h"
#include "core/profiler.h"
#include "ops/autocast.h"
#include "ops/conv.h"
#include "ops/conv_columns.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/gemm_launch.h"
#include "ops/join.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace tandem {

namespace {

// (size - 1) * stride - 2 * pad + dil * (k - 1) + out_pad + 1, refused where huge arguments would overflow.
int64_t transposed_output_size(int64_t size, int64_t stride, int64_t pad, int64_t dil, int64_t k,
                               int64_t out_pad) {
  int64_t spread, reach, pads, out;
  const bool overflow =
      __builtin_mul_overflow(size - 1, stride, &spread) || __builtin_mul_overflow(dil, k - 1, &reach) ||
      __builtin_mul_overflow(pad, 2, &pads) || __builtin_add_overflow(reach, out_pad + 1, &reach) ||
      __builtin_add_overflow(spread, reach, &out) || __builtin_sub_overflow(out, pads, &out);
  TANDEM_CHECK(!overflow, Runtime, "conv_transpose2d: the output size overflows for input size ", size,
               "\nhint: stride, padding and dilation must be far below 2**62");
  return out;
}

// The window of the conv2d that conv_transpose2d is the adjoint of: its input is our output (g.c = Cout per
// group, g.h x g.w) and its output our input (g.oh x g.ow). The output size is set, not derived: with
// output_padding >= stride (allowed below the dilation) the derived one would be larger.
Window2d transposed_window(const Tensor& input, const Tensor& weight, Pair stride, Pair padding,
                           Pair output_padding, Pair dilation) {
  const int64_t kh = weight.size(2), kw = weight.size(3);
  Window2d g = window_geometry(
      input.size(0), weight.size(1),
      transposed_output_size(input.size(2), stride[0], padding[0], dilation[0], kh, output_padding[0]),
      transposed_output_size(input.size(3), stride[1], padding[1], dilation[1], kw, output_padding[1]),
      Pair{kh, kw}, stride, padding, dilation);
  g.oh = input.size(2);
  g.ow = input.size(3);
  return g;
}

void check_transposed_args(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                           Pair stride, Pair padding, Pair output_padding, Pair dilation, int64_t groups) {
  TANDEM_CHECK(input.dim() == 4, Runtime,
               "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: ",
               input.shape_str());
  TANDEM_CHECK(weight.dim() == 4, Runtime, "Expected 4-dimensional input for 4-dimensional weight ",
               weight.shape_str(), ", but got ", input.dim(), "-dimensional input of size ",
               input.shape_str(), " instead");
  TANDEM_CHECK(groups > 0, Runtime, "non-positive groups is not supported");
  for (int i = 0; i < 2; ++i) {
    TANDEM_CHECK(stride[i] > 0, Runtime, "non-positive stride is not supported");
    TANDEM_CHECK(padding[i] >= 0, Runtime, "negative padding is not supported");
    TANDEM_CHECK(output_padding[i] >= 0, Runtime, "negative output_padding is not supported");
    // PyTorch words a negative dilation and a zero one differently (two checks)
    TANDEM_CHECK(dilation[0] >= 0 && dilation[1] >= 0, Runtime, "dilation should be greater than zero");
    TANDEM_CHECK(dilation[i] > 0, Runtime,
                 "dilation should be greater than zero, but got dilation_height: ", dilation[0],
                 ", dilation_width: ", dilation[1]);
    TANDEM_CHECK(output_padding[i] < stride[i] || output_padding[i] < dilation[i], Runtime,
                 "output padding must be smaller than either stride or dilation");
  }
  TANDEM_CHECK(weight.size(0) % groups == 0, Runtime, "Given groups=", groups,
               ", expected weight to be divisible by ", groups, " at dimension 0, but got weight of size [",
               weight.shape_str(), "] instead");  // the doubled brackets are PyTorch's
  TANDEM_CHECK(input.size(1) == weight.size(0), Runtime, "Given transposed=1, weight of size ",
               weight.shape_str(), ", expected input", input.shape_str(), " to have ", weight.size(0),
               " channels, but got ", input.size(1), " channels instead");
  check_same_device("conv_transpose2d", input, weight, "input", "weight");
  TANDEM_CHECK(input.dtype() == weight.dtype(), Runtime, "expected scalar type ", dtype_title(input.dtype()),
               " but found ", dtype_title(weight.dtype()),
               "\nhint: convert the input, e.g. x.to(weight.dtype)");
  TANDEM_CHECK(is_floating(input.dtype()), NotImplemented, "\"slow_conv_transpose2d\" not implemented for '",
               dtype_title(input.dtype()), "'\nhint: convolve floating-point tensors, e.g. input.float()");
  if (bias) {
    const int64_t cout = weight.size(1) * groups;
    TANDEM_CHECK(bias->dim() == 1 && bias->size(0) == cout, Runtime, "Given transposed=1, weight of size ",
                 weight.shape_str(), ", expected bias to be 1-dimensional with ", cout,
                 " elements, but got bias of size ", bias->shape_str(), " instead");
    TANDEM_CHECK(bias->dtype() == input.dtype() && bias->device() == input.device(), Runtime,
                 "Input type and bias type should be the same\nhint: convert the bias with bias.to(input)");
  }
}

// The gradients as recorded conv2d calls, for a backward that builds a graph (create_graph): the input's is
// conv2d of the output gradient with the same weight, the weight's conv2d of the output gradient (Cout as
// batch, N as channels) with the input as filters (Cin x N x H x W, stride and dilation swapped). Both are
// cropped where output_padding made conv2d's result larger.
Conv2dGrads conv_transpose2d_backward_recorded(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                               Pair stride, Pair padding, Pair dilation, int64_t groups,
                                               bool need_input, bool need_weight, bool need_bias) {
  Conv2dGrads r;
  if (need_bias) r.bias = sum(grad, DimVector{0, 2, 3});
  if (need_input)
    r.input = narrow(
        narrow(conv2d(grad, weight, std::nullopt, stride, padding, dilation, groups), 2, 0, input.size(2)), 3,
        0, input.size(3));
  if (need_weight) {
    std::vector<Tensor> parts;
    for (int64_t gi = 0; gi < groups; ++gi) {
      Tensor filters = permute(group_slice(input, 1, gi, groups), DimVector{1, 0, 2, 3});
      Tensor w = conv2d(permute(group_slice(grad, 1, gi, groups), DimVector{1, 0, 2, 3}), filters,
                        std::nullopt, dilation, padding, stride, 1);
      w = narrow(narrow(w, 2, 0, weight.size(2)), 3, 0, weight.size(3));
      parts.push_back(permute(w, DimVector{1, 0, 2, 3}));
    }
    r.weight = contiguous(groups == 1 ? parts[0] : cat(parts, 0));
  }
  return r;
}

// ConvolutionBackward0 of a transposed convolution: saved input and weight; ints = stride, padding,
// output_padding, dilation, groups.
std::vector<Tensor> conv_transpose2d_formula(autograd::FormulaNode& n, const Tensor& grad) {
  const Tensor input = n.saved_tensor(0), weight = n.saved_tensor(1);
  const Pair stride{n.ints[0], n.ints[1]}, padding{n.ints[2], n.ints[3]}, dilation{n.ints[6], n.ints[7]};
  const bool builds_graph = autograd::GradMode::is_enabled() &&
                            (grad.requires_grad() || input.requires_grad() || weight.requires_grad());
  Conv2dGrads r =
      builds_graph ? conv_transpose2d_backward_recorded(grad, input, weight, stride, padding, dilation,
                                                        n.ints[8], n.needs_input_grad(0),
                                                        n.needs_input_grad(1), n.needs_input_grad(2))
                   : conv_transpose2d_backward(grad, input, weight, stride, padding, {n.ints[4], n.ints[5]},
                                               dilation, n.ints[8], n.needs_input_grad(0),
                                               n.needs_input_grad(1), n.needs_input_grad(2));
  return {r.input, r.weight, r.bias};
}

// conv_transpose2d's input and weight gradients with whole batch elements per thread
// (per_element_on_threads): each element's im2col of the output gradient feeds both GEMMs from the thread's
// cache. The weight's gradient is one partial sum per fixed share of the batch, summed at the end (as
// conv2d's).
void backward_per_element(Conv2dGrads& r, const Tensor& grad, const Tensor& input, const Tensor& weight,
                          const Window2d& g, int64_t groups, bool need_input, bool need_weight) {
  const int64_t cin_g = input.size(1) / groups, ck = g.c * g.kh * g.kw, l = g.oh * g.ow;
  if (need_input) r.input = empty(input.sizes(), input.dtype(), input.device());
  const int64_t shares = get_num_threads();
  Tensor partial =
      need_weight ? empty(DimVector{shares, input.size(1), ck}, weight.dtype(), weight.device()) : Tensor();
  for_each_element_in_shares(
      g, shares, ck, l, input.dtype(), input.device(),
      [&](int64_t share, int64_t i, bool first, const Window2d& one, const Tensor& cols) {
        for (int64_t gi = 0; gi < groups; ++gi) {
          im2col(cols, narrow(narrow(grad, 0, i, 1), 1, gi * g.c, g.c), one);
          if (need_input)
            launch_gemm(reshape(group_slice(weight, 0, gi, groups), DimVector{cin_g, ck}), cols,
                        select(channel_rows(narrow(r.input, 0, i, 1), gi * cin_g, cin_g), 0, 0), 1.0, 0.0);
          if (need_weight)
            launch_gemm(select(channel_rows(narrow(input, 0, i, 1), gi * cin_g, cin_g), 0, 0), t(cols),
                        group_slice(select(partial, 0, share), 0, gi, groups), 1.0, first ? 0.0 : 1.0);
        }
      });
  if (need_weight) r.weight = reshape(sum(partial, DimVector{0}), weight.sizes());
}

}  // namespace

Tensor conv_transpose2d(const Tensor& input_, const Tensor& weight_, const std::optional<Tensor>& bias,
                        Pair stride, Pair padding, Pair output_padding, Pair dilation, int64_t groups) {
  profiler::RecordScope profile_scope("aten::conv_transpose2d", input_, weight_, bias, stride, padding,
                                      output_padding, dilation, groups);
  if (autocast::is_active())
    return autocast::run(autocast::kLower, conv_transpose2d, input_, weight_, bias, stride, padding,
                         output_padding, dilation, groups);
  // Inner ops work on aliases so that they record nothing for autograd: conv_transpose2d is one node.
  check_transposed_args(input_, weight_, bias, stride, padding, output_padding, dilation, groups);
  Tensor input = contiguous(alias(input_));
  Tensor weight = alias(weight_);
  const Window2d g = transposed_window(input, weight, stride, padding, output_padding, dilation);
  TANDEM_CHECK(g.h > 0 && g.w > 0, Runtime, "Given input size per channel: (", g.oh, " x ", g.ow,
               "). Calculated output size per channel: (", g.h, " x ", g.w, "). Output size is too small");
  const int64_t cin_g = input.size(1) / groups, cout = g.c * groups, ck = g.c * g.kh * g.kw, l = g.oh * g.ow;
  Tensor out = empty(DimVector{g.n, cout, g.h, g.w}, input.dtype(), input.device());
  const bool per_element = per_element_on_threads(g, input.device());
  Tensor out_g = groups == 1 || per_element ? out : empty(DimVector{g.n, g.c, g.h, g.w}, input.dtype(), input.device());
  if (per_element) {
    // Whole batch elements per thread, as conv2d's forward: each element's products and col2im in its cache.
    for_each_element_in_shares(g, get_num_threads(), ck, l, input.dtype(), input.device(),
                               [&](int64_t, int64_t i, bool, const Window2d& one, const Tensor& cols) {
                                 for (int64_t gi = 0; gi < groups; ++gi) {
                                   launch_gemm(
                                       t(reshape(group_slice(weight, 0, gi, groups), DimVector{cin_g, ck})),
                                       select(channel_rows(narrow(input, 0, i, 1), gi * cin_g, cin_g), 0, 0),
                                       cols, 1.0, 0.0);
                                   col2im(narrow(narrow(out, 0, i, 1), 1, gi * g.c, g.c), cols, one);
                                 }
                               });
  }
  const int64_t round = batch_per_round(g, input.device());
  Tensor buffer = per_element ? Tensor() : empty(DimVector{ck, round * l}, input.dtype(), input.device());
  for (int64_t gi = 0; gi < groups && !per_element; ++gi) {
    Tensor w = reshape(group_slice(weight, 0, gi, groups), DimVector{cin_g, ck});
    for (int64_t n0 = 0; n0 < g.n; n0 += round) {
      Window2d part = g;
      part.n = std::min(round, g.n - n0);
      Tensor cols = leading_columns(buffer, part.n * l);
      gemm_per_batch(t(w), channel_rows(narrow(input, 0, n0, part.n), gi * cin_g, cin_g),
                     per_batch(cols, part.n));
      col2im(narrow(out_g, 0, n0, part.n), cols, part);
    }
    if (groups > 1) copy_(group_slice(out, 1, gi, groups), out_g);
  }
  if (bias) add_(out, view(alias(*bias), DimVector{1, cout, 1, 1}));
  const Tensor* bias_ptr = bias ? &*bias : nullptr;
  if (autograd::should_record(input_, weight_, bias_ptr)) {
    auto node = autograd::make_node("ConvolutionBackward0", &conv_transpose2d_formula);
    autograd::set_history(node, {&input_, &weight_, bias_ptr}, {&out});
    node->saved.emplace_back(input_, false);
    node->saved.emplace_back(weight_, false);
    node->ints = DimVector{stride[0],         stride[1],   padding[0],  padding[1], output_padding[0],
                           output_padding[1], dilation[0], dilation[1], groups};
  }
  return out;
}

Conv2dGrads conv_transpose2d_backward(const Tensor& grad_out, const Tensor& input_, const Tensor& weight_,
                                      Pair stride, Pair padding, Pair output_padding, Pair dilation,
                                      int64_t groups, bool need_input, bool need_weight, bool need_bias) {
  Tensor input = contiguous(alias(input_));
  Tensor weight = alias(weight_);
  Tensor grad = contiguous(alias(grad_out));
  const Window2d g = transposed_window(input, weight, stride, padding, output_padding, dilation);
  const int64_t cin = input.size(1), cin_g = cin / groups, ck = g.c * g.kh * g.kw, l = g.oh * g.ow;
  Conv2dGrads r;
  if (need_bias) r.bias = sum(grad, DimVector{0, 2, 3});
  if (!need_input && !need_weight) return r;
  if (per_element_on_threads(g, input.device())) {
    backward_per_element(r, grad, input, weight, g, groups, need_input, need_weight);
    return r;
  }
  if (need_input) r.input = empty(input.sizes(), input.dtype(), input.device());
  // The weight's gradient sums over the batch: GEMMs over the input as Cin x (n, y, x), the column order of
  // the patch matrix, accumulated over the rounds (an empty batch leaves it zero).
  Tensor input_t, weight_rows;
  if (need_weight) {
    input_t = reshape(contiguous(permute(input, DimVector{1, 0, 2, 3})), DimVector{cin, g.n * l});
    r.weight = full(weight.sizes(), Scalar(0.0), weight.dtype(), weight.device());
    weight_rows = view(r.weight, DimVector{cin, ck});
  }
  const int64_t round = batch_per_round(g, input.device());
  Tensor buffer = empty(DimVector{ck, round * l}, input.dtype(), input.device());
  for (int64_t gi = 0; gi < groups; ++gi) {
    Tensor grad_g = contiguous(group_slice(grad, 1, gi, groups));
    for (int64_t n0 = 0; n0 < g.n; n0 += round) {
      Window2d part = g;
      part.n = std::min(round, g.n - n0);
      Tensor cols = leading_columns(buffer, part.n * l);
      im2col(cols, narrow(grad_g, 0, n0, part.n), part);
      if (need_input)
        gemm_per_batch(reshape(group_slice(weight, 0, gi, groups), DimVector{cin_g, ck}),
                       per_batch(cols, part.n),
                       channel_rows(narrow(r.input, 0, n0, part.n), gi * cin_g, cin_g));
      if (need_weight)
        launch_gemm(narrow(group_slice(input_t, 0, gi, groups), 1, n0 * l, part.n * l), t(cols),
                    group_slice(weight_rows, 0, gi, groups), 1.0, n0 == 0 ? 0.0 : 1.0);
    }
  }
  return r;
}

}  // namespace tandem
