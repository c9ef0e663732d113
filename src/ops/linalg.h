// Matrix products: matmul (every PyTorch case: dot, mv, mm, batched with broadcast batch dims) and the
// explicit forms mm, bmm, mv, dot, outer, addmm. All run through the gemm kernel slot.
#pragma once
#include "core/scalar.h"
#include "core/tensor.h"

namespace tandem {

Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& mat, const Tensor& vec);
Tensor dot(const Tensor& a, const Tensor& b);
// dot(conj(a), b): the first operand conjugated (the same as dot for real tensors).
Tensor vdot(const Tensor& a, const Tensor& b);
Tensor outer(const Tensor& a, const Tensor& b);
// beta * input + alpha * (mat1 @ mat2), input broadcast to the product's shape.
Tensor addmm(const Tensor& input, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
             const Scalar& alpha);

}  // namespace tandem
