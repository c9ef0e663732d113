// The CPU reduction engine shared by the fold, arg-reduce, scan and sort kernels. A reduction is seen as
// kept dims (outer) x reduced dims (inner) after dropping size-1 dims and merging dims that are contiguous
// with each other, so most reductions become one of two fast shapes:
//   (a) the innermost reduced dim has stride 1: each output folds contiguous strips (vectorised);
//   (b) the innermost kept dim has stride 1: whole input rows are folded into a row of accumulators,
//       acc[j] = f(acc[j], in[r, j]), vectorised over j.
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/parallel.h"
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

// Elements of work below which a reduction stays on one thread.
constexpr int64_t kReduceGrain = 32768;

// Output-parallel loop: fn(begin, end) over output indices, with a grain that keeps each chunk worth a
// thread's start-up cost.
template <typename Fn>
void parallel_over_outputs(int64_t n_out, int64_t work_per_output, const Fn& fn) {
  int64_t grain = std::max<int64_t>(1, kReduceGrain / std::max<int64_t>(work_per_output, 1));
  parallel_for(0, n_out, grain, fn);
}

// True when the outputs alone cannot keep the threads busy but the reduction is big enough to split.
inline bool should_split_reduction(int64_t units, int64_t n_red_outer, int64_t work) {
  int threads = get_num_threads();
  return threads > 1 && units < 2 * threads && n_red_outer >= 2 * threads && work >= 2 * kReduceGrain;
}

}  // namespace tandem::cpu
