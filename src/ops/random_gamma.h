// Front ends of the draws that need a rejection sampler (PyTorch's _standard_gamma, poisson, binomial,
// _sample_dirichlet) and of the gamma sample's reparameterised gradient. The math is in
// kernels/gamma_samplers.h; each draw reserves one Philox block per element (its stream's first block).
#pragma once
#include "core/generator.h"
#include "core/tensor.h"

namespace tandem {

// Gamma(alpha, 1) elementwise, in alpha's floating dtype; differentiable in alpha through
// standard_gamma_grad (so Gamma/Beta/Dirichlet.rsample backpropagate).
Tensor standard_gamma(const Tensor& alpha, Generator* gen = nullptr);
// d x / d alpha of Gamma(alpha, 1) samples x (PyTorch's _standard_gamma_grad(self=alpha, output=x)); the
// operands broadcast and must share a floating dtype.
Tensor standard_gamma_grad(const Tensor& alpha, const Tensor& x);
// Poisson(rates) elementwise, in the rates' floating dtype; rates must be >= 0.
Tensor poisson(const Tensor& rates, Generator* gen = nullptr);
// Binomial(count, prob) elementwise; count and prob broadcast and share a floating dtype.
Tensor binomial(const Tensor& count, const Tensor& prob, Generator* gen = nullptr);
// Dirichlet(alpha) along the last dimension: gamma draws (in float64) normalised by their sum.
Tensor sample_dirichlet(const Tensor& alpha, Generator* gen = nullptr);

}  // namespace tandem
