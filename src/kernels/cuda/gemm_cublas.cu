// Floating-point and complex gemm through cuBLAS (complex: cublasCgemm/Zgemm's types through cublasGemmEx).
// tandem's matrices are row-major-style (row and column strides), cuBLAS is column-major: a row-major m x n
// matrix is the column-major n x m matrix out^T, so out^T = b^T a^T is one cuBLAS product with the operands
// swapped. A matrix with unit column stride is read as it is (OP_N), one with unit row stride as a transpose
// (OP_T), the same rules as linalg_blas.cpp; only a matrix with neither (or a broadcast vector) is first
// packed into contiguous scratch. 16-bit floats accumulate in float; float32 uses TF32 tensor cores only when
// allow_tf32() says so (off by default, as in PyTorch).
#include <cstdint>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "kernels/cuda/flat_launch.cuh"
#include "kernels/cuda/gemm_cuda.h"
#include "kernels/cuda/gemm_plan.h"

namespace tandem::cuda {

namespace {

// dst[b][r][c] = src[b * batch_stride + r * rs + c * cs]: `count` matrices made contiguous. Elements are
// copied as words of their size, so one kernel per element size serves every dtype.
template <typename Word>
__global__ void pack_kernel(Word* __restrict__ dst, const Word* __restrict__ src, int64_t rows, int64_t cols,
                            int64_t batch_stride, int64_t rs, int64_t cs, int64_t total) {
  for (int64_t i = flat_begin(); i < total; i += flat_stride()) {
    const int64_t b = i / (rows * cols), r = (i / cols) % rows, c = i % cols;
    dst[i] = src[b * batch_stride + r * rs + c * cs];
  }
}

void pack(void* dst, const void* src, size_t element_size, int64_t count, int64_t rows, int64_t cols,
          int64_t batch_stride, int64_t rs, int64_t cs, cudaStream_t stream) {
  const int64_t total = count * rows * cols;
  auto launch = [&](auto word) {
    using Word = decltype(word);
    pack_kernel<Word><<<flat_blocks(total), kFlatBlock, 0, stream>>>(
        static_cast<Word*>(dst), static_cast<const Word*>(src), rows, cols, batch_stride, rs, cs, total);
    TANDEM_CUDA_CHECK_LAUNCH();
  };
  if (element_size == 2)
    launch(uint16_t{});
  else if (element_size == 4)
    launch(uint32_t{});
  else if (element_size == 8)
    launch(uint64_t{});
  else
    launch(ulonglong2{});  // complex128
}

// One operand of a launch as cuBLAS reads it.
struct CublasOperand {
  const void* data;
  cublasOperation_t op;
  int64_t ld;
  int64_t batch_stride;
};

// A rows x cols operand of every launch: read in place when cuBLAS can, otherwise packed into scratch that
// is reused by each launch (launches run in stream order, so a pack never overwrites a pending read).
class OperandSource {
 public:
  OperandSource(const MatrixOperand& m, int64_t rows, int64_t cols, int64_t inner_count, int64_t inner_stride,
                size_t element_size, Device device)
      : m_(m),
        rows_(rows),
        cols_(cols),
        element_size_(element_size),
        view_(blas_view(rows, cols, m.row_stride, m.col_stride)) {
    if (view_.usable) return;
    const int64_t matrices = inner_stride == 0 ? 1 : inner_count;  // a broadcast operand is packed once
    scratch_ = allocate_scratch(static_cast<size_t>(matrices * rows * cols) * element_size, device);
  }

  CublasOperand for_launch(int64_t offset, int64_t count, int64_t stride, cudaStream_t stream) const {
    const char* first = static_cast<const char*>(m_.data) + offset * static_cast<int64_t>(element_size_);
    if (view_.usable) return {first, view_.transposed ? CUBLAS_OP_T : CUBLAS_OP_N, view_.ld, stride};
    const int64_t matrices = stride == 0 ? 1 : count;
    pack(scratch_.ptr, first, element_size_, matrices, rows_, cols_, stride, m_.row_stride, m_.col_stride,
         stream);
    return {scratch_.ptr, CUBLAS_OP_N, cols_ > 1 ? cols_ : 1, stride == 0 ? 0 : rows_ * cols_};
  }

