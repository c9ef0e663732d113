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
#include "kernels/cpu/isa_region.h"
#include "kernels/reduce_geometry.h"

TANDEM_CPU_KERNELS_BEGIN

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

TANDEM_CPU_KERNELS_END
