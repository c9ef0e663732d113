// 2-D pooling front ends (max, average, adaptive average) and their backward passes.
#pragma once
#include <utility>

#include "ops/conv.h"

namespace tandem {

// Returns (output, indices): indices hold the flat h*w position of each maximum (PyTorch's layout).
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, Pair kernel, Pair stride, Pair padding,
                                                  Pair dilation, bool ceil_mode);
Tensor max_pool2d_backward(const Tensor& grad_out, const Tensor& input, const Tensor& indices, Pair kernel,
                           Pair stride, Pair padding, Pair dilation, bool ceil_mode);
Tensor avg_pool2d(const Tensor& input, Pair kernel, Pair stride, Pair padding, bool ceil_mode,
                  bool count_include_pad);
Tensor avg_pool2d_backward(const Tensor& grad_out, const Tensor& input, Pair kernel, Pair stride,
                           Pair padding, bool ceil_mode, bool count_include_pad);
Tensor adaptive_avg_pool2d(const Tensor& input, Pair output_size);
Tensor adaptive_avg_pool2d_backward(const Tensor& grad_out, const Tensor& input);

}  // namespace tandem
