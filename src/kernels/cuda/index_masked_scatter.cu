// CUDA masked_scatter: an exclusive scan of the mask gives each true position its source element, then every
// position of the mask writes in parallel. Elements move as raw bytes of their width (index_move.cu's rule).
#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_scan.cuh>

#include <algorithm>

#include "kernels/cuda/index_entry.h"
#include "kernels/cuda/reduce_launch.cuh"

namespace tandem::cuda {

namespace {

struct MaskToCount {
  __host__ __device__ int64_t operator()(bool b) const { return b ? 1 : 0; }
};

template <typename E>
__global__ void scatter_masked(E* self, const bool* mask, const int64_t* position, const E* source,
                               int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    if (mask[i]) self[i] = source[position[i]];
}

template <typename E>
void scatter_as(const Tensor& self, const bool* mask, const int64_t* position, const Tensor& source,
                int64_t n, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>(std::clamp<int64_t>(ceil_div(n, 256), 1, 65536));
  scatter_masked<E><<<blocks, 256, 0, stream>>>(static_cast<E*>(self.data_ptr()), mask, position,
                                                static_cast<const E*>(source.data_ptr()), n);
  TANDEM_CUDA_CHECK_LAUNCH();
}

}  // namespace

void masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  const int64_t n = self.numel();
  if (n == 0) return;
  DeviceGuard guard(self.device());
  cudaStream_t stream = current_stream(self.device());
  const bool* m = mask.data<bool>();
  DataPtr positions = allocate_scratch(static_cast<size_t>(n) * sizeof(int64_t), self.device());
  int64_t* position = static_cast<int64_t*>(positions.ptr);
  const auto counts = thrust::make_transform_iterator(m, MaskToCount{});
  size_t temp_bytes = 0;
  TANDEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, counts, position, n, stream));
  DataPtr temp = allocate_scratch(std::max<size_t>(temp_bytes, 1), self.device());
  TANDEM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.ptr, temp_bytes, counts, position, n, stream));
  switch (element_size(self.dtype())) {
    case 1:
      return scatter_as<uint8_t>(self, m, position, source, n, stream);
    case 2:
      return scatter_as<uint16_t>(self, m, position, source, n, stream);
    case 4:
      return scatter_as<uint32_t>(self, m, position, source, n, stream);
    case 16:  // complex128, moved as its own 16-byte type
      return scatter_as<complex<double>>(self, m, position, source, n, stream);
    default:
      return scatter_as<uint64_t>(self, m, position, source, n, stream);
  }
}

}  // namespace tandem::cuda
