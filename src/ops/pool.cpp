#include "ops/pool.h"

#include <limits>

#include "autograd/formula_node.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "ops/copy.h"
#include "ops/indexing.h"
#include "ops/layout.h"
#include "ops/view.h"

namespace tandem {

namespace {

// PyTorch's pooling_output_shape: with ceil_mode the last window must still start inside the input.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil_mode) {
  const int64_t span = in + 2 * pad - dilation * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// The input as a contiguous 4-D tensor (3-D inputs gain a batch dim of 1).
// PyTorch's 2-d pooling narrows its window arguments to int first: a value past int's range is its
// overflow error, before any shape check.
void check_int_window(std::initializer_list<Pair> pairs) {
  for (const Pair& p : pairs)
    for (int64_t v : p)
      TANDEM_CHECK(v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max(),
                   Runtime, "value cannot be converted to type int without overflow",
                   "\nhint: kernel_size, stride, padding and dilation must fit in a 32-bit int");
}

Tensor as_batched(const Tensor& input, const char* op) {
  TANDEM_CHECK(input.dim() == 3 || input.dim() == 4, Runtime,
               "non-empty 3D or 4D (batch mode) tensor expected for input\nhint: ", op,
               " takes images as (C, H, W) or (N, C, H, W); this input has size ", input.shape_str());
  TANDEM_CHECK(is_floating(input.dtype()), NotImplemented, "\"", op, "\" not implemented for '",
               dtype_title(input.dtype()), "'\nhint: pool floating-point tensors, e.g. input.float()");
  Tensor x = contiguous(alias(input));
  return input.dim() == 3 ? unsqueeze(x, 0) : x;
}

Window2d pool_window(const Tensor& x4, Pair kernel, Pair stride, Pair padding, Pair dilation, bool ceil_mode,
                     const char* op) {
  Window2d g =
      window_geometry(x4.size(0), x4.size(1), x4.size(2), x4.size(3), kernel, stride, padding, dilation);
  // PyTorch's checks in its order (a zero kernel is a zero default stride, reported as such).
  for (int i = 0; i < 2; ++i) TANDEM_CHECK(stride[i] != 0, Runtime, "stride should not be zero");
  for (int i = 0; i < 2; ++i)
    TANDEM_CHECK(padding[i] >= 0, Runtime, "pad must be non-negative, but got pad: ", padding[i]);
  for (int i = 0; i < 2; ++i)
    TANDEM_CHECK(padding[i] <= kernel[i] / 2, Runtime,
                 "pad should be at most half of effective kernel size, but got pad=", padding[i],
                 ", kernel_size=", kernel[i], " and dilation=", dilation[i]);
  TANDEM_CHECK(kernel[0] > 0 && kernel[1] > 0, Runtime,
               "kernel size should be greater than zero, but got kH: ", kernel[0], " kW: ", kernel[1]);
  TANDEM_CHECK(stride[0] > 0 && stride[1] > 0, Runtime,
               "stride should be greater than zero, but got dH: ", stride[0], " dW: ", stride[1]);
  TANDEM_CHECK(dilation[0] > 0 && dilation[1] > 0, Runtime,
               "dilation should be greater than zero, but got dilationH: ", dilation[0],
               " dilationW: ", dilation[1]);
  TANDEM_CHECK(g.c > 0 && g.h > 0 && g.w > 0, Runtime,
               "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:",
               x4.shape_str());
  g.oh = pooled_size(g.h, g.kh, g.ph, g.sh, g.dh, ceil_mode);
  g.ow = pooled_size(g.w, g.kw, g.pw, g.sw, g.dw, ceil_mode);
  TANDEM_CHECK(g.oh > 0 && g.ow > 0, Runtime, "Given input size: (", g.c, "x", g.h, "x", g.w,
               "). Calculated output size: (", g.c, "x", g.oh, "x", g.ow,
               "). Output size is too small\nhint: use a smaller kernel or pad the input");
  return g;
}

Tensor like_input(const Tensor& t, const Tensor& input) {
  return input.dim() == 3 ? squeeze(t, DimVector{0}) : t;
}

Pair pair_at(const DimVector& v, size_t i) { return {v[i], v[i + 1]}; }

// Double backward. A pooling backward is linear in the output gradient and, for fixed indices, does not
// depend on the input, so under create_graph its result gets a node whose formula is the backward's adjoint
// applied to the incoming gradient: max pooling's gathers at the saved indices, average pooling's is the
// forward pooling again. Those are recorded ops, so higher orders follow.
bool records_double_backward(const Tensor& grad) {
  return autograd::GradMode::is_enabled() && grad.requires_grad();
}
Tensor record_double_backward(const char* name, autograd::FormulaNode& forward_node,
                              autograd::FormulaNode::Formula f, const Tensor& grad,
                              const Tensor& grad_input) {
  auto node = autograd::make_node(name, f);
  node->saved = forward_node.saved;  // the input (and indices)
  node->ints = forward_node.ints;
  node->variant = forward_node.variant;
  node->sizes = grad.sizes();
  return autograd::record(node, {&grad}, grad_input);
}
std::vector<Tensor> max_pool2d_double_formula(autograd::FormulaNode& n, const Tensor& gg) {
  const Tensor indices = n.saved_tensor(1);  // flat h*w positions per plane, the grad's shape
  const int64_t planes_dim = gg.dim() - 2;
  Tensor picked = gather(flatten(gg, planes_dim), planes_dim, flatten(indices, planes_dim));
  return {reshape(picked, n.sizes)};
}
std::vector<Tensor> avg_pool2d_double_formula(autograd::FormulaNode& n, const Tensor& gg) {
  return {avg_pool2d(gg, pair_at(n.ints, 0), pair_at(n.ints, 2), pair_at(n.ints, 4), n.variant & 1,
                     (n.variant & 2) != 0)};
}
std::vector<Tensor> adaptive_avg_pool2d_double_formula(autograd::FormulaNode& n, const Tensor& gg) {
  return {adaptive_avg_pool2d(gg, {n.sizes[n.sizes.size() - 2], n.sizes[n.sizes.size() - 1]})};
}

// Formulas: ints hold kernel, stride, padding (and dilation) pairs; variant bit 0 = ceil_mode, bit 1 =
// count_include_pad. Saved: the input (and max pooling's indices).
std::vector<Tensor> max_pool2d_formula(autograd::FormulaNode& n, const Tensor& grad) {
  Tensor gi = max_pool2d_backward(grad, n.saved_tensor(0), n.saved_tensor(1), pair_at(n.ints, 0),
                                  pair_at(n.ints, 2), pair_at(n.ints, 4), pair_at(n.ints, 6), n.variant & 1);
  if (records_double_backward(grad))
    gi = record_double_backward("MaxPool2DWithIndicesBackwardBackward0", n, &max_pool2d_double_formula, grad,
                                gi);
  return {gi};
}
std::vector<Tensor> avg_pool2d_formula(autograd::FormulaNode& n, const Tensor& grad) {
  Tensor gi = avg_pool2d_backward(grad, n.saved_tensor(0), pair_at(n.ints, 0), pair_at(n.ints, 2),
                                  pair_at(n.ints, 4), n.variant & 1, (n.variant & 2) != 0);
  if (records_double_backward(grad))
    gi = record_double_backward("AvgPool2DBackwardBackward0", n, &avg_pool2d_double_formula, grad, gi);
  return {gi};
}
std::vector<Tensor> adaptive_avg_pool2d_formula(autograd::FormulaNode& n, const Tensor& grad) {
  Tensor gi = adaptive_avg_pool2d_backward(grad, n.saved_tensor(0));
  if (records_double_backward(grad))
    gi = record_double_backward("AdaptiveAvgPool2DBackwardBackward0", n, &adaptive_avg_pool2d_double_formula,
                                grad, gi);
  return {gi};
}

// Records `node` as the grad_fn of `out` with `input` as its only differentiable input.
std::shared_ptr<autograd::FormulaNode> record_pool(const char* name, autograd::FormulaNode::Formula f,
                                                   const Tensor& input, const Tensor& out, DimVector ints,
                                                   int8_t variant) {
  auto node = autograd::make_node(name, f);
  autograd::set_history(node, {&input}, {&out});
  node->saved.emplace_back(input, false);
  node->ints = std::move(ints);
  node->variant = variant;
  return node;
}

}  // namespace

std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, Pair kernel, Pair stride, Pair padding,
                                                  Pair dilation, bool ceil_mode) {
  profiler::RecordScope profile_scope("aten::max_pool2d_with_indices", input, kernel, stride, padding,
                                      dilation, ceil_mode);
  check_int_window({kernel, stride, padding, dilation});
  Tensor x = as_batched(input, "max_pool2d");
  const Window2d g = pool_window(x, kernel, stride, padding, dilation, ceil_mode, "max_pool2d");
  Tensor out = empty(DimVector{g.n, g.c, g.oh, g.ow}, x.dtype(), x.device());
  Tensor idx = empty(out.sizes(), DType::Int64, x.device());
  if (out.numel() > 0) kernel_table(x.device().type).nn.max_pool2d(out, idx, x, g);
  // A channels-last input gives channels-last results, as PyTorch's.
  Tensor result = like_input(in_memory_format_of({&input}, out), input),
         indices = like_input(in_memory_format_of({&input}, idx), input);
  if (autograd::should_record(input)) {
    auto node = record_pool("MaxPool2DWithIndicesBackward0", &max_pool2d_formula, input, result,
                            DimVector{kernel[0], kernel[1], stride[0], stride[1], padding[0], padding[1],
                                      dilation[0], dilation[1]},
                            ceil_mode ? 1 : 0);
    node->saved.emplace_back(indices, false);
  }
  return {result, indices};
}

