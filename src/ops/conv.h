// 2-D convolution as im2col + one GEMM over the whole batch, and its backward.
#pragma once
#include <array>
#include <optional>

#include "core/tensor.h"
#include "kernels/nn_kernels.h"

namespace tandem {

using Pair = std::array<int64_t, 2>;

// The sliding-window geometry shared by convolution and pooling (output size left for the caller, which is
// where the two differ): batch n, channels c, input h x w, kernel, stride, padding and dilation.
Window2d window_geometry(int64_t n, int64_t c, int64_t h, int64_t w, Pair kernel, Pair stride, Pair padding,
                         Pair dilation);

// input N x C x H x W (or C x H x W), weight Cout x C/groups x kh x kw, bias Cout.
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, Pair stride,
              Pair padding, Pair dilation, int64_t groups);

struct Conv2dGrads {
  Tensor input, weight, bias;  // undefined where not asked for
};
// Gradients of conv2d (batched 4-D input) given the gradient of its output.
Conv2dGrads conv2d_backward(const Tensor& grad_out, const Tensor& input, const Tensor& weight, Pair stride,
                            Pair padding, Pair dilation, int64_t groups, bool need_input, bool need_weight,
                            bool need_bias);

// The adjoint of conv2d (ops/conv_transpose.cpp): input N x Cin x H x W, weight Cin x Cout/groups x kh x kw,
// bias Cout; each input pixel's products with the filters are summed into its window of the output (one
// batched GEMM per group, then col2im), cropped by `padding` and extended at the end by `output_padding`.
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        Pair stride, Pair padding, Pair output_padding, Pair dilation, int64_t groups);
// Its gradients given the gradient of its output (which is conv2d's work: im2col of grad_out, shared by the
// input's and the weight's gradient).
Conv2dGrads conv_transpose2d_backward(const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                      Pair stride, Pair padding, Pair output_padding, Pair dilation,
                                      int64_t groups, bool need_input, bool need_weight, bool need_bias);

}  // namespace tandem
