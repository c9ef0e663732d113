// The sum of a value over a thread block, for kernels that give a block one row (or channel) to reduce: the
// normalisation kernels (nn_norm_kernels.cu, nn_batch_norm_kernels.cu).
#pragma once

namespace tandem::cuda {

constexpr int kWarp = 32;
constexpr int kRowThreads = 256;  // threads per block of these kernels

// The sum of v over the block, returned to every thread. `scratch` holds a value per warp; the barrier at the
// end lets the caller reuse it.
template <typename A>
__device__ __forceinline__ A block_sum(A v, A* scratch) {
#pragma unroll
  for (int delta = kWarp / 2; delta > 0; delta /= 2) v += __shfl_xor_sync(0xffffffffu, v, delta);
  const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < kRowThreads / kWarp ? scratch[lane] : A(0);
#pragma unroll
  for (int delta = kWarp / 2; delta > 0; delta /= 2) v += __shfl_xor_sync(0xffffffffu, v, delta);
  __syncthreads();
  return v;
}

}  // namespace tandem::cuda
