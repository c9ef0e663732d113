// The parts of the CUDA gemm, one file each; linalg_kernels.cu picks one per call. Each runs on
// current_stream(g.device) and sees a non-empty output.
#pragma once
#include "kernels/linalg_kernels.h"

namespace tandem::cuda {

void gemm_cublas(
    const GemmArgs& g);  // float16, bfloat16, float32, float64, complex with k > 0: gemm_cublas.cu
void gemm_tiled(const GemmArgs& g);         // integer dtypes with k > 0: gemm_tiled.cu
void gemm_scale_output(const GemmArgs& g);  // k == 0, every dtype: out = beta * out, gemm_scale.cu

}  // namespace tandem::cuda
