// Kernel slots of the linalg family (filled per device type at backend registration).
#pragma once
#include "core/small_vector.h"
#include "core/tensor.h"

namespace tandem {

// One operand of a batched matrix product: the data of batch element 0, element strides of its rows and
// columns, and one stride per batch dim (0 where the operand is broadcast over that dim).
struct MatrixOperand {
  void* data = nullptr;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
  DimVector batch_strides;
};

// out[b] = alpha * (a[b] @ b[b]) + beta * out[b] for every index b of `batch_sizes`, with a[b] m x k,
// b[b] k x n, out[b] m x n. All operands have `dtype`. beta == 0 means out is not read (NaN in it does not
// propagate), as in BLAS. Front ends pass the output with unit column stride and never overlapping inputs.
struct GemmArgs {
  Device device;  // where the operands live (an asynchronous backend queues the call there)
  DType dtype = DType::Float32;
  DimVector batch_sizes;  // empty for a single product
  int64_t m = 0, n = 0, k = 0;
  MatrixOperand a, b, out;
  double alpha = 1.0;
  double beta = 0.0;
};
using GemmKernel = void (*)(const GemmArgs& args);

// The slots, listed in kernels/kernel_slots.def.
struct LinalgKernels {
#define TANDEM_LINALG_SLOT(name, Type) Type name = nullptr;
#include "kernels/kernel_slots.def"
#undef TANDEM_LINALG_SLOT
};

}  // namespace tandem
