// Group normalisation through batch normalisation's kernels (ops/batch_norm.h): a (N, C, *) input seen as
// (1, N * G, C / G * HxW) gives each (sample, group)'s mean and variance from the statistics kernel, and as
// (1, N * C, HxW) its output and input gradient from the one elementwise combination, with per-(sample,
// channel) coefficients (group statistics times the channel's weight). F.group_norm and nn.GroupNorm call it.
#pragma once
#include <array>

#include "core/tensor.h"

namespace tandem {

// (out, mean, rstd) as PyTorch's native_group_norm: mean and rstd are (N, group), in the input's dtype on the
// CPU unless the call is mixed (a 16-bit input with float32 weight and bias), else float.
std::array<Tensor, 3> native_group_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                        int64_t n, int64_t channels, int64_t hxw, int64_t group, double eps);

namespace detail {
// The gradients of input, weight and bias (each only when its output_mask entry is set, else undefined) from
// the (N, group) statistics in the accumulation dtype: NativeGroupNormBackward0 calls it.
std::array<Tensor, 3> group_norm_backward_from_stats(const Tensor& grad_out, const Tensor& input,
                                                     const Tensor& mean, const Tensor& rstd,
                                                     const Tensor& weight, int64_t group, DType param_dtype,
                                                     std::array<bool, 3> output_mask);
}  // namespace detail

}  // namespace tandem
