// CUDA kernels of the comparison, logical and bitwise binary ops.
#include "kernels/cuda/elementwise_parts.h"
#include "kernels/cuda/op_list_kernels.cuh"

namespace tandem::cuda {
namespace {
constexpr bool in_this_file(BinaryRule r) {
  return r == BinaryRule::Compare || r == BinaryRule::Logical || r == BinaryRule::Bitwise ||
         r == BinaryRule::Integer;
}
}  // namespace

void register_binary_compare_kernels(KernelTable& table) {
#define TANDEM_BINARY_OP(name, functor, rule, ...) \
  set_binary<in_this_file, functor, BinaryRule::rule>(table, BinaryOp::name);
#include "kernels/op_list.def"
#undef TANDEM_BINARY_OP
}

}  // namespace tandem::cuda
