#include "ops/conv.h"
#include "ops/autocast.h"

#include "autograd/formula_node.h"
#include "core/error.h"
#include "kernels/kernel_table.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/linalg.h"
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

// Group gi's share of dim `dim` (its input channels, its filters, its rows of the output gradient).
Tensor group_slice(const Tensor& t, int64_t dim, int64_t gi, int64_t groups) {
  if (groups == 1) return t;
  const int64_t size = t.size(dim) / groups;
  return narrow(t, dim, gi * size, size);
}

// Writes group gi's result into its slice of `whole`, or makes it the whole result when there is one group.
void place(Tensor& whole, int64_t dim, int64_t gi, int64_t groups, const Tensor& part) {
  if (groups == 1)
    whole = part;
  else
    copy_(group_slice(whole, dim, gi, groups), part);
}

// The (c, ky, kx) x (n, oy, ox) patch matrix of a contiguous input.
Tensor im2col(const Tensor& input, const Window2d& g) {
  Tensor cols = empty(DimVector{g.c * g.kh * g.kw, g.n * g.oh * g.ow}, input.dtype(), input.device());
  if (cols.numel() > 0) kernel_table(input.device().type).nn.im2col(cols, input, g);
  return cols;
}

void check_conv_args(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     Pair stride, Pair padding, Pair dilation, int64_t groups) {
  TANDEM_CHECK(
      input.dim() == 4, Runtime,
      "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: ", input.shape_str());
  TANDEM_CHECK(weight.dim() == 4, Runtime, "weight should have at least three dimensions");
  TANDEM_CHECK(groups > 0, Runtime, "non-positive groups is not supported");
  TANDEM_CHECK(weight.size(0) % groups == 0, Runtime, "Given groups=", groups,
               ", expected weight to be divisible by ", groups, " at dimension 0, but got weight of size ",
               weight.shape_str(), " instead");
  for (int i = 0; i < 2; ++i) {
    TANDEM_CHECK(stride[i] > 0, Runtime, "non-positive stride is not supported");
    TANDEM_CHECK(padding[i] >= 0, Runtime, "negative padding is not supported");
    TANDEM_CHECK(dilation[i] > 0, Runtime, "dilation should be greater than zero");
  }
  TANDEM_CHECK(input.size(1) == weight.size(1) * groups, Runtime, "Given groups=", groups,
               ", weight of size ", weight.shape_str(), ", expected input", input.shape_str(), " to have ",
               weight.size(1) * groups, " channels, but got ", input.size(1), " channels instead");
  check_same_device("conv2d", input, weight, "input", "weight");
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

// ConvolutionBackward0: saved input and weight; ints = stride, padding, dilation, groups; variant 1 =
// unbatched input.
std::vector<Tensor> conv2d_formula(autograd::FormulaNode& n, const Tensor& grad) {
  const bool unbatched = n.variant == 1;
  Tensor input = n.saved_tensor(0), weight = n.saved_tensor(1);
  Conv2dGrads r =
      conv2d_backward(unbatched ? unsqueeze(grad, 0) : grad, unbatched ? unsqueeze(input, 0) : input, weight,
                      {n.ints[0], n.ints[1]}, {n.ints[2], n.ints[3]}, {n.ints[4], n.ints[5]}, n.ints[6],
                      n.needs_input_grad(0), n.needs_input_grad(1), n.needs_input_grad(2));
  if (unbatched && r.input.defined()) r.input = squeeze(r.input, DimVector{0});
  return {r.input, r.weight, r.bias};
}

}  // namespace

Tensor conv2d(const Tensor& input_, const Tensor& weight_, const std::optional<Tensor>& bias, Pair stride,
              Pair padding, Pair dilation, int64_t groups) {
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
  const int64_t cout = weight.size(0), ck = g.c * g.kh * g.kw, nl = g.n * g.oh * g.ow;
  // One GEMM per group: its filters times the patch matrix of its input channels.
  Tensor out_t = groups == 1 ? Tensor() : empty(DimVector{cout, nl}, input.dtype(), input.device());
  for (int64_t gi = 0; gi < groups; ++gi) {
    Tensor w = reshape(group_slice(weight, 0, gi, groups), DimVector{cout / groups, ck});
    place(out_t, 0, gi, groups, mm(w, im2col(contiguous(group_slice(input, 1, gi, groups)), g)));
  }
  Tensor out = contiguous(permute(view(out_t, DimVector{cout, g.n, g.oh, g.ow}), DimVector{1, 0, 2, 3}));
  if (bias) add_(out, view(alias(*bias), DimVector{1, cout, 1, 1}));
  Tensor result = unbatched ? squeeze(out, DimVector{0}) : out;
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
  const int64_t cout = weight.size(0), ck = g.c * g.kh * g.kw;
  // Output gradient as Cout x (n, oy, ox), matching the column order of the patch matrix.
  Tensor g_t = reshape(contiguous(permute(alias(grad_out), DimVector{1, 0, 2, 3})),
                       DimVector{cout, g.n * g.oh * g.ow});
  Conv2dGrads r;
  if (need_bias) r.bias = mv(g_t, full(DimVector{g_t.size(1)}, Scalar(1.0), g_t.dtype(), g_t.device()));
  if (groups > 1 && need_weight) r.weight = empty(weight.sizes(), weight.dtype(), weight.device());
  if (groups > 1 && need_input) r.input = empty(input.sizes(), input.dtype(), input.device());
  const int64_t coutg = cout / groups;
  for (int64_t gi = 0; gi < groups; ++gi) {
    Tensor grad_g = group_slice(g_t, 0, gi, groups);  // contiguous rows
    Tensor input_g = contiguous(group_slice(input, 1, gi, groups));
    if (need_weight)
      place(r.weight, 0, gi, groups,
            reshape(mm(grad_g, t(im2col(input_g, g))), DimVector{coutg, g.c, g.kh, g.kw}));
    if (need_input) {
      Tensor grad_cols = mm(t(reshape(group_slice(weight, 0, gi, groups), DimVector{coutg, ck})), grad_g);
      Tensor grad_input = empty(input_g.sizes(), input.dtype(), input.device());
      if (grad_input.numel() > 0) kernel_table(input.device().type).nn.col2im(grad_input, grad_cols, g);
      place(r.input, 1, gi, groups, grad_input);
    }
  }
  return r;
}

}  // namespace tandem
