// CUDA kernel of randperm with the CPU's definition: indices sorted by their 64-bit Philox keys, ties by
// index (a stable radix sort of the indices in increasing order), so both devices give one permutation.
#include "kernels/cuda/random_launch.cuh"
#include "kernels/cuda/random_parts.h"
#include "kernels/kernel_table.h"

namespace tandem::cuda {
namespace {

template <typename T>
__global__ void convert_indices_kernel(T* out, const int64_t* indices, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    out[i] = convert<T>(indices[i]);
}

void randperm_kernel(const Tensor& out, PhiloxState state) {
  const int64_t n = out.numel();
  if (n == 0) return;
  const Device device = out.device();
  DeviceGuard guard(device);
  cudaStream_t stream = current_stream(device);
  const size_t bytes = static_cast<size_t>(n) * sizeof(uint64_t);
  DataPtr keys = allocate_scratch(2 * bytes, device), indices = allocate_scratch(2 * bytes, device);
  uint64_t* keys_in = static_cast<uint64_t*>(keys.ptr);
  int64_t* indices_in = static_cast<int64_t*>(indices.ptr);
  launch_draw(device, state, n, Key64Dist{}, StoreConverted<uint64_t>{keys_in});
  fill_iota(indices_in, n, stream);
  const bool direct = out.dtype() == DType::Int64;
  int64_t* sorted = direct ? out.data<int64_t>() : indices_in + n;
  sort_pairs(keys_in, keys_in + n, indices_in, sorted, n, 64, device, stream);
  if (direct) return;
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    convert_indices_kernel<<<random_grid(n), kRandomThreads, 0, stream>>>(out.data<T>(), sorted, n);
    TANDEM_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace

void register_randperm_kernel(KernelTable& table) { table.random.randperm = randperm_kernel; }

}  // namespace tandem::cuda
