// Batch normalisation through three kernels (PyTorch's native_batch_norm): per-channel statistics, the
// per-channel sums of the backward pass, and one elementwise combination that serves the output and the input
// gradient (kernels/norm_functors.h, BatchNormMath). F.batch_norm and the BatchNorm modules call it
// (python/tandem/nn/functional.py).
#pragma once
#include <array>
#include <initializer_list>
#include <utility>

#include "core/tensor.h"

namespace tandem {

// (out, save_mean, save_invstd) of an input (N, C, *). In training the batch's statistics normalise, and the
// running statistics, when defined, are updated in place: running = (1 - momentum) running + momentum stat,
// with the unbiased variance. Otherwise the running statistics normalise and save_mean/save_invstd are empty.
// weight, bias, running_mean and running_var are (C) or undefined; a float16/bfloat16 input takes float32
// ones (mixed precision, as PyTorch's CPU kernels), and then the saved statistics are float32.
std::array<Tensor, 3> native_batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                        const Tensor& running_mean, const Tensor& running_var, bool training,
                                        double momentum, double eps);
// The gradients of input, weight and bias (each only when its output_mask entry is set, else undefined).
// In training save_mean/save_invstd are the forward's; otherwise the running statistics are read.
std::array<Tensor, 3> native_batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                 const Tensor& weight, const Tensor& running_mean,
                                                 const Tensor& running_var, const Tensor& save_mean,
                                                 const Tensor& save_invstd, bool training, double eps,
                                                 std::array<bool, 3> output_mask);

namespace detail {
// Shared with group normalisation (ops/group_norm.cpp).
bool is_16bit(DType d);
// The dtype per-channel (per-group) statistics and coefficients are computed in: float for 16-bit inputs.
DType accumulation_dtype(DType d);
// A per-channel tensor (any shape) as a contiguous vector of its numel elements in `dtype`; undefined stays
// so.
Tensor in_dtype_or_undefined(const Tensor& t, DType dtype);
// PyTorch's CPU dtype rule for normalisation parameters (ATen's mixed_type.h): every defined parameter has
// the input's dtype, or (mixed precision, decided by the first defined one) is float32 with a 16-bit input;
// raises PyTorch's messages otherwise. Returns whether the call is mixed.
bool check_parameter_dtypes(const Tensor& input,
                            std::initializer_list<std::pair<const Tensor*, const char*>> params);
// grad_out and input of a normalisation backward (`op` names it in errors): checked to match in shape and
// device, contiguous, grad_out in the input's dtype.
std::pair<Tensor, Tensor> backward_operands(const char* op, const Tensor& grad_out, const Tensor& input);
// The backward from the statistics that normalised (accumulation dtype): autograd's node calls it.
std::array<Tensor, 3> batch_norm_backward_from_stats(const Tensor& grad_out, const Tensor& input,
                                                     const Tensor& weight, const Tensor& mean,
                                                     const Tensor& invstd, bool training, DType param_dtype,
                                                     std::array<bool, 3> output_mask);
}  // namespace detail

}  // namespace tandem