Tensor max_pool2d_backward(const Tensor& grad_out, const Tensor& input, const Tensor& indices, Pair kernel,
                           Pair stride, Pair padding, Pair dilation, bool ceil_mode) {
  profiler::RecordScope profile_scope("aten::max_pool2d_with_indices_backward", grad_out, input, indices,
                                      kernel, stride, padding, dilation, ceil_mode);
  check_int_window({kernel, stride, padding, dilation});
  Tensor x = as_batched(input, "max_pool2d");
  const Window2d g = pool_window(x, kernel, stride, padding, dilation, ceil_mode, "max_pool2d");
  Tensor gi = empty(x.sizes(), x.dtype(), x.device());
  Tensor go = contiguous(alias(grad_out)), idx = contiguous(indices);
  if (gi.numel() > 0) kernel_table(x.device().type).nn.max_pool2d_backward(gi, go, idx, g);
  return like_input(gi, input);
}

Tensor avg_pool2d(const Tensor& input, Pair kernel, Pair stride, Pair padding, bool ceil_mode,
                  bool count_include_pad) {
  profiler::RecordScope profile_scope("aten::avg_pool2d", input, kernel, stride, padding, ceil_mode,
                                      count_include_pad);
  check_int_window({kernel, stride, padding});
  Tensor x = as_batched(input, "avg_pool2d");
  const Window2d g = pool_window(x, kernel, stride, padding, {1, 1}, ceil_mode, "avg_pool2d");
  Tensor out = empty(DimVector{g.n, g.c, g.oh, g.ow}, x.dtype(), x.device());
  if (out.numel() > 0) kernel_table(x.device().type).nn.avg_pool2d(out, x, g, count_include_pad);
  Tensor result = like_input(in_memory_format_of({&input}, out), input);
  if (autograd::should_record(input))
    record_pool("AvgPool2DBackward0", &avg_pool2d_formula, input, result,
                DimVector{kernel[0], kernel[1], stride[0], stride[1], padding[0], padding[1]},
                static_cast<int8_t>((ceil_mode ? 1 : 0) | (count_include_pad ? 2 : 0)));
  return result;
}