 private:
  const MatrixOperand& m_;
  int64_t rows_, cols_;
  size_t element_size_;
  BlasView view_;
  DataPtr scratch_;
};

// The cuBLAS element type and compute type of a floating dtype. Scalars (alpha, beta) are in the compute
// type: double for float64, float otherwise.
struct CublasTypes {
  cudaDataType data;
  cublasComputeType_t compute;
};
CublasTypes cublas_types(DType dtype) {
  switch (dtype) {
    case DType::Float64:
      return {CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case DType::Float16:
      return {CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case DType::BFloat16:
      return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    case DType::Complex64:  // cublasCgemm's types
      return {CUDA_C_32F, CUBLAS_COMPUTE_32F};
    case DType::Complex128:  // cublasZgemm's
      return {CUDA_C_64F, CUBLAS_COMPUTE_64F};
    default:  // float32, the only other dtype gemm_cublas is given
      return {CUDA_R_32F, allow_tf32() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F};
  }
}

}  // namespace

void gemm_cublas(const GemmArgs& g) {
  cudaStream_t stream = current_stream(g.device);
  cublasHandle_t handle = cublas_handle(g.device);
  const CublasTypes types = cublas_types(g.dtype);
  const size_t es = element_size(g.dtype);
  // Scalars as the compute type reads them: (real, imaginary) pairs for complex dtypes.
  const bool double_scalars = g.dtype == DType::Float64 || g.dtype == DType::Complex128;
  const double alpha_d[2] = {g.alpha, 0.0}, beta_d[2] = {g.beta, 0.0};
  const float alpha_f[2] = {static_cast<float>(g.alpha), 0.0f},
              beta_f[2] = {static_cast<float>(g.beta), 0.0f};
  const void* alpha = double_scalars ? static_cast<const void*>(alpha_d) : alpha_f;
  const void* beta = double_scalars ? static_cast<const void*>(beta_d) : beta_f;

  const GemmBatchPlan plan(g);
  const OperandSource a(g.a, g.m, g.k, plan.inner.size, plan.inner.a, es, g.device);
  const OperandSource b(g.b, g.k, g.n, plan.inner.size, plan.inner.b, es, g.device);
  // The output has unit column stride (front-end contract); a single row's leading dim is free.
  const int64_t ldc = blas_ldc(g.m, g.n, g.out.row_stride);
  plan.for_each_launch([&](const GemmLaunch& l) {
    const CublasOperand ca = a.for_launch(l.a_offset, l.count, l.a_stride, stream);
    const CublasOperand cb = b.for_launch(l.b_offset, l.count, l.b_stride, stream);
    void* c = static_cast<char*>(g.out.data) + l.out_offset * static_cast<int64_t>(es);
    // Column-major out^T (n x m) = op(b)^T-view (n x k) * op(a)^T-view (k x m).
    if (l.count == 1) {
      TANDEM_CUBLAS_CHECK(cublasGemmEx_64(handle, cb.op, ca.op, g.n, g.m, g.k, alpha, cb.data, types.data,
                                          cb.ld, ca.data, types.data, ca.ld, beta, c, types.data, ldc,
                                          types.compute, CUBLAS_GEMM_DEFAULT));
    } else {
      TANDEM_CUBLAS_CHECK(cublasGemmStridedBatchedEx_64(
          handle, cb.op, ca.op, g.n, g.m, g.k, alpha, cb.data, types.data, cb.ld, cb.batch_stride, ca.data,
          types.data, ca.ld, ca.batch_stride, beta, c, types.data, ldc, l.out_stride, l.count, types.compute,
          CUBLAS_GEMM_DEFAULT));
    }
  });
}

}  // namespace tandem::cuda
