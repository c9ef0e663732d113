// CUDA kernels of the arithmetic binary ops (add, sub, mul, div, floor_divide, remainder, pow, max/min).
#include "kernels/cuda/elementwise_parts.h"
#include "kernels/cuda/op_list_kernels.cuh"
#include "kernels/scaled_add_functor.h"

namespace tandem::cuda {
namespace {
constexpr bool in_this_file(BinaryRule r) {
  return r == BinaryRule::Arith || r == BinaryRule::ArithNoBool || r == BinaryRule::TrueDiv ||
         r == BinaryRule::FloatOnly || r == BinaryRule::IntDiv;
}

// add/sub(alpha=) of floating tensors: the CPU's functor (kernels/functors.h).
void scaled_add_kernel(TensorIterator& iter, double alpha) {
  dispatch_dtype(iter.dtype(0), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      using A = opmath_t<T>;
      using F = ScaledAddOp<A>;
      launch_elementwise<T, T, T>(iter, BinaryFn<T, T, F>{F{static_cast<A>(convert<T>(alpha))}});
    }
  });
}
}  // namespace

void register_binary_arith_kernels(KernelTable& table) {
#define TANDEM_BINARY_OP(name, functor, rule, ...) \
  set_binary<in_this_file, functor, BinaryRule::rule>(table, BinaryOp::name);
#include "kernels/op_list.def"
#undef TANDEM_BINARY_OP
  table.scaled_add = &scaled_add_kernel;
}

}  // namespace tandem::cuda
