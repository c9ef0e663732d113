// CUDA kernels of the rejection samplers (standard gamma, Poisson, binomial) and of the gamma sample's
// gradient: one thread per element running the CPU's sampler on the element's own Philox stream
// (kernels/gamma_samplers.h), so every element has the CPU's value.
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/random_launch.cuh"
#include "kernels/cuda/random_parts.h"
#include "kernels/gamma_samplers.h"
#include "kernels/kernel_table.h"

namespace tandem::cuda {
namespace {

// Calls f(i) for every element i < n, one thread each (grid-stride).
template <typename F>
__global__ void per_element_kernel(int64_t n, F f) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) f(i);
}

template <typename F>
void launch_per_element(Device device, int64_t n, const F& f) {
  if (n == 0) return;
  DeviceGuard guard(device);
  per_element_kernel<<<random_grid(n), kRandomThreads, 0, current_stream(device)>>>(n, f);
  TANDEM_CUDA_CHECK_LAUNCH();
}

template <typename T>
struct GammaOp {
  T* out;
  const T* alpha;
  PhiloxState state;
  __device__ void operator()(int64_t i) const {
    using A = opmath_t<T>;
    PhiloxStream s(state.seed, state.offset + static_cast<uint64_t>(i));
    const T v = static_cast<T>(sample_standard_gamma<A>(static_cast<A>(alpha[i]), s));
    out[i] = static_cast<A>(v) < A(smallest_normal<T>()) ? static_cast<T>(A(smallest_normal<T>())) : v;
  }
};

template <typename T>
struct GammaGradOp {
  T* out;
  const T* alpha;
  const T* x;
  __device__ void operator()(int64_t i) const {
    out[i] = static_cast<T>(standard_gamma_grad(static_cast<double>(alpha[i]), static_cast<double>(x[i])));
  }
};

template <typename T>
struct PoissonOp {
  T* out;
  const T* rate;
  PhiloxState state;
  __device__ void operator()(int64_t i) const {
    PhiloxStream s(state.seed, state.offset + static_cast<uint64_t>(i));
    out[i] = static_cast<T>(sample_poisson<DeviceIdenticalMath>(static_cast<double>(rate[i]), s));
  }
};

template <typename T>
struct BinomialOp {
  T* out;
  const T* count;
  const T* prob;
  PhiloxState state;
  __device__ void operator()(int64_t i) const {
    PhiloxStream s(state.seed, state.offset + static_cast<uint64_t>(i));
    out[i] = static_cast<T>(
        sample_binomial<DeviceIdenticalMath>(static_cast<double>(count[i]), static_cast<double>(prob[i]), s));
  }
};

// Runs make(T{}) over out's floating dtype T.
template <typename Make>
void on_floating(const Tensor& out, const Make& make) {
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) launch_per_element(out.device(), out.numel(), make(T{}));
  });
}

void standard_gamma_kernel(const Tensor& out, const Tensor& alpha, PhiloxState state) {
  on_floating(out, [&](auto zero) {
    using T = decltype(zero);
    return GammaOp<T>{out.data<T>(), alpha.data<T>(), state};
  });
}

void standard_gamma_grad_kernel(const Tensor& out, const Tensor& alpha, const Tensor& x) {
  on_floating(out, [&](auto zero) {
    using T = decltype(zero);
    return GammaGradOp<T>{out.data<T>(), alpha.data<T>(), x.data<T>()};
  });
}

void poisson_kernel(const Tensor& out, const Tensor& rate, PhiloxState state) {
  on_floating(out, [&](auto zero) {
    using T = decltype(zero);
    return PoissonOp<T>{out.data<T>(), rate.data<T>(), state};
  });
}

void binomial_kernel(const Tensor& out, const Tensor& count, const Tensor& prob, PhiloxState state) {
  on_floating(out, [&](auto zero) {
    using T = decltype(zero);
    return BinomialOp<T>{out.data<T>(), count.data<T>(), prob.data<T>(), state};
  });
}

}  // namespace

void register_gamma_kernels(KernelTable& table) {
  RandomKernels& k = table.random;
  k.standard_gamma = standard_gamma_kernel;
  k.standard_gamma_grad = standard_gamma_grad_kernel;
  k.poisson = poisson_kernel;
  k.binomial = binomial_kernel;
}

}  // namespace tandem::cuda
