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

// out= forms with PyTorch's rules (ops/out_arg.h): autograd refused first, then the op's own checks, then
// out's dtype (exactly the result's; outer/ger only need a cast), device and shape (resized with PyTorch's
// warning). The product is computed into a temporary and copied, so out may be an operand
// (tandem.mm(a, b, out=a) gives a @ b; PyTorch's kernels would overwrite a while reading it).
Tensor matmul_out(const Tensor& a, const Tensor& b, const Tensor& out);
Tensor mm_out(const Tensor& a, const Tensor& b, const Tensor& out);
Tensor bmm_out(const Tensor& a, const Tensor& b, const Tensor& out);
Tensor mv_out(const Tensor& mat, const Tensor& vec, const Tensor& out);
Tensor dot_out(const Tensor& a, const Tensor& b, const Tensor& out);
Tensor vdot_out(const Tensor& a, const Tensor& b, const Tensor& out);
Tensor outer_out(const Tensor& a, const Tensor& b, const Tensor& out);
Tensor addmm_out(const Tensor& input, const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                 const Scalar& alpha, const Tensor& out);

}  // namespace tandem
