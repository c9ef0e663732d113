// CUDA softmax and log_softmax: the reduce family's softmax slot (contract in kernels/reduce_kernels.h; the
// CPU kernel in kernels/cpu/reduce_softmax_kernels.cpp is the reference). The contiguous input is
// [outer, n, inner]. Each row is read twice: once for its max and sum of exp together (the online form, which
// rescales the running sum when the max grows), once to write. 16-bit floats accumulate in float.
//   inner == 1, n <= kWarpRowMax: a warp per row, rows packed into blocks;
//   inner == 1, longer rows:      a block per row, warps combined through shared memory;
//   inner > 1:                    a thread per (outer, column), walking the row at stride inner (neighbouring
//                                 threads read neighbouring columns, so the loads coalesce).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "core/dtype.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/functors.h"
#include "kernels/kernel_table.h"

namespace tandem::cuda {

namespace {

constexpr int kWarp = 32;
constexpr int64_t kWarpRowMax = 1024;
constexpr int kRowsPerWarpBlock = 4;  // warps (rows) per block of the warp-per-row kernel
constexpr int kBlockRowThreads = 512;
constexpr int kColumnThreads = 256;

template <typename A>
__device__ __forceinline__ A exp_acc(A x) {
  if constexpr (std::is_same_v<A, float>)
    return expf(x);
  else
    return exp(x);
}
template <typename A>
__device__ __forceinline__ A log_acc(A x) {
  if constexpr (std::is_same_v<A, float>)
    return logf(x);
  else
    return log(x);
}

// Running max m and sum s of exp(x - m) over the elements seen. s == 0 means no element has counted yet
// (none seen, or all -inf), which keeps -inf - -inf out of the rescaling. As in the CPU kernel, a NaN
// never becomes the max but turns s into NaN, and +inf gives exp(inf - inf) = NaN.
template <typename A>
struct MaxSum {
  A m, s;
};

template <typename A>
__device__ __forceinline__ MaxSum<A> empty_max_sum() {
  return {-std::numeric_limits<A>::infinity(), A(0)};
}

template <typename A>
__device__ __forceinline__ MaxSum<A> absorb(MaxSum<A> a, A x) {
  if (x > a.m) {
    a.s = a.s * exp_acc(a.m - x) + exp_acc(x - x);
    a.m = x;
  } else if (x != -std::numeric_limits<A>::infinity()) {
    a.s += exp_acc(x - a.m);
  }
  return a;
}

template <typename A>
__device__ __forceinline__ MaxSum<A> combine(MaxSum<A> a, MaxSum<A> b) {
  A m = a.m > b.m ? a.m : b.m;
  A s = (a.s == A(0) ? A(0) : a.s * exp_acc(a.m - m)) + (b.s == A(0) ? A(0) : b.s * exp_acc(b.m - m));
  return {m, s};
}

template <typename A>
__device__ __forceinline__ MaxSum<A> warp_combine(MaxSum<A> v) {
#pragma unroll
  for (int delta = kWarp / 2; delta > 0; delta /= 2) {
    MaxSum<A> other{__shfl_xor_sync(0xffffffffu, v.m, delta), __shfl_xor_sync(0xffffffffu, v.s, delta)};
    v = combine(v, other);
  }
  return v;
}

// out = exp(x - m) / s, or x - m - log(s), for elements first, first + step, ... < n of a row at `stride`.
template <typename T, typename A>
__device__ __forceinline__ void write_row(T* out, const T* in, int64_t n, int64_t stride, int64_t first,
                                          int64_t step, MaxSum<A> r, bool log_space) {
  if (log_space) {
    A log_s = log_acc(r.s);
    for (int64_t k = first; k < n; k += step)
      out[k * stride] = convert<T>((static_cast<A>(in[k * stride]) - r.m) - log_s);
  } else {
    A inv = A(1) / r.s;
    for (int64_t k = first; k < n; k += step)
      out[k * stride] = convert<T>(exp_acc(static_cast<A>(in[k * stride]) - r.m) * inv);
  }
}

// Rows are warp-uniform (threadIdx.y picks the row), so a warp enters and leaves the loop together and its
// shuffles stay full-warp.
template <typename T>
__global__ void softmax_warp_rows(T* out, const T* in, int64_t rows, int64_t n, bool log_space) {
  using A = opmath_t<T>;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * kRowsPerWarpBlock + threadIdx.y; row < rows;
       row += static_cast<int64_t>(gridDim.x) * kRowsPerWarpBlock) {
    const T* src = in + row * n;
    MaxSum<A> acc = empty_max_sum<A>();
    for (int64_t k = threadIdx.x; k < n; k += kWarp) acc = absorb(acc, static_cast<A>(src[k]));
    acc = warp_combine(acc);
    write_row(out + row * n, src, n, 1, threadIdx.x, kWarp, acc, log_space);
  }
}

template <typename T>
__global__ void softmax_block_rows(T* out, const T* in, int64_t rows, int64_t n, bool log_space) {
  using A = opmath_t<T>;
  __shared__ MaxSum<A> partial[kBlockRowThreads / kWarp];
  int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {  // block-uniform, so barriers are safe
    const T* src = in + row * n;
    MaxSum<A> acc = empty_max_sum<A>();
    for (int64_t k = threadIdx.x; k < n; k += kBlockRowThreads) acc = absorb(acc, static_cast<A>(src[k]));
    acc = warp_combine(acc);
    if (lane == 0) partial[warp] = acc;
    __syncthreads();
    // Every warp folds the per-warp results itself, so no broadcast is needed.
    acc = lane < kBlockRowThreads / kWarp ? partial[lane] : empty_max_sum<A>();
    acc = warp_combine(acc);
    __syncthreads();  // partial is rewritten by the next row
    write_row(out + row * n, src, n, 1, threadIdx.x, kBlockRowThreads, acc, log_space);
  }
}

template <typename T>
__global__ void softmax_columns(T* out, const T* in, int64_t outer, int64_t n, int64_t inner,
                                bool log_space) {
  using A = opmath_t<T>;
  int64_t columns = outer * inner;
  for (int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < columns;
       c += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t o = c / inner, j = c % inner;
    const T* src = in + o * n * inner + j;
    MaxSum<A> acc = empty_max_sum<A>();
    for (int64_t k = 0; k < n; ++k) acc = absorb(acc, static_cast<A>(src[k * inner]));
    write_row(out + o * n * inner + j, src, n, inner, 0, 1, acc, log_space);
  }
}

// Blocks for a grid-stride loop over `work` items, `per_block` at a time: one per group of items up to a
// count that fills any device, well within gridDim.x's limit.
unsigned grid_for(int64_t work, int64_t per_block) {
  int64_t blocks = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(std::min<int64_t>(blocks, int64_t{1} << 20));
}

void softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log_space) {
  int64_t outer = 1, n = 1, inner = 1;
  for (int64_t d = 0; d < in.dim(); ++d) (d < dim ? outer : d == dim ? n : inner) *= in.sizes()[d];
  DeviceGuard guard(in.device());
  cudaStream_t stream = current_stream(in.device());
  dispatch_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      const T* src = in.data<T>();
      T* dst = out.data<T>();
      if (inner > 1) {
        softmax_columns<T><<<grid_for(outer * inner, kColumnThreads), kColumnThreads, 0, stream>>>(
            dst, src, outer, n, inner, log_space);
      } else if (n <= kWarpRowMax) {
        softmax_warp_rows<T>
            <<<grid_for(outer, kRowsPerWarpBlock), dim3(kWarp, kRowsPerWarpBlock), 0, stream>>>(
                dst, src, outer, n, log_space);
      } else {
        softmax_block_rows<T>
            <<<grid_for(outer, 1), kBlockRowThreads, 0, stream>>>(dst, src, outer, n, log_space);
      }
      TANDEM_CUDA_CHECK_LAUNCH();
    }
  });
}

}  // namespace

void register_softmax_kernels(KernelTable& table) { table.reduce.softmax = &softmax; }

}  // namespace tandem::cuda
