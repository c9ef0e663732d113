// CUDA kernels of the unary ops with rule Float (exp, log, sin, ...): floating inputs only.
#include "kernels/cuda/elementwise_parts.h"
#include "kernels/cuda/op_list_kernels.cuh"

namespace tandem::cuda {
namespace {
constexpr bool in_this_file(UnaryRule r) { return r == UnaryRule::Float || r == UnaryRule::FloatOnly; }
}  // namespace

void register_unary_float_kernels(KernelTable& table) {
#define TANDEM_UNARY_OP(name, functor, rule, ...) \
  set_unary<in_this_file, functor, UnaryRule::rule>(table, UnaryOp::name);
#include "kernels/op_list.def"
#undef TANDEM_UNARY_OP
}

}  // namespace tandem::cuda
