// Fills the CUDA table's elementwise slots from the per-op-group files (see elementwise_parts.h).
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/elementwise_parts.h"

namespace tandem::cuda {

void register_elementwise_kernels(KernelTable& table) {
  register_unary_float_kernels(table);
  register_unary_exact_kernels(table);
  register_binary_arith_kernels(table);
  register_binary_compare_kernels(table);
  register_copy_kernels(table);
  register_complex_kernels(table);
  register_activation_kernels(table);
}

}  // namespace tandem::cuda
