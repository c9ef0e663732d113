// Kernel slots per device type. Every slot is filled by that device's kernels at start-up
// (kernels/startup.cpp); front ends look up the slot for the output's device and call it. The unary/binary
// arrays are generated from kernels/op_list.def, every other slot from kernels/kernel_slots.def.
#pragma once
#include <cstdint>

#include "core/device.h"
#include "core/scalar.h"
#include "core/tensor.h"
#include "kernels/activation.h"
#include "kernels/complex_kernels.h"
#include "kernels/index_kernels.h"
#include "kernels/linalg_kernels.h"
#include "kernels/nn_kernels.h"
#include "kernels/random_kernels.h"
#include "kernels/reduce_kernels.h"

namespace tandem {

class TensorIterator;

enum class UnaryOp : int {
#define TANDEM_UNARY_OP(name, functor, rule, ...) name,
#include "kernels/op_list.def"
#undef TANDEM_UNARY_OP
  kCount
};
enum class BinaryOp : int {
#define TANDEM_BINARY_OP(name, functor, rule, ...) name,
#include "kernels/op_list.def"
#undef TANDEM_BINARY_OP
  kCount
};
constexpr int kNumUnaryOps = static_cast<int>(UnaryOp::kCount);
constexpr int kNumBinaryOps = static_cast<int>(BinaryOp::kCount);
const char* unary_op_name(UnaryOp op);
const char* binary_op_name(BinaryOp op);

// Operands of elementwise kernels are laid out by a TensorIterator: output first. All inputs already have
// the compute dtype, except where the slot says otherwise.
using ElementwiseKernel = void (*)(TensorIterator& iter);
// out = clamp(in, lo, hi); lo/hi optional.
using ClampKernel = void (*)(TensorIterator& iter, const Scalar* lo, const Scalar* hi);
// activation: out = f(x) (operands out, x); activation_backward: grad_in = grad_out * f'(x) (operands
// grad_in, grad_out, x). Floating dtypes, all operands of one dtype.
using ActivationKernel = void (*)(TensorIterator& iter, const ActivationSpec& spec);
// out = a + alpha * b rounded once (operands out, a, b; floating dtypes, all of one dtype); alpha is rounded
// to that dtype first, as PyTorch's add(alpha=) does.
using ScaledAddKernel = void (*)(TensorIterator& iter, double alpha);

// The op list's slots, then those of kernels/kernel_slots.def: the top-level ones and one struct per family.
struct KernelTable {
  ElementwiseKernel unary[kNumUnaryOps] = {};
  ElementwiseKernel binary[kNumBinaryOps] = {};
#define TANDEM_TOP_SLOT(name, Type) Type name = nullptr;
#include "kernels/kernel_slots.def"
#undef TANDEM_TOP_SLOT
  ReduceKernels reduce;
  IndexKernels index;
  RandomKernels random;
  LinalgKernels linalg;
  NnKernels nn;
};

// Calls visit(path, slot) for every slot of kernel_slots.def in `table`, with path its name ("reduce.sort");
// the op list's arrays are walked by their callers. (Type-generic: `visit` is called with each slot's own
// function-pointer type.)
template <typename Table, typename Visit>
void for_each_kernel_slot(Table& table, Visit&& visit) {
#define TANDEM_TOP_SLOT(name, Type) visit(#name, table.name);
#define TANDEM_REDUCE_SLOT(name, Type) visit("reduce." #name, table.reduce.name);
#define TANDEM_INDEX_SLOT(name, Type) visit("index." #name, table.index.name);
#define TANDEM_RANDOM_SLOT(name, Type) visit("random." #name, table.random.name);
#define TANDEM_LINALG_SLOT(name, Type) visit("linalg." #name, table.linalg.name);
#define TANDEM_NN_SLOT(name, Type) visit("nn." #name, table.nn.name);
#include "kernels/kernel_slots.def"
#undef TANDEM_TOP_SLOT
#undef TANDEM_REDUCE_SLOT
#undef TANDEM_INDEX_SLOT
#undef TANDEM_RANDOM_SLOT
#undef TANDEM_LINALG_SLOT
#undef TANDEM_NN_SLOT
}

KernelTable& kernel_table(DeviceType type);
// The same table without triggering backend registration; only backends call this while registering.
KernelTable& kernel_table_for_registration(DeviceType type);

}  // namespace tandem
