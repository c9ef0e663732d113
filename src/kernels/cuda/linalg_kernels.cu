// CUDA kernels of the linalg family: gemm through cuBLAS for floating and complex dtypes, a tiled kernel for
// integers (cuBLAS has none), and beta * out for products over an empty inner dim or with alpha == 0.
#include "backend/cuda/cuda_context.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/gemm_cuda.h"
#include "kernels/kernel_table.h"

namespace tandem::cuda {

namespace {

void gemm(const GemmArgs& g) {
  if (g.m == 0 || g.n == 0) return;
  for (int64_t s : g.batch_sizes)
    if (s == 0) return;
  DeviceGuard guard(g.device);
  if (g.k == 0 || g.alpha == 0) return gemm_scale_output(g);  // a and b unread, as on the CPU
  if (is_floating(g.dtype) || is_complex(g.dtype)) return gemm_cublas(g);
  gemm_tiled(g);
}

}  // namespace

void register_linalg_kernels(KernelTable& table) { table.linalg.gemm = &gemm; }

}  // namespace tandem::cuda
