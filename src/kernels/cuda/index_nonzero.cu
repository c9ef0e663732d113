// CUDA nonzero: flag the non-zero elements, let CUB's DeviceSelect compact their linear positions (in order),
// then turn each position into its row-major coordinates.
#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_select.cuh>

#include <algorithm>

#include "kernels/cuda/index_entry.h"
#include "kernels/cuda/reduce_launch.cuh"
#include "kernels/functors.h"

namespace tandem::cuda {

namespace {

unsigned grid_for(int64_t total) {
  return static_cast<unsigned>(std::clamp<int64_t>(ceil_div(total, 256), 1, 65536));
}

template <typename T>
__global__ void flag_nonzero(uint8_t* flags, const T* x, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    flags[i] = convert<bool>(x[i]);
}

// out[j] = coordinates of linear position selected[j] in a tensor of `shape` (its `sizes`).
__global__ void write_coordinates(int64_t* out, const int64_t* selected, StridedOffsets shape,
                                  int64_t count) {
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < count;
       j += int64_t(gridDim.x) * blockDim.x) {
    int64_t linear = selected[j];
    for (int d = shape.ndim - 1; d >= 0; --d) {
      out[j * shape.ndim + d] = linear % shape.sizes[d];
      linear /= shape.sizes[d];
    }
  }
}

}  // namespace

void nonzero(const Tensor& out, const Tensor& x) {
  const int64_t n = x.numel(), count = out.sizes()[0], nd = x.dim();
  if (n == 0 || count == 0 || nd == 0) return;  // a 0-d tensor's coordinates are empty rows
  check_dims(static_cast<size_t>(nd));
  StridedOffsets shape;
  shape.ndim = static_cast<int>(nd);
  for (int64_t d = 0; d < nd; ++d) shape.sizes[d] = x.sizes()[d];
  DeviceGuard guard(x.device());
  cudaStream_t stream = current_stream(x.device());
  DataPtr flags = allocate_scratch(static_cast<size_t>(n), x.device());
  DataPtr selected = allocate_scratch(static_cast<size_t>(n) * sizeof(int64_t), x.device());
  DataPtr num_selected = allocate_scratch(sizeof(int64_t), x.device());
  uint8_t* f = static_cast<uint8_t*>(flags.ptr);
  int64_t* sel = static_cast<int64_t*>(selected.ptr);
  int64_t* num = static_cast<int64_t*>(num_selected.ptr);
  dispatch_dtype_with_uint(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    flag_nonzero<T><<<grid_for(n), 256, 0, stream>>>(f, x.data<T>(), n);
    TANDEM_CUDA_CHECK_LAUNCH();
  });
  const thrust::counting_iterator<int64_t> positions(0);
  size_t temp_bytes = 0;
  TANDEM_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, temp_bytes, positions, f, sel, num, n, stream));
  DataPtr temp = allocate_scratch(std::max<size_t>(temp_bytes, 1), x.device());
  TANDEM_CUDA_CHECK(cub::DeviceSelect::Flagged(temp.ptr, temp_bytes, positions, f, sel, num, n, stream));
  write_coordinates<<<grid_for(count), 256, 0, stream>>>(out.data<int64_t>(), sel, shape, count);
  TANDEM_CUDA_CHECK_LAUNCH();
}

}  // namespace tandem::cuda
