// CPU kernels of the unary ops with rule Float (exp, log, sin, ...).
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/op_list_kernels.h"

TANDEM_CPU_KERNELS_BEGIN
namespace {
constexpr bool in_this_file(UnaryRule r) { return r == UnaryRule::Float || r == UnaryRule::FloatOnly; }
}  // namespace

void register_unary_float_kernels(KernelTable& table) {
#define TANDEM_UNARY_OP(name, functor, rule, ...) \
  set_unary<in_this_file, functor, UnaryRule::rule>(table, UnaryOp::name);
#include "kernels/op_list.def"
#undef TANDEM_UNARY_OP
}

TANDEM_CPU_KERNELS_END
