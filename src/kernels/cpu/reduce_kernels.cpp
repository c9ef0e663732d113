// CPU kernels of the reduce family: the sum/mean/prod folds here, the rest in reduce_*_kernels.cpp.
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/reduce_fold.h"
#include "kernels/kernel_table.h"

TANDEM_CPU_KERNELS_BEGIN

void fold_sum_prod(ReduceOp op, const Tensor& out, const Tensor& in, int64_t n_reduced) {
  dispatch_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (op == ReduceOp::Sum) {
      run_fold<T>(SumPolicy<T>{}, out, in, n_reduced);
    } else if (op == ReduceOp::Prod) {
      run_fold<T>(ProdPolicy<T>{}, out, in, n_reduced);
    } else if constexpr (is_floating_type_v<T>) {  // Mean: front ends only send floating inputs
      int64_t count = out.numel() ? in.numel() / out.numel() : 0;
      MeanPolicy<T> p;
      p.inv_count =
          static_cast<typename MeanPolicy<T>::acc_t>(1) / static_cast<typename MeanPolicy<T>::acc_t>(count);
      run_fold<T>(p, out, in, n_reduced);
    }
  });
}

namespace {
void reduce(ReduceOp op, const Tensor& out, const Tensor& in, int64_t n_reduced) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
    case ReduceOp::Prod:
      fold_sum_prod(op, out, in, n_reduced);
      break;
    case ReduceOp::Max:
    case ReduceOp::Min:
      fold_max_min(op, out, in, n_reduced);
      break;
    case ReduceOp::All:
    case ReduceOp::Any:
      fold_all_any(op, out, in, n_reduced);
      break;
  }
}
}  // namespace

void register_reduce_kernels(KernelTable& table) {
  table.reduce.reduce = &reduce;
  table.reduce.arg_reduce = &arg_reduce;
  table.reduce.cumsum = &cumsum;
  table.reduce.sort = &sort;
  table.reduce.softmax = &softmax;
}

TANDEM_CPU_KERNELS_END
