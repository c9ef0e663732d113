// CUDA sort/argsort/topk along the last dim through CUB's radix sorts. Elements become unsigned keys whose
// order is the CPU's (NaN above every number, -0.0 equal to 0.0; descending flips the bits), paired with their
// positions; the radix sort is stable, so equal keys keep position order as on the CPU, and the first k
// positions of each sorted row select the values from the input. Many rows go through one segmented sort
// (a thread block per row); a few long rows are each sorted by the whole GPU.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include <algorithm>
#include <climits>

#include "kernels/cuda/reduce_entry.h"
#include "kernels/cuda/reduce_launch.cuh"
#include "kernels/cuda/sort_keys.h"

namespace tandem::cuda {

namespace {

// keys/positions of rows [row0, row0 + count) laid out contiguously, and each segment's start.
template <typename T>
__global__ void make_keys(sort_key_t<T>* keys, int32_t* positions, int32_t* offsets, const T* in,
                          StridedOffsets rows, int64_t row0, int64_t count, int64_t n, int64_t si,
                          bool descending) {
  const int64_t total = count * n;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = e / n, i = e % n;
    keys[e] = sort_key(in[rows(row0 + r) + i * si], descending);
    positions[e] = static_cast<int32_t>(i);
    if (i == 0) offsets[r] = static_cast<int32_t>(e);
    if (e == total - 1) offsets[count] = static_cast<int32_t>(total);
  }
}

// The first k sorted positions of each row, and the input values there (elements moved as raw E).
template <typename E>
__global__ void write_first_k(E* values, int64_t* indices, const E* in, const int32_t* positions,
                              StridedOffsets in_rows, StridedOffsets value_rows, StridedOffsets index_rows,
                              int64_t row0, int64_t count, int64_t n, int64_t k, int64_t si, int64_t sv,
                              int64_t sx) {
  const int64_t total = count * k;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = e / k, j = e % k, row = row0 + r;
    const int64_t at = positions[r * n + j];
    values[value_rows(row) + j * sv] = in[in_rows(row) + at * si];
    indices[index_rows(row) + j * sx] = at;
  }
}

// Rows at least this long, when there are at most kMaxWholeGpuRows of them, are sorted one at a time by the
// device-wide radix sort (each launch fills the GPU) instead of one thread block each.
constexpr int64_t kWholeGpuRow = int64_t{1} << 16;
constexpr int64_t kMaxWholeGpuRows = 32;

unsigned grid_for(int64_t total) {
  return static_cast<unsigned>(std::clamp<int64_t>(ceil_div(total, 256), 1, 65536));
}

StridedOffsets row_offsets(const Tensor& t) {
  return merged_offsets(t.sizes().data(), t.strides().data(), t.dim() ? t.dim() - 1 : 0);
}

template <typename T>
void sort_rows(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k, bool descending,
               cudaStream_t stream) {
  using K = sort_key_t<T>;
  using E = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  const int64_t nd = in.dim(), n = nd ? in.sizes()[nd - 1] : 1, rows = in.numel() / n;
  const int64_t si = nd ? in.strides()[nd - 1] : 0, sv = nd ? values.strides()[nd - 1] : 0;
  const int64_t sx = nd ? indices.strides()[nd - 1] : 0;
  const StridedOffsets in_rows = row_offsets(in), value_rows = row_offsets(values),
                       index_rows = row_offsets(indices);
  TANDEM_CHECK(n <= INT_MAX, NotImplemented, "sort on CUDA supports at most ", INT_MAX,
               " elements per row, got ", n, "\nhint: sort on the CPU, or split the row");
  // CUB counts items in int: sort as many rows at a time as fit.
  const int64_t batch = std::min(rows, std::max<int64_t>(1, INT_MAX / n));
  const size_t items = static_cast<size_t>(batch * n);
  DataPtr keys = allocate_scratch(2 * items * sizeof(K), in.device());
  DataPtr pos = allocate_scratch(2 * items * sizeof(int32_t), in.device());
  DataPtr offsets = allocate_scratch(static_cast<size_t>(batch + 1) * sizeof(int32_t), in.device());
  K* keys_in = static_cast<K*>(keys.ptr);
  int32_t* pos_in = static_cast<int32_t*>(pos.ptr);
  int32_t* offs = static_cast<int32_t*>(offsets.ptr);
  const int end_bit = 8 * sizeof(T);
  // A segmented sort gives each row one thread block: a handful of long rows would leave the GPU idle.
  const bool row_by_row = n >= kWholeGpuRow && rows <= kMaxWholeGpuRows;
  size_t temp_bytes = 0;
  if (row_by_row)
    TANDEM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in, keys_in + items, pos_in,
                                                      pos_in + items, static_cast<int>(n), 0, end_bit, stream));
  else
    TANDEM_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairs(
        nullptr, temp_bytes, keys_in, keys_in + items, pos_in, pos_in + items, static_cast<int>(items),
        static_cast<int>(batch), offs, offs + 1, 0, end_bit, stream));
  DataPtr temp = allocate_scratch(std::max<size_t>(temp_bytes, 1), in.device());
  for (int64_t row0 = 0; row0 < rows; row0 += batch) {
    const int64_t count = std::min(batch, rows - row0), m = count * n;
    make_keys<T><<<grid_for(m), 256, 0, stream>>>(keys_in, pos_in, offs, in.data<T>(), in_rows, row0, count,
                                                  n, si, descending);
    TANDEM_CUDA_CHECK_LAUNCH();
    if (row_by_row) {
      for (int64_t r = 0; r < count; ++r)
        TANDEM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.ptr, temp_bytes, keys_in + r * n,
                                                          keys_in + items + r * n, pos_in + r * n,
                                                          pos_in + items + r * n, static_cast<int>(n), 0, end_bit,
                                                          stream));
    } else {
      TANDEM_CUDA_CHECK(cub::DeviceSegmentedRadixSort::SortPairs(
          temp.ptr, temp_bytes, keys_in, keys_in + items, pos_in, pos_in + items, static_cast<int>(m),
          static_cast<int>(count), offs, offs + 1, 0, end_bit, stream));
    }
    if (k == 0) continue;
    write_first_k<E><<<grid_for(count * k), 256, 0, stream>>>(
        values.data<E>(), indices.data<int64_t>(), in.data<E>(), pos_in + items, in_rows, value_rows,
        index_rows, row0, count, n, k, si, sv, sx);
    TANDEM_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace

void sort(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k, bool descending,
          bool stable) {
  // The radix sort is stable, so `stable` needs no separate path (as on the CPU).
  (void)stable;
  if (in.numel() == 0) return;
  DeviceGuard guard(in.device());
  cudaStream_t stream = current_stream(in.device());
  dispatch_dtype_with_uint(in.dtype(), [&](auto tag) {
    sort_rows<typename decltype(tag)::type>(values, indices, in, k, descending, stream);
  });
}

}  // namespace tandem::cuda
