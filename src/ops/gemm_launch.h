// The one call into the gemm kernel slot, for the matrix-product front ends and the ops built on products
// (convolutions write their results straight into strided views of the output through it).
#pragma once
#include "core/tensor.h"

namespace tandem {

// out = alpha * (a @ b) + beta * out, where a is (batch..., m, k), b is (batch..., k, n) and out is
// (batch..., m, n) with unit column stride, not overlapping a or b; a and b may be broadcast over the batch
// dims (zero strides). Nothing is checked or recorded for autograd: callers are front ends that did both.
void launch_gemm(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta);

}  // namespace tandem
