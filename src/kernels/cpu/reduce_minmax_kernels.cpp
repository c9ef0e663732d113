// CPU folds for max/min (NaN-propagating) and all/any.
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/reduce_fold.h"

TANDEM_CPU_KERNELS_BEGIN

void fold_max_min(ReduceOp op, const Tensor& out, const Tensor& in, int64_t n_reduced) {
  dispatch_dtype_with_uint(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (op == ReduceOp::Max)
      run_fold<T>(MaxMinPolicy<T, true>{}, out, in, n_reduced);
    else
      run_fold<T>(MaxMinPolicy<T, false>{}, out, in, n_reduced);
  });
}

void fold_all_any(ReduceOp op, const Tensor& out, const Tensor& in, int64_t n_reduced) {
  dispatch_dtype_with_uint(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (op == ReduceOp::All)
      run_fold<T>(AllAnyPolicy<T, true>{}, out, in, n_reduced);
    else
      run_fold<T>(AllAnyPolicy<T, false>{}, out, in, n_reduced);
  });
}

TANDEM_CPU_KERNELS_END
