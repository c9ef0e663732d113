// Front ends of the special functions that are compositions of op-list ops: polygamma (digamma, or the
// Hurwitz zeta), logit with eps (a clamp, then logit), float_power (pow in float64) and multigammaln.
#pragma once
#include <cstdint>

#include "core/scalar.h"
#include "core/tensor.h"

namespace tandem {

// The n-th derivative of digamma: digamma for n = 0, (-1)^(n+1) n! zeta(n + 1, x) above; n < 0 is an error.
Tensor polygamma(int64_t n, const Tensor& x);
Tensor polygamma_(int64_t n, const Tensor& self);
// logit(clamp(x, eps, 1 - eps)); a negative eps clamps nothing, as in PyTorch.
Tensor logit(const Tensor& x, double eps);
Tensor logit_(const Tensor& self, double eps);
// pow with both operands in float64 (PyTorch's float_power); the in-place form needs a float64 base.
Tensor float_power(const Tensor& a, const Tensor& b);
Tensor float_power(const Tensor& a, const Scalar& b);
Tensor float_power(const Scalar& a, const Tensor& b);
Tensor float_power_(const Tensor& self, const Tensor& b);
Tensor float_power_(const Tensor& self, const Scalar& b);
// The log of the multivariate gamma function of dimension p: sum_j lgamma(x - j/2) + p(p-1)/4 log(pi).
Tensor multigammaln(const Tensor& x, int64_t p);
Tensor multigammaln_(const Tensor& self, int64_t p);

}  // namespace tandem
