// The row index space of kernels that work row by row along the last dim (cumsum, sort): every dim but the
// last indexes a row, the last dim runs along it.
#pragma once
#include <cstdint>

#include "core/tensor.h"
#include "kernels/cpu/isa_region.h"

TANDEM_CPU_KERNELS_BEGIN

// Sizes and strides of all dims but the last: the row index space (walk it with an OffsetCounter).
struct Rows {
  DimVector sizes, strides;
  int64_t count = 1;
  explicit Rows(const Tensor& t) {
    for (int64_t d = 0; d + 1 < t.dim(); ++d) {
      sizes.push_back(t.sizes()[d]);
      strides.push_back(t.strides()[d]);
      count *= t.sizes()[d];
    }
  }
};

// A 0-dim tensor is one row of length 1.
inline int64_t last_size(const Tensor& t) { return t.dim() ? t.sizes()[t.dim() - 1] : 1; }
inline int64_t last_stride(const Tensor& t) { return t.dim() ? t.strides()[t.dim() - 1] : 0; }

TANDEM_CPU_KERNELS_END
