// CUDA kernels of copy (every pair of dtypes: the cast) and where. One generic body per dtype pair.
#include "kernels/cuda/elementwise_launch.cuh"
#include "kernels/cuda/elementwise_parts.h"
#include "kernels/kernel_table.h"

namespace tandem::cuda {
namespace {

template <typename O, typename I>
struct ConvertFn {
  __device__ TANDEM_INLINE O operator()(I v) const { return convert<O>(v); }
};

template <typename T>
struct WhereFn {
  __device__ TANDEM_INLINE T operator()(bool c, T a, T b) const { return c ? a : b; }
};

// Complex too: where moves elements, it does no arithmetic.
void where_kernel(TensorIterator& iter) {
  dispatch_any_dtype(iter.dtype(0), [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_elementwise<T, bool, T, T>(iter, WhereFn<T>{});
  });
}

}  // namespace

// Every pair of dtypes, complex and uint16..64 included: the real <-> complex casts are the way into and out
// of complex.
void copy_kernel(TensorIterator& iter) {
  dispatch_any_dtype(iter.dtype(0), [&](auto out_tag) {
    using O = typename decltype(out_tag)::type;
    dispatch_any_dtype(iter.dtype(1), [&](auto in_tag) {
      using I = typename decltype(in_tag)::type;
      launch_elementwise<O, I>(iter, ConvertFn<O, I>{});
    });
  });
}

void register_copy_kernels(KernelTable& table) {
  table.copy = &copy_kernel;
  table.where = &where_kernel;
}

}  // namespace tandem::cuda
