// Kernels for the op list's entries, shared by the files that each instantiate a share of them (the whole
// list in one file took ten minutes to compile): a file passes a constexpr predicate on the rule and
// registers only the entries it selects, as the CUDA side does (kernels/cuda/op_list_kernels.cuh).
#pragma once
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/loops.h"
#include "kernels/functors.h"
#include "kernels/kernel_table.h"
#include "kernels/op_accepts.h"
#include "kernels/op_rules.h"

TANDEM_CPU_KERNELS_BEGIN

template <typename F, UnaryRule R>
void unary_kernel(TensorIterator& iter) {
  dispatch_op_dtype<F>(iter.dtype(1), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (unary_accepts<T, R>()) {
      if constexpr (rule_outputs_bool(R))
        unary_loop<bool, T>(iter, F{});
      else
        unary_loop<T, T>(iter, F{});
    }
  });
}

template <typename F, BinaryRule R>
void binary_kernel(TensorIterator& iter) {
  dispatch_op_dtype<F>(iter.dtype(1), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (binary_accepts<T, R>()) {
      if constexpr (rule_outputs_bool(R))
        binary_loop<bool, T>(iter, F{});
      else
        binary_loop<T, T>(iter, F{});
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

// Each fills the slots of its share of op_list.def.
void register_unary_float_kernels(KernelTable& table);
void register_unary_exact_kernels(KernelTable& table);
void register_binary_arith_kernels(KernelTable& table);
void register_binary_compare_kernels(KernelTable& table);

TANDEM_CPU_KERNELS_END
