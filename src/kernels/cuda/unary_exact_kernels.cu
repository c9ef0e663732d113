// CUDA kernels of the unary ops outside rule Float (neg, abs, rounding, predicates, bitwise_not) and clamp.
#include "kernels/cuda/elementwise_parts.h"
#include "kernels/cuda/op_list_kernels.cuh"

namespace tandem::cuda {
namespace {
constexpr bool in_this_file(UnaryRule r) { return r != UnaryRule::Float && r != UnaryRule::FloatOnly; }

void clamp_kernel(TensorIterator& iter, const Scalar* lo, const Scalar* hi) {
  dispatch_dtype_with_uint(iter.dtype(0), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using op_t = opmath_t<T>;
    const ClampOp<op_t> f = make_clamp<op_t>(lo, hi);
    launch_elementwise<T, T>(iter, UnaryFn<T, T, ClampOp<op_t>>{f});
  });
}
}  // namespace

void register_unary_exact_kernels(KernelTable& table) {
#define TANDEM_UNARY_OP(name, functor, rule, ...) \
  set_unary<in_this_file, functor, UnaryRule::rule>(table, UnaryOp::name);
#include "kernels/op_list.def"
#undef TANDEM_UNARY_OP
  table.clamp = &clamp_kernel;
}

}  // namespace tandem::cuda
