// Recording entry points of the Householder ops (ops/linalg_householder.h) and of the ops PyTorch gives no
// derivative (ldl_factor, ldl_solve: ops/linalg_ldl.h). Each takes the inputs and the outputs the front end
// computed with grad mode off and attaches the node.
#pragma once
#include <initializer_list>

#include "core/tensor.h"

namespace tandem::autograd {

// geqrf's (a, tau): PyTorch's GeqrfBackward0, whose backward raises "the derivative for 'geqrf' is not
// implemented." (NotImplementedError).
void record_geqrf(const Tensor& a, const Tensor& qr, const Tensor& tau);
// Q = householder_product(a, tau): gradients for a (its strictly lower part, the rest zero) and tau.
void record_householder_product(const Tensor& a, const Tensor& tau, const Tensor& q);
// out = ormqr(a, tau, other, left, transpose): gradients for a, tau and other.
void record_ormqr(const Tensor& a, const Tensor& tau, const Tensor& other, bool left, bool transpose,
                  const Tensor& out);
// PyTorch's `torch::autograd::NotImplemented` grad_fn for an op without a derivative (`aten_name`, e.g.
// "aten::linalg_ldl_factor_ex"): the outputs require grad, and backward raises "derivative for <aten_name> is
// not implemented" (RuntimeError). `aten_name` must outlive the node (a string literal).
void record_not_implemented(const char* aten_name, std::initializer_list<const Tensor*> inputs,
                            std::initializer_list<const Tensor*> outputs);

}  // namespace tandem::autograd
