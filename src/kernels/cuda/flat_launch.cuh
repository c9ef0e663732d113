// Launch geometry shared by the linalg and nn CUDA kernels: flat grid-stride loops over 64-bit counts, and
// the floating-dtype dispatch of kernels that exist only for float types (as on the CPU).
#pragma once
#include <cstdint>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "core/dtype.h"
#include "core/tensor.h"

namespace tandem::cuda {

constexpr int kFlatBlock = 256;
// Enough blocks to fill any current GPU many times over; grid-stride loops cover larger counts.
constexpr int64_t kMaxFlatBlocks = int64_t{1} << 20;

// Blocks for a flat loop over n items: at least one (a launch of zero blocks is an error, so n == 0 gets one
// block whose loop does nothing), at most kMaxFlatBlocks.
inline unsigned flat_blocks(int64_t n) {
  const int64_t blocks = (n + kFlatBlock - 1) / kFlatBlock;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks < kMaxFlatBlocks ? blocks : kMaxFlatBlocks);
}

// The first item of this thread and the stride between its items, in 64 bits.
__device__ __forceinline__ int64_t flat_begin() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t flat_stride() { return static_cast<int64_t>(gridDim.x) * blockDim.x; }

// Calls fn(TypeTag<T>{}) for the floating dtypes (float16, bfloat16, float32, float64); others are never
// passed by the front ends of these kernels.
template <typename Fn>
void dispatch_floating(DType d, Fn&& fn) {
  dispatch_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) fn(tag);
  });
}

// The launch of a flat kernel with one thread per element of `out` (a floating tensor): on out's device and
// current stream, once per dtype. launch(tag, blocks, stream) issues the <<<blocks, kFlatBlock, 0, stream>>>
// call; the launch is checked here. Nothing is launched for an empty `out`.
template <typename Launch>
void launch_flat_floating(const Tensor& out, Launch&& launch) {
  if (out.numel() == 0) return;
  DeviceGuard guard(out.device());
  cudaStream_t stream = current_stream(out.device());
  dispatch_floating(out.dtype(), [&](auto tag) {
    launch(tag, flat_blocks(out.numel()), stream);
    TANDEM_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace tandem::cuda
