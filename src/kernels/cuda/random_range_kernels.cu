// CUDA kernels of the range factories (arange, linspace): each element from its index, in the CPU kernels'
// accumulate types and expressions (range_kernels.cpp), so both devices write the same values.
#include <type_traits>

#include "kernels/cuda/random_launch.cuh"
#include "kernels/cuda/random_parts.h"
#include "kernels/kernel_table.h"

namespace tandem::cuda {
namespace {

// PyTorch's CPU accumulate type for arange: int64 for integers, float for 16-bit floats, double otherwise.
template <typename T>
using arange_acc_t = std::conditional_t<
    std::is_integral_v<T>, int64_t,
    std::conditional_t<std::is_same_v<T, double> || std::is_same_v<T, float>, double, float>>;

template <typename T, typename acc_t>
__global__ void arange_kernel_impl(T* out, int64_t n, acc_t start, acc_t step) {
  const int64_t grid_step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += grid_step)
    out[i] = static_cast<T>(start + step * static_cast<acc_t>(i));
}

void arange_kernel(const Tensor& out, const Scalar& start, const Scalar& step) {
  const int64_t n = out.numel();
  if (n == 0) return;
  DeviceGuard guard(out.device());
  dispatch_dtype_with_uint(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      using acc_t = arange_acc_t<T>;
      arange_kernel_impl<<<random_grid(n), kRandomThreads, 0, current_stream(out.device())>>>(
          out.data<T>(), n, start.to<acc_t>(), step.to<acc_t>());
      TANDEM_CUDA_CHECK_LAUNCH();
    }
  });
}

// The first half counts up from start and the second down from end, so both ends are exact.
template <typename T, typename acc_t>
__global__ void linspace_kernel_impl(T* out, int64_t steps, acc_t a, acc_t z, acc_t step) {
  const int64_t halfway = steps / 2;
  const int64_t grid_step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < steps; i += grid_step)
    out[i] = static_cast<T>(i < halfway ? a + step * static_cast<acc_t>(i)
                                        : z - step * static_cast<acc_t>(steps - i - 1));
}

void linspace_kernel(const Tensor& out, const Scalar& start, const Scalar& end) {
  const int64_t steps = out.numel();
  if (steps == 0) return;
  DeviceGuard guard(out.device());
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      // As PyTorch: integers step in double; the ends are first converted to the output type.
      using acc_t = std::conditional_t<std::is_integral_v<T>, double, opmath_t<T>>;
      acc_t a = static_cast<acc_t>(start.to<T>()), z = static_cast<acc_t>(end.to<T>());
      acc_t step = (z - a) / static_cast<acc_t>(steps - 1);
      linspace_kernel_impl<<<random_grid(steps), kRandomThreads, 0, current_stream(out.device())>>>(
          out.data<T>(), steps, a, z, step);
      TANDEM_CUDA_CHECK_LAUNCH();
    }
  });
}

}  // namespace

void register_range_kernels(KernelTable& table) {
  table.random.arange = arange_kernel;
  table.random.linspace = linspace_kernel;
}

}  // namespace tandem::cuda
