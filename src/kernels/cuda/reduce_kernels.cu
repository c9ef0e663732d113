// Fills the CUDA table's reduce family; the kernels live in reduce_*.cu.
#include "backend/cuda/cuda_check.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/reduce_entry.h"
#include "kernels/cuda/reduce_launch.cuh"
#include "kernels/kernel_table.h"

namespace tandem::cuda {

int current_sm_count() {
  int device = 0, count = 0;
  TANDEM_CUDA_CHECK(cudaGetDevice(&device));
  TANDEM_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

namespace {
void reduce(ReduceOp op, const Tensor& out, const Tensor& in, int64_t n_reduced) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
    case ReduceOp::Prod:
      return fold_sum_prod(op, out, in, n_reduced);
    case ReduceOp::Max:
    case ReduceOp::Min:
      return fold_max_min(op, out, in, n_reduced);
    case ReduceOp::All:
    case ReduceOp::Any:
      return fold_all_any(op, out, in, n_reduced);
  }
}
}  // namespace

void register_reduce_kernels(KernelTable& table) {
  table.reduce.reduce = &reduce;
  table.reduce.arg_reduce = &arg_reduce;
  table.reduce.cumsum = &cumsum;
  table.reduce.sort = &sort;
}

}  // namespace tandem::cuda
