// CUDA gather (other[i] = self[index(i)]) and non-accumulating put (self[index(i)] = other[i]; which of
// several writes to one position lands is unspecified, as in PyTorch). Elements move as raw bytes of their
// width, so one kernel per width serves every dtype.
#include <algorithm>

#include "kernels/cuda/index_entry.h"
#include "kernels/cuda/reduce_launch.cuh"

namespace tandem::cuda {

namespace {

template <typename E, int NI, bool kToOther>
__global__ void move_kernel(IndexGeometry<NI> g, E* self, E* other, int64_t total) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    int64_t so, oo;
    g.offsets(i, so, oo);
    if constexpr (kToOther)
      other[oo] = self[so];
    else
      self[so] = other[oo];
  }
}

template <typename E, bool kToOther>
void move_elements(const IndexPlan& plan, int64_t total, cudaStream_t stream) {
  const unsigned blocks = static_cast<unsigned>(std::clamp<int64_t>(ceil_div(total, 256), 1, 65536));
  E* self = reinterpret_cast<E*>(plan.self);
  E* other = reinterpret_cast<E*>(plan.other);
  if (plan.indices.size() ==
      1)  // the common case (gather, index_select, x[idx]) with a small parameter block
    move_kernel<E, 1, kToOther><<<blocks, 256, 0, stream>>>(make_index_geometry<1>(plan), self, other, total);
  else
    move_kernel<E, kMaxDims, kToOther>
        <<<blocks, 256, 0, stream>>>(make_index_geometry<kMaxDims>(plan), self, other, total);
  TANDEM_CUDA_CHECK_LAUNCH();
}

template <bool kToOther>
void move_by_width(const IndexPlan& plan) {
  const int64_t total = compute_numel(plan.shape);
  if (total == 0) return;
  DeviceGuard guard(plan.device);
  cudaStream_t stream = current_stream(plan.device);
  switch (element_size(plan.dtype)) {
    case 1:
      return move_elements<uint8_t, kToOther>(plan, total, stream);
    case 2:
      return move_elements<uint16_t, kToOther>(plan, total, stream);
    case 4:
      return move_elements<uint32_t, kToOther>(plan, total, stream);
    case 16:  // complex128, moved as its own 16-byte type
      return move_elements<complex<double>, kToOther>(plan, total, stream);
    default:
      return move_elements<uint64_t, kToOther>(plan, total, stream);
  }
}

}  // namespace

void gather(const IndexPlan& plan) { move_by_width<true>(plan); }

void put(const IndexPlan& plan, bool accumulate) {
  if (accumulate) return put_accumulate(plan);
  move_by_width<false>(plan);
}

}  // namespace tandem::cuda
