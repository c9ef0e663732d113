// Householder-reflector forms of the QR decomposition, PyTorch's names and rules: torch.geqrf (R and the
// reflectors packed in one matrix, plus their scales tau), torch.linalg.householder_product (alias
// torch.orgqr: the explicit Q of such reflectors) and torch.ormqr (Q applied to a matrix without forming it).
// Batched over leading dims, float32/float64/complex64/complex128, through the LAPACK table's qr_factor,
// qr_q and qr_multiply slots (kernels/lapack_kernels.h).
#pragma once
#include <tuple>

#include "core/tensor.h"

namespace tandem {

// (a, tau): a (..., m, n) holds R on and above its diagonal and the reflectors' vectors below it (their
// leading 1 implicit), tau (..., min(m, n)). Not differentiable (PyTorch's GeqrfBackward0 error).
std::tuple<Tensor, Tensor> geqrf(const Tensor& a);
// The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H, v_i the i-th column of a's (m, n) unit lower
// trapezoid (m >= n >= k = tau.size(-1)). Differentiable in a and tau.
Tensor linalg_householder_product(const Tensor& a, const Tensor& tau);
// op(Q) C (left) or C op(Q), Q = H_1 ... H_k the m x m product of the reflectors of `a` (..., m, n) with k =
// tau.size(-1) = min(m, n), op(Q) = Q^H when `transpose`. Differentiable in a, tau and other.
Tensor ormqr(const Tensor& a, const Tensor& tau, const Tensor& other, bool left, bool transpose);

}  // namespace tandem
