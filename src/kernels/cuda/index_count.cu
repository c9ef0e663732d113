// CUDA min_max of an index tensor and count_nonzero: device reductions whose results come back to the host
// through copy_device_to_host (counted, and it waits for the stream).
#include <limits>

#include "backend/transfer.h"
#include "kernels/cuda/index_entry.h"
#include "kernels/cuda/reduce_launch.cuh"
#include "kernels/functors.h"

namespace tandem::cuda {

namespace {

struct Range {
  int64_t lo, hi;
};

struct MinMaxPolicy {
  using acc_t = Range;
  int64_t* out;  // out[0] = min, out[1] = max
  __device__ acc_t identity() const {
    return {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::lowest()};
  }
  __device__ acc_t combine(acc_t a, acc_t b) const { return {min(a.lo, b.lo), max(a.hi, b.hi)}; }
  __device__ acc_t step(acc_t a, int64_t x, int64_t) const { return combine(a, {x, x}); }
  __device__ void emit(int64_t, acc_t a) const {
    out[0] = a.lo;
    out[1] = a.hi;
  }
};

// NaN counts as non-zero, as on the CPU.
template <typename T>
struct CountNonzeroPolicy {
  using acc_t = int64_t;
  int64_t* out;
  __device__ acc_t identity() const { return 0; }
  __device__ acc_t combine(acc_t a, acc_t b) const { return a + b; }
  __device__ acc_t step(acc_t a, T x, int64_t) const { return a + (convert<bool>(x) ? 1 : 0); }
  __device__ void emit(int64_t, acc_t a) const { *out = a; }
};

// A contiguous tensor of n elements folded into one output.
void whole_tensor(int64_t n, StridedOffsets& kept, StridedOffsets& red) {
  const int64_t one = 1;
  kept = merged_offsets(nullptr, nullptr, 0);
  red = merged_offsets(&n, &one, 1);
}

}  // namespace

void min_max(const Tensor& index, int64_t* lo, int64_t* hi) {
  StridedOffsets kept, red;
  whole_tensor(index.numel(), kept, red);
  DataPtr result = allocate_scratch(2 * sizeof(int64_t), index.device());
  int64_t* out = static_cast<int64_t*>(result.ptr);
  run_reduce(MinMaxPolicy{out}, index.data<int64_t>(), kept, red, 1, index.numel(), index.device());
  int64_t host[2];
  copy_device_to_host(host, out, index.device(), sizeof(host));
  *lo = host[0];
  *hi = host[1];
}

int64_t count_nonzero(const Tensor& x) {
  StridedOffsets kept, red;
  whole_tensor(x.numel(), kept, red);
  DataPtr result = allocate_scratch(sizeof(int64_t), x.device());
  int64_t* out = static_cast<int64_t*>(result.ptr);
  dispatch_dtype_with_uint(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_reduce(CountNonzeroPolicy<T>{out}, x.data<T>(), kept, red, 1, x.numel(), x.device());
  });
  int64_t count = 0;
  copy_device_to_host(&count, out, x.device(), sizeof(count));
  return count;
}

}  // namespace tandem::cuda
