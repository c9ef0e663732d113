// Kernel slots of the reduce family (filled per device type at backend registration).
//
// Layout contract: front ends hand kernels a view `in` whose leading dims are the kept dims (in the order
// of the contiguous output) and whose trailing dims are the reduced ones, so a kernel never needs to know
// which user dims were reduced. Scan and sort kernels work along the last dim of views of the same shape.
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace tandem {

// Folds with an identity. Sum/Prod/Mean of integral and bool inputs write int64; All/Any write bool
// (uint8 for uint8 input, as PyTorch does); the rest write the input dtype.
enum class ReduceOp : int8_t { Sum, Mean, Prod, Max, Min, All, Any };

// out (contiguous, numel = product of kept sizes) = fold over the last `n_reduced` dims of `in`.
using ReduceKernel = void (*)(ReduceOp op, const Tensor& out, const Tensor& in, int64_t n_reduced);
// values/indices (contiguous, kept shape) = max or min over the last dim of `in`, first index on ties,
// NaN wins (and the first NaN's index is taken) as in PyTorch. `values` may be undefined (argmax only).
using ArgReduceKernel = void (*)(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in);
// out[..., i] = in[..., 0] + ... + in[..., i]; `out` and `in` have the same shape and dtype (any strides).
using CumsumKernel = void (*)(const Tensor& out, const Tensor& in);
// The first k elements of each last-dim row of `in`, sorted (NaN counts as the largest value), with their
// positions in the row. values/indices have in's shape with the last dim k (any strides).
using SortKernel = void (*)(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k,
                            bool descending, bool stable);

// out = softmax of `in` along `dim`, or log_softmax when `log_space`. out and in are contiguous with the same
// floating shape and dtype, numel > 0 (a 0-dim tensor is one row of length 1). Seen as [outer, n, inner]
// with n = size(dim): row (o, j) is in[o, 0..n, j]. Per row: the max m, then s = sum of exp(x - m)
// (accumulated in float for 16-bit floats, in the type itself otherwise), then exp(x - m) / s or x - m -
// log(s). A row holding NaN gives NaN; a row of all -inf gives NaN (-inf - -inf), as in PyTorch.
using SoftmaxKernel = void (*)(const Tensor& out, const Tensor& in, int64_t dim, bool log_space);

// The slots, listed in kernels/kernel_slots.def.
struct ReduceKernels {
#define TANDEM_REDUCE_SLOT(name, Type) Type name = nullptr;
#include "kernels/kernel_slots.def"
#undef TANDEM_REDUCE_SLOT
};

}  // namespace tandem
