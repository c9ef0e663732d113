// Recording of the random draws with a gradient (ops/random_gamma.cpp): a gamma sample is differentiable in
// its concentration by implicit reparameterisation; a Poisson sample gets PyTorch's zero gradient.
#pragma once
#include "autograd/formula_node.h"
#include "core/tensor.h"

namespace tandem::autograd {

Tensor record_standard_gamma(const Tensor& alpha, const Tensor& out);
Tensor record_poisson(const Tensor& rates, const Tensor& out);

}  // namespace tandem::autograd
