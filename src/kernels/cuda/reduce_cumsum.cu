// CUDA cumsum along the last dim (any strides): one block per row scans it in chunks of blockDim * 4
// elements, carrying the running total from chunk to chunk. Accumulates in opmath_t<T> as the CPU does (float
// for 16-bit floats); integer sums wrap the same way in any order.
#include <algorithm>

#include "kernels/cuda/reduce_entry.h"
#include "kernels/cuda/reduce_launch.cuh"
#include "kernels/functors.h"

namespace tandem::cuda {

namespace {

constexpr int kPerThread = 4;

template <typename A>
__device__ __forceinline__ A shfl_up(A v, int delta) {
  constexpr int kWords = (sizeof(A) + 3) / 4;
  uint32_t w[kWords] = {};
  memcpy(w, &v, sizeof(A));
#pragma unroll
  for (int i = 0; i < kWords; ++i) w[i] = __shfl_up_sync(0xffffffffu, w[i], delta);
  memcpy(&v, w, sizeof(A));
  return v;
}

// Inclusive scan across the warp (a + b rounded to A, as the CPU's sequential loop does per step).
template <typename A>
__device__ __forceinline__ A warp_inclusive_scan(A v, int lane) {
  for (int d = 1; d < 32; d *= 2) {
    A up = shfl_up(v, d);
    if (lane >= d) v = static_cast<A>(up + v);
  }
  return v;
}

template <typename T>
__global__ void __launch_bounds__(kReduceThreads)
    cumsum_kernel(T* out, const T* in, StridedOffsets out_rows, StridedOffsets in_rows, int64_t rows,
                  int64_t n, int64_t so, int64_t si) {
  using A = opmath_t<T>;
  __shared__ __align__(16) unsigned char raw[32 * sizeof(A)];
  A* warp_totals = reinterpret_cast<A*>(raw);
  const int t = threadIdx.x, lane = t % 32, warp = t / 32, nwarps = blockDim.x / 32;
  const int64_t chunk = static_cast<int64_t>(blockDim.x) * kPerThread;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* s = in + in_rows(row);
    T* d = out + out_rows(row);
    A carry = A(0);
    for (int64_t base = 0; base < n; base += chunk) {
      const int64_t i0 = base + static_cast<int64_t>(t) * kPerThread;
      A v[kPerThread];
      A run = A(0);
#pragma unroll
      for (int k = 0; k < kPerThread; ++k) {
        A x = i0 + k < n ? static_cast<A>(s[(i0 + k) * si]) : A(0);
        run = static_cast<A>(run + x);
        v[k] = run;
      }
      const A incl = warp_inclusive_scan(run, lane);
      A excl = shfl_up(incl, 1);
      if (lane == 0) excl = A(0);
      if (lane == 31) warp_totals[warp] = incl;
      __syncthreads();
      if (warp == 0) {
        A w = lane < nwarps ? warp_totals[lane] : A(0);
        w = warp_inclusive_scan(w, lane);
        if (lane < nwarps) warp_totals[lane] = w;
      }
      __syncthreads();
      A prefix = warp ? static_cast<A>(carry + warp_totals[warp - 1]) : carry;
      prefix = static_cast<A>(prefix + excl);
#pragma unroll
      for (int k = 0; k < kPerThread; ++k)
        if (i0 + k < n) d[(i0 + k) * so] = convert<T>(static_cast<A>(prefix + v[k]));
      carry = static_cast<A>(carry + warp_totals[nwarps - 1]);
      __syncthreads();  // warp_totals is rewritten by the next chunk
    }
  }
}

}  // namespace

void cumsum(const Tensor& out, const Tensor& in) {
  const int64_t nd = in.dim();
  const int64_t n = nd ? in.sizes()[nd - 1] : 1, rows = n ? in.numel() / n : 0;
  if (rows == 0 || n == 0) return;
  const int64_t si = nd ? in.strides()[nd - 1] : 0, so = nd ? out.strides()[nd - 1] : 0;
  const int64_t row_dims = nd ? nd - 1 : 0;
  StridedOffsets in_rows = merged_offsets(in.sizes().data(), in.strides().data(), row_dims);
  StridedOffsets out_rows = merged_offsets(out.sizes().data(), out.strides().data(), row_dims);
  const int64_t threads = std::clamp<int64_t>(pow2_ceil(ceil_div(n, kPerThread)), 32, kReduceThreads);
  const int64_t blocks = std::min<int64_t>(rows, int64_t(1) << 30);
  DeviceGuard guard(in.device());
  cudaStream_t stream = current_stream(in.device());
  dispatch_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    cumsum_kernel<T><<<static_cast<unsigned>(blocks), static_cast<unsigned>(threads), 0, stream>>>(
        out.data<T>(), in.data<T>(), out_rows, in_rows, rows, n, so, si);
    TANDEM_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace tandem::cuda
