// Kernel slots per device type. Every slot is filled by a backend at registration; front ends look up the
// slot for the output's device and call it. The unary/binary arrays are generated from ops/op_list.def.
#pragma once
#include <cstdint>

#include "core/device.h"
#include "core/scalar.h"
#include "core/tensor.h"
#include "kernels/index_kernels.h"
#include "kernels/linalg_kernels.h"
#include "kernels/nn_kernels.h"
#include "kernels/random_kernels.h"
#include "kernels/reduce_kernels.h"

namespace tandem {

class TensorIterator;

enum class UnaryOp : int {
#define TANDEM_UNARY_OP(name, functor, rule) name,
#include "ops/op_list.def"
#undef TANDEM_UNARY_OP
  kCount
};
enum class BinaryOp : int {
#define TANDEM_BINARY_OP(name, functor, rule) name,
#include "ops/op_list.def"
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

struct KernelTable {
  ElementwiseKernel unary[kNumUnaryOps] = {};
  ElementwiseKernel binary[kNumBinaryOps] = {};
  ElementwiseKernel copy = nullptr;   // out = in with dtype conversion (out and in dtypes may differ)
  ElementwiseKernel where = nullptr;  // out = cond ? a : b (cond is bool)
  ClampKernel clamp = nullptr;
  // Families with their own slot structs, one header each.
  ReduceKernels reduce;
  IndexKernels index;
  RandomKernels random;
  LinalgKernels linalg;
  NnKernels nn;
};

KernelTable& kernel_table(DeviceType type);
// The same table without triggering backend registration; only backends call this while registering.
KernelTable& kernel_table_for_registration(DeviceType type);

}  // namespace tandem
