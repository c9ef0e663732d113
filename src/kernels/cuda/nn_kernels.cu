// CUDA kernels of the nn family: convolution's im2col/col2im, pooling, the fused optimizer updates and
// recurrent cells.
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/nn_parts.h"
#include "kernels/kernel_table.h"

namespace tandem::cuda {

void register_nn_kernels(KernelTable& table) {
  register_conv_kernels(table.nn);
  register_max_pool_kernels(table.nn);
  register_avg_pool_kernels(table.nn);
  register_optim_kernels(table.nn);
  register_rnn_kernels(table.nn);
  register_norm_kernels(table.nn);
  register_batch_norm_kernels(table.nn);
}

}  // namespace tandem::cuda