Tensor avg_pool2d_backward(const Tensor& grad_out, const Tensor& input, Pair kernel, Pair stride,
                           Pair padding, bool ceil_mode, bool count_include_pad) {
  profiler::RecordScope profile_scope("aten::avg_pool2d_backward", grad_out, input, kernel, stride, padding,
                                      ceil_mode, count_include_pad);
  check_int_window({kernel, stride, padding});
  Tensor x = as_batched(input, "avg_pool2d");
  const Window2d g = pool_window(x, kernel, stride, padding, {1, 1}, ceil_mode, "avg_pool2d");
  Tensor gi = empty(x.sizes(), x.dtype(), x.device());
  if (gi.numel() > 0)
    kernel_table(x.device().type)
        .nn.avg_pool2d_backward(gi, contiguous(alias(grad_out)), g, count_include_pad);
  return like_input(gi, input);
}

namespace {
Window2d adaptive_window(const Tensor& x4, Pair output_size) {
  Window2d g;
  g.n = x4.size(0);
  g.c = x4.size(1);
  g.h = x4.size(2);
  g.w = x4.size(3);
  g.oh = output_size[0];
  g.ow = output_size[1];
  TANDEM_CHECK(
      g.oh >= 0 && g.ow >= 0, Runtime,
      "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {", g.oh,
      ", ", g.ow, "}");
  TANDEM_CHECK(
      g.h > 0 && g.w > 0, Runtime,
      "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input "
      "has sizes ",
      x4.shape_str(), " with dimension ", g.h > 0 ? 3 : 2, " being empty");
  return g;
}
}  // namespace

Tensor adaptive_avg_pool2d(const Tensor& input, Pair output_size) {
  profiler::RecordScope profile_scope("aten::adaptive_avg_pool2d", input, output_size);
  Tensor x = as_batched(input, "adaptive_avg_pool2d");
  const Window2d g = adaptive_window(x, output_size);
  Tensor out = empty(DimVector{g.n, g.c, g.oh, g.ow}, x.dtype(), x.device());
  if (out.numel() > 0) kernel_table(x.device().type).nn.adaptive_avg_pool2d(out, x, g);
  Tensor result = like_input(in_memory_format_of({&input}, out), input);
  if (autograd::should_record(input))
    record_pool("AdaptiveAvgPool2DBackward0", &adaptive_avg_pool2d_formula, input, result, DimVector{}, 0);
  return result;
}

Tensor adaptive_avg_pool2d_backward(const Tensor& grad_out, const Tensor& input) {
  profiler::RecordScope profile_scope("aten::adaptive_avg_pool2d_backward", grad_out, input);
  Tensor x = as_batched(input, "adaptive_avg_pool2d");
  const int64_t oh = grad_out.size(-2), ow = grad_out.size(-1);
  const Window2d g = adaptive_window(x, {oh, ow});
  Tensor gi = empty(x.sizes(), x.dtype(), x.device());
  if (gi.numel() > 0)
    kernel_table(x.device().type).nn.adaptive_avg_pool2d_backward(gi, contiguous(alias(grad_out)), g);
  return like_input(gi, input);
}

}  // namespace tandem
