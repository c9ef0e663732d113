// CUDA kernels of the arithmetic binary ops (add, sub, mul, div, floor_divide, remainder, pow, max/min).
#include "kernels/cuda/elementwise_parts.h"
#include "kernels/cuda/op_list_kernels.cuh"

namespace tandem::cuda {
namespace {
constexpr bool in_this_file(BinaryRule r) {
  return r == BinaryRule::Arith || r == BinaryRule::ArithNoBool || r == BinaryRule::TrueDiv ||
         r == BinaryRule::FloatOnly || r == BinaryRule::IntDiv;
}
}  // namespace

void register_binary_arith_kernels(KernelTable& table) {
#define TANDEM_BINARY_OP(name, functor, rule, ...) \
  set_binary<in_this_file, functor, BinaryRule::rule>(table, BinaryOp::name);
#include "kernels/op_list.def"
#undef TANDEM_BINARY_OP
}

}  // namespace tandem::cuda
