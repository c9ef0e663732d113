// The one CUB radix sort of the CUDA random kernels (randperm, multinomial without replacement).
#include <cub/device/device_radix_sort.cuh>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "kernels/cuda/random_launch.cuh"
#include "kernels/cuda/random_parts.h"

namespace tandem::cuda {
namespace {
__global__ void iota_kernel(int64_t* out, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) out[i] = i;
}
}  // namespace

void fill_iota(int64_t* out, int64_t n, cudaStream_t stream) {
  iota_kernel<<<random_grid(n), kRandomThreads, 0, stream>>>(out, n);
  TANDEM_CUDA_CHECK_LAUNCH();
}

void sort_pairs(const uint64_t* keys_in, uint64_t* keys_out, const int64_t* values_in, int64_t* values_out,
                int64_t n, int end_bit, Device device, cudaStream_t stream) {
  // CUB's radix sort is stable, which is what breaks ties by input position.
  size_t temp_bytes = 0;
  TANDEM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in, keys_out, values_in,
                                                    values_out, n, 0, end_bit, stream));
  DataPtr temp = allocate_scratch(temp_bytes, device);
  TANDEM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.ptr, temp_bytes, keys_in, keys_out, values_in,
                                                    values_out, n, 0, end_bit, stream));
}

}  // namespace tandem::cuda
