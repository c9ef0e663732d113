// The shape of a CPU reduction, ISA-neutral (compiled once): kept dims (outer) x reduced dims (inner) after
// dropping size-1 dims and merging dims that are contiguous with each other (see
// kernels/cpu/reduce_engine.h).
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace tandem::cpu {

struct ReduceGeometry {
  DimVector kept_sizes, kept_strides;  // outermost first, strides in elements
  DimVector red_sizes, red_strides;    // outermost first, strides in elements
  int64_t n_out = 1, n_red = 1;
};

// Splits `in` (kept dims first, then `n_reduced` reduced dims) into merged kept and reduced dims.
ReduceGeometry make_reduce_geometry(const Tensor& in, int64_t n_reduced);

// Walks a multi-index over (sizes, strides) in row-major order, keeping the element offset up to date.
class OffsetCounter {
 public:
  OffsetCounter(const DimVector& sizes, const DimVector& strides, int64_t start)
      : sizes_(sizes), strides_(strides), idx_(sizes.size(), 0) {
    // Stops once `start` is used up (the remaining indices are 0), so an empty space (a size-0 dim), which is
    // only ever started at 0, is never divided by its zero size.
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0 && start != 0; --d) {
      idx_[d] = start % sizes[d];
      start /= sizes[d];
      offset_ += idx_[d] * strides[d];
    }
  }
  int64_t offset() const { return offset_; }
  void next() {
    for (int64_t d = static_cast<int64_t>(sizes_.size()) - 1; d >= 0; --d) {
      offset_ += strides_[d];
      if (++idx_[d] < sizes_[d]) return;
      offset_ -= idx_[d] * strides_[d];
      idx_[d] = 0;
    }
  }

 private:
  const DimVector& sizes_;
  const DimVector& strides_;
  DimVector idx_;
  int64_t offset_ = 0;
};

}  // namespace tandem::cpu
