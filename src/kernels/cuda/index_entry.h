// The CUDA index-family kernels, one translation unit per job; register_index_kernels (index_kernels.cu) puts
// them in the table.
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "kernels/index_kernels.h"

namespace tandem::cuda {
void gather(const IndexPlan& plan);
void put(const IndexPlan& plan, bool accumulate);
void put_accumulate(const IndexPlan& plan);
void min_max(const Tensor& index, int64_t* lo, int64_t* hi);
int64_t count_nonzero(const Tensor& x);
void nonzero(const Tensor& out, const Tensor& x);
void masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
}  // namespace tandem::cuda
