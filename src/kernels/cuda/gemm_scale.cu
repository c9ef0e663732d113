// out = beta * out for a product over an empty inner dim (alpha times an empty sum is zero), with the CPU's
// per-element rule (gemm_math.h): beta == 0 writes zeros without reading out.
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "kernels/cuda/flat_launch.cuh"
#include "kernels/cuda/gemm_cuda.h"
#include "kernels/cuda/gemm_plan.h"
#include "kernels/gemm_math.h"

namespace tandem::cuda {

namespace {

// One launch scales `count` m x n matrices `batch_stride` elements apart.
template <typename T>
__global__ void scale_output_kernel(T* out, int64_t m, int64_t n, int64_t row_stride, int64_t col_stride,
                                    int64_t batch_stride, int64_t total, double beta) {
  for (int64_t i = flat_begin(); i < total; i += flat_stride()) {
    const int64_t b = i / (m * n), r = (i / n) % m, c = i % n;
    T& v = out[b * batch_stride + r * row_stride + c * col_stride];
    v = scale_by_beta(v, beta);
  }
}

}  // namespace

void gemm_scale_output(const GemmArgs& g) {
  cudaStream_t stream = current_stream(g.device);
  const GemmBatchPlan plan(g);
  dispatch_dtype_with_complex(g.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = static_cast<T*>(g.out.data);
    plan.for_each_launch([&](const GemmLaunch& l) {
      const int64_t total = l.count * g.m * g.n;
      scale_output_kernel<T><<<flat_blocks(total), kFlatBlock, 0, stream>>>(
          out + l.out_offset, g.m, g.n, g.out.row_stride, g.out.col_stride, l.out_stride, total, g.beta);
      TANDEM_CUDA_CHECK_LAUNCH();
    });
  });
}

}  // namespace tandem::cuda
