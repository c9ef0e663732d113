// CUDA put with accumulate=True: self[index(i)] += other[i] with atomics, so duplicate positions add up.
// Native atomicAdd for float, double, int32, int64 (as unsigned long long: two's complement adds alike),
// float16 and bfloat16 (sm_80+); 8/16-bit integers and bool use a compare-and-swap loop on the aligned 32-bit
// word that holds them. Each add rounds to the element type as the CPU's serial loop does.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "kernels/cuda/index_entry.h"
#include "kernels/cuda/reduce_launch.cuh"
#include "kernels/functors.h"

namespace tandem::cuda {

namespace {

// *addr = convert<T>(*addr + v) on the containing 32-bit word, for 1- and 2-byte T.
template <typename T>
__device__ void cas_accumulate(T* addr, T v) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  unsigned* word = reinterpret_cast<unsigned*>(a & ~uintptr_t(3));
  const unsigned shift = static_cast<unsigned>(a & 3) * 8;
  const unsigned mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
  unsigned old = *word, assumed;
  do {
    assumed = old;
    const unsigned bits = (assumed & mask) >> shift;
    T current;
    memcpy(&current, &bits, sizeof(T));  // little-endian: the low bytes
    const T next = convert<T>(static_cast<opmath_t<T>>(current) + static_cast<opmath_t<T>>(v));
    unsigned next_bits = 0;
    memcpy(&next_bits, &next, sizeof(T));
    old = atomicCAS(word, assumed, (assumed & ~mask) | (next_bits << shift));
  } while (assumed != old);
}

template <typename T>
__device__ void atomic_accumulate(T* addr, T v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t>) {
    atomicAdd(addr, v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(v));
  } else if constexpr (std::is_same_v<T, Half>) {
    __half_raw raw;
    raw.x = v.bits;
    atomicAdd(reinterpret_cast<__half*>(addr), __half(raw));
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    __nv_bfloat16_raw raw;
    raw.x = v.bits;
    atomicAdd(reinterpret_cast<__nv_bfloat16*>(addr), __nv_bfloat16(raw));
  } else {
    cas_accumulate(addr, v);
  }
}

template <typename T, int NI>
__global__ void accumulate_kernel(IndexGeometry<NI> g, T* self, const T* other, int64_t total) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t so, oo;
    g.offsets(i, so, oo);
    atomic_accumulate(self + so, other[oo]);
  }
}

}  // namespace

void put_accumulate(const IndexPlan& plan) {
  const int64_t total = compute_numel(plan.shape);
  if (total == 0) return;
  DeviceGuard guard(plan.device);
  cudaStream_t stream = current_stream(plan.device);
  const unsigned blocks = static_cast<unsigned>(std::clamp<int64_t>(ceil_div(total, 256), 1, 65536));
  dispatch_dtype(plan.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* self = reinterpret_cast<T*>(plan.self);
    const T* other = reinterpret_cast<const T*>(plan.other);
    if (plan.indices.size() == 1)
      accumulate_kernel<T, 1><<<blocks, 256, 0, stream>>>(make_index_geometry<1>(plan), self, other, total);
    else
      accumulate_kernel<T, kMaxDims>
          <<<blocks, 256, 0, stream>>>(make_index_geometry<kMaxDims>(plan), self, other, total);
    TANDEM_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace tandem::cuda
