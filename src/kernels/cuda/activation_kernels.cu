// CUDA kernels of the activations with parameters: the CPU's functors (kernels/activation_functors.h) in
// the elementwise launch.
#include "kernels/activation_functors.h"
#include "kernels/cuda/elementwise_launch.cuh"
#include "kernels/cuda/elementwise_parts.h"
#include "kernels/kernel_table.h"

namespace tandem::cuda {
namespace {

void activation_kernel(TensorIterator& iter, const ActivationSpec& spec) {
  dispatch_dtype(iter.dtype(0), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      visit_activation<opmath_t<T>>(
          spec, [&](auto f) { launch_elementwise<T, T>(iter, UnaryFn<T, T, decltype(f)>{f}); });
    }
  });
}

void activation_backward_kernel(TensorIterator& iter, const ActivationSpec& spec) {
  dispatch_dtype(iter.dtype(0), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      visit_activation<opmath_t<T>>(spec, [&](auto f) {
        using G = ActivationGrad<decltype(f)>;
        launch_elementwise<T, T, T>(iter, BinaryFn<T, T, G>{G{f}});
      });
    }
  });
}

}  // namespace

void register_activation_kernels(KernelTable& table) {
  table.activation = &activation_kernel;
  table.activation_backward = &activation_backward_kernel;
}

}  // namespace tandem::cuda
