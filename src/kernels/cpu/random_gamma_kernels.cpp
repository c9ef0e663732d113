// CPU kernels of the rejection samplers (standard gamma, Poisson, binomial) and of the gamma sample's
// gradient. Each element reads its own Philox stream (kernels/gamma_samplers.h), so any thread count and the
// CUDA kernels write the same values.
#include "core/parallel.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/functors.h"
#include "kernels/gamma_samplers.h"
#include "kernels/kernel_table.h"

TANDEM_CPU_KERNELS_BEGIN

namespace {

// Rejection loops cost tens of Philox blocks per element: a small grain still amortises a task.
constexpr int64_t kGrainElements = 1024;

// out[i] = f(i) for every element, in parallel, over out's floating dtype T.
template <typename F>
void for_each_floating(const Tensor& out, const F& f) {
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      T* o = out.data<T>();
      parallel_for(0, out.numel(), kGrainElements, [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) o[i] = f(i, T{});
      });
    }
  });
}

void standard_gamma_kernel(const Tensor& out, const Tensor& alpha, PhiloxState state) {
  for_each_floating(out, [&](int64_t i, auto zero) {
    using T = decltype(zero);
    using A = opmath_t<T>;
    PhiloxStream s(state.seed, state.offset + static_cast<uint64_t>(i));
    const A x = sample_standard_gamma<A>(static_cast<A>(alpha.data<T>()[i]), s);
    const T v = static_cast<T>(x);
    return static_cast<A>(v) < A(smallest_normal<T>()) ? static_cast<T>(A(smallest_normal<T>())) : v;
  });
}

void standard_gamma_grad_kernel(const Tensor& out, const Tensor& alpha, const Tensor& x) {
  for_each_floating(out, [&](int64_t i, auto zero) {
    using T = decltype(zero);
    return static_cast<T>(
        standard_gamma_grad(static_cast<double>(alpha.data<T>()[i]), static_cast<double>(x.data<T>()[i])));
  });
}

void poisson_kernel(const Tensor& out, const Tensor& rate, PhiloxState state) {
  for_each_floating(out, [&](int64_t i, auto zero) {
    using T = decltype(zero);
    PhiloxStream s(state.seed, state.offset + static_cast<uint64_t>(i));
    return static_cast<T>(sample_poisson<DeviceIdenticalMath>(static_cast<double>(rate.data<T>()[i]), s));
  });
}

void binomial_kernel(const Tensor& out, const Tensor& count, const Tensor& prob, PhiloxState state) {
  for_each_floating(out, [&](int64_t i, auto zero) {
    using T = decltype(zero);
    PhiloxStream s(state.seed, state.offset + static_cast<uint64_t>(i));
    return static_cast<T>(sample_binomial<DeviceIdenticalMath>(static_cast<double>(count.data<T>()[i]),
                                                               static_cast<double>(prob.data<T>()[i]), s));
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

TANDEM_CPU_KERNELS_END
