// The parts of the CUDA nn family, one file each (nvcc is slow on big files); register_nn_kernels in
// nn_kernels.cu installs them all.
#pragma once

namespace tandem {
struct NnKernels;
namespace cuda {
void register_conv_kernels(NnKernels& k);      // im2col, col2im: nn_conv_kernels.cu
void register_max_pool_kernels(NnKernels& k);  // max_pool2d and its backward: nn_max_pool_kernels.cu
void register_avg_pool_kernels(NnKernels& k);  // avg and adaptive avg pooling: nn_avg_pool_kernels.cu
void register_optim_kernels(NnKernels& k);     // sgd_step, adam_step: nn_optim_kernels.cu
void register_rnn_kernels(NnKernels& k);       // the fused LSTM and GRU cells: nn_rnn_kernels.cu
void register_norm_kernels(NnKernels& k);      // layer_norm and its backward: nn_norm_kernels.cu
void register_batch_norm_kernels(
    NnKernels& k);  // batch_norm stats, sums, elementwise: nn_batch_norm_kernels.cu
}  // namespace cuda
}  // namespace tandem
