// Activations with parameters as single elementwise kernels (kernels/activation.h): PyTorch's elu, selu,
// celu, leaky_relu, softplus, hardtanh, relu6, hardsigmoid, hardswish, mish, logsigmoid, threshold,
// hardshrink and softshrink, named as in torch.nn.functional. Floating inputs (hardtanh, relu6 and threshold
// also take integers, as in PyTorch), every device, with PyTorch's autograd nodes.
#pragma once
#include <string_view>

#include "core/tensor.h"
#include "kernels/activation.h"

namespace tandem {

// `name` is the torch.nn.functional name; a, b, c its parameters in the order of kernels/activation.h
// (the caller fills defaults: elu's scale 1, selu's constants, celu's input_scale 1/alpha, ...).
Tensor activation(std::string_view name, const Tensor& x, double a = 0, double b = 0, double c = 0);
Tensor activation_(std::string_view name, const Tensor& x, double a = 0, double b = 0, double c = 0);
// grad_out * f'(x), one kernel; not recorded (autograd/formulas uses activation_derivative under
// create_graph).
Tensor activation_backward(const ActivationSpec& spec, const Tensor& grad_out, const Tensor& x);
// f'(x) written with differentiable ops, for double backward.
Tensor activation_derivative(const ActivationSpec& spec, const Tensor& x);

}  // namespace tandem
