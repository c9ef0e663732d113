// Kernels for the op list's entries, shared by the .cu files that each instantiate a share of them: a file
// passes a constexpr predicate on the rule and registers only the entries it selects.
#pragma once
#include <type_traits>

#include "kernels/cuda/elementwise_launch.cuh"
#include "kernels/cuda/elementwise_parts.h"
#include "kernels/kernel_table.h"
#include "kernels/op_accepts.h"
#include "kernels/op_rules.h"

namespace tandem::cuda {

// floor, ceil, round and trunc leave integers unchanged: for them those slots reuse copy's instantiations.
template <typename F>
constexpr bool is_rounding_op = std::is_same_v<F, FloorOp> || std::is_same_v<F, CeilOp> ||
                                std::is_same_v<F, RoundOp> || std::is_same_v<F, TruncOp>;

template <typename F, UnaryRule R>
void unary_kernel(TensorIterator& iter) {
  dispatch_op_dtype<F>(iter.dtype(1), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_rounding_op<F> && !is_floating_type_v<T>) {
      copy_kernel(iter);
    } else if constexpr (unary_accepts<T, R>()) {
      using out_t = std::conditional_t<rule_outputs_bool(R), bool, T>;
      launch_elementwise<out_t, T>(iter, UnaryFn<out_t, T, F>{F{}});
    }
  });
}

template <typename F, BinaryRule R>
void binary_kernel(TensorIterator& iter) {
  dispatch_op_dtype<F>(iter.dtype(1), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (binary_accepts<T, R>()) {
      using out_t = std::conditional_t<rule_outputs_bool(R), bool, T>;
      launch_elementwise<out_t, T, T>(iter, BinaryFn<out_t, T, F>{F{}});
    }
  });
}

template <auto InThisFile, typename F, UnaryRule R>
void set_unary(KernelTable& table, UnaryOp op) {
  if constexpr (InThisFile(R)) table.unary[static_cast<int>(op)] = &unary_kernel<F, R>;
}

template <auto InThisFile, typename F, BinaryRule R>
void set_binary(KernelTable& table, BinaryOp op) {
  if constexpr (InThisFile(R)) table.binary[static_cast<int>(op)] = &binary_kernel<F, R>;
}

}  // namespace tandem::cuda
