// The activations with parameters that run as one elementwise kernel (the `activation` and
// `activation_backward` slots); their math is in kernels/activation_functors.h.
#pragma once
#include <cstdint>

namespace tandem {

enum class Activation : int8_t {
  Elu,        // a = alpha, b = scale, c = input_scale (elu, selu, celu)
  LeakyRelu,  // a = negative_slope
  Softplus,   // a = beta, b = threshold
  Hardtanh,   // a = min_val, b = max_val (relu6 is hardtanh(0, 6))
  Hardsigmoid,
  Hardswish,
  Mish,
  LogSigmoid,
  Threshold,   // a = threshold, b = value
  Hardshrink,  // a = lambd
  Softshrink,  // a = lambd
};

// An activation and its parameters (their meaning per activation above).
struct ActivationSpec {
  Activation op = Activation::Elu;
  double a = 0, b = 0, c = 0;
};

}  // namespace tandem
