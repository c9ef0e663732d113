// The CUDA loop over a Philox draw: thread b computes block b of the draw with the distribution functor of
// kernels/random_functors.h and stores its values, exactly as the CPU's draw() does for each block. The
// random_*.cu files are compiled without FMA contraction (see CMakeLists.txt), so the floating-point
// expressions round as on the CPU and both devices write the same bits.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "core/philox.h"
#include "kernels/functors.h"
#include "kernels/random_functors.h"

namespace tandem::cuda {

constexpr int kRandomThreads = 256;

inline unsigned random_grid(int64_t work) {
  return static_cast<unsigned>(std::min<int64_t>((work + kRandomThreads - 1) / kRandomThreads, INT32_MAX));
}

template <typename Dist, typename Store>
__global__ void draw_kernel(PhiloxState state, int64_t n, Dist dist, Store store) {
  constexpr int K = Dist::kPerBlock;
  const int64_t blocks = (n + K - 1) / K;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks; b += step) {
    typename Dist::value_type v[K];
    dist(philox_block(state.seed, state.offset + static_cast<uint64_t>(b)), v);
    const int64_t i0 = b * K;
#pragma unroll
    for (int j = 0; j < K; ++j)
      if (i0 + j < n) store(i0 + j, v[j]);
  }
}

// Calls store(i, value) on the device for every element i < n of the draw, on device's current stream.
template <typename Dist, typename Store>
void launch_draw(Device device, PhiloxState state, int64_t n, const Dist& dist, const Store& store) {
  if (n == 0) return;
  DeviceGuard guard(device);
  const int64_t blocks = (n + Dist::kPerBlock - 1) / Dist::kPerBlock;
  draw_kernel<<<random_grid(blocks), kRandomThreads, 0, current_stream(device)>>>(state, n, dist, store);
  TANDEM_CUDA_CHECK_LAUNCH();
}

// Stores each drawn value converted to T.
template <typename T>
struct StoreConverted {
  T* out;
  template <typename V>
  __device__ TANDEM_INLINE void operator()(int64_t i, V v) const {
    out[i] = convert<T>(v);
  }
};

}  // namespace tandem::cuda
