// Layer normalisation as one kernel forward and one backward (PyTorch's native_layer_norm): F.layer_norm and
// nn.LayerNorm (python/tandem/nn/functional.py) call it; the per-element math is in kernels/norm_functors.h.
#pragma once
#include <array>

#include "core/tensor.h"

namespace tandem {

// The input's last normalized_shape.size() dims normalised: (out, mean, rstd). weight and bias have
// normalized_shape and the input's dtype and device, or are undefined. mean and rstd hold one value per
// normalised row (the input's leading dims, flattened) in the accumulation dtype (float for 16-bit floats).
std::array<Tensor, 3> native_layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                                        const Tensor& weight, const Tensor& bias, double eps);
// The gradients of input, weight and bias (each computed only when its output_mask entry is set, else
// undefined) from grad_out and what the forward saved.
std::array<Tensor, 3> native_layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                 const Tensor& mean, const Tensor& rstd, const Tensor& weight,
                                                 int64_t normalized_dims, std::array<bool, 3> output_mask);

}  // namespace tandem
