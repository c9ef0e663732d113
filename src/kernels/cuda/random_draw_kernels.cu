// CUDA kernels of the random draws (uniform, normal, randint, bernoulli): the CPU's distributions, one
// Philox block per thread, so every element has the CPU's value.
#include "backend/transfer.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/random_launch.cuh"
#include "kernels/cuda/random_parts.h"
#include "kernels/kernel_table.h"

namespace tandem::cuda {
namespace {

void uniform_kernel(const Tensor& out, PhiloxState state, double from, double to) {
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      using acc_t = opmath_t<T>;
      UniformDist<T> dist{static_cast<acc_t>(from), static_cast<acc_t>(to - from), static_cast<acc_t>(to)};
      launch_draw(out.device(), state, out.numel(), dist, StoreConverted<T>{out.data<T>()});
    }
  });
}

void normal_kernel(const Tensor& out, PhiloxState state, double mean, double std) {
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      using acc_t = opmath_t<T>;
      NormalDist<T> dist{static_cast<acc_t>(mean), static_cast<acc_t>(std)};
      launch_draw(out.device(), state, out.numel(), dist, StoreConverted<T>{out.data<T>()});
    }
  });
}

void randint_kernel(const Tensor& out, PhiloxState state, int64_t low, uint64_t range) {
  dispatch_dtype_with_uint(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    StoreConverted<T> store{out.data<T>()};
    if (randint_is_wide(range))
      launch_draw(out.device(), state, out.numel(), RandintDist<true>{low, range}, store);
    else
      launch_draw(out.device(), state, out.numel(), RandintDist<false>{low, range}, store);
  });
}

template <typename T>
struct StoreBernoulli {
  T* out;
  double prob;
  __device__ TANDEM_INLINE void operator()(int64_t i, double u) const { out[i] = convert<T>(u < prob); }
};

void bernoulli_scalar_kernel(const Tensor& out, PhiloxState state, double prob) {
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_draw(out.device(), state, out.numel(), Uniform32Dist{}, StoreBernoulli<T>{out.data<T>(), prob});
  });
}

template <typename T>
struct StoreBernoulliTensor {
  T* out;
  const double* prob;
  __device__ TANDEM_INLINE void operator()(int64_t i, double u) const { out[i] = convert<T>(u < prob[i]); }
};

// Raises *invalid when some probability lies outside [0, 1] (NaN included), as the CPU's check does.
__global__ void check_probabilities_kernel(const double* p, int64_t n, int* invalid) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    if (!(p[i] >= 0.0 && p[i] <= 1.0)) *invalid = 1;
}

bool bernoulli_tensor_kernel(const Tensor& out, const Tensor& prob, PhiloxState state) {
  const int64_t n = out.numel();
  if (n == 0) return true;
  const Device device = out.device();
  DeviceGuard guard(device);
  cudaStream_t stream = current_stream(device);
  DataPtr flag = allocate_scratch(sizeof(int), device);
  int* invalid = static_cast<int*>(flag.ptr);
  TANDEM_CUDA_CHECK(cudaMemsetAsync(invalid, 0, sizeof(int), stream));
  check_probabilities_kernel<<<random_grid(n), kRandomThreads, 0, stream>>>(prob.data<double>(), n, invalid);
  TANDEM_CUDA_CHECK_LAUNCH();
  int host_invalid = 0;
  copy_device_to_host(&host_invalid, invalid, device, sizeof(int));
  if (host_invalid) return false;
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_draw(device, state, n, Uniform32Dist{},
                StoreBernoulliTensor<T>{out.data<T>(), prob.data<double>()});
  });
  return true;
}

}  // namespace

void register_random_kernels(KernelTable& table) {
  RandomKernels& k = table.random;
  k.uniform = uniform_kernel;
  k.normal = normal_kernel;
  k.randint = randint_kernel;
  k.bernoulli_scalar = bernoulli_scalar_kernel;
  k.bernoulli_tensor = bernoulli_tensor_kernel;
  register_randperm_kernel(table);
  register_multinomial_kernel(table);
  register_range_kernels(table);
  register_gamma_kernels(table);
}

}  // namespace tandem::cuda
