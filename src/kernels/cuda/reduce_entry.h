// The CUDA reduce-family kernels, one translation unit each (nvcc is slow; small units build in parallel).
// register_reduce_kernels (reduce_kernels.cu) puts them in the table.
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "kernels/reduce_kernels.h"

namespace tandem::cuda {
void fold_sum_prod(ReduceOp op, const Tensor& out, const Tensor& in, int64_t n_reduced);  // Sum, Mean, Prod
void fold_max_min(ReduceOp op, const Tensor& out, const Tensor& in, int64_t n_reduced);
void fold_all_any(ReduceOp op, const Tensor& out, const Tensor& in, int64_t n_reduced);
void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& in);
void cumsum(const Tensor& out, const Tensor& in);
void sort(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k, bool descending,
          bool stable);
}  // namespace tandem::cuda
