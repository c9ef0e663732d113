// CPU kernels of the arithmetic binary ops (add, sub, mul, div, floor_divide, remainder, pow, ...).
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/op_list_kernels.h"

TANDEM_CPU_KERNELS_BEGIN
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

TANDEM_CPU_KERNELS_END
