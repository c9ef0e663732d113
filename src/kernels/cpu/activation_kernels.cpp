// CPU kernels of the activations with parameters (kernels/activation_functors.h): the functor for the
// spec is built once per call and run by the same strip loops as the op list (loops.h).
#include <algorithm>
#include <type_traits>

#include "kernels/activation_functors.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/loops.h"
#include "kernels/kernel_table.h"

TANDEM_CPU_KERNELS_BEGIN

namespace {

// Functors with a cheap formula for positive inputs (elu and its variants: no exp there).
template <typename F>
concept HasPositiveBranch = requires(const F& f) {
  f.positive(1.0f);
};

// A contiguous float/double strip in blocks: a block whose inputs are all > 0 takes f.positive (a multiply,
// memory-bound), any other block the whole functor. NaN is not > 0, so a block with NaN takes the functor.
template <typename T, typename F>
[[gnu::flatten]] void positive_block_strip(T* __restrict out, const T* __restrict in, int64_t n,
                                           const F& functor) {
  constexpr int64_t kBlock = 64;
  const F f = functor;  // a local copy, as in unary_strip
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t len = std::min(kBlock, n - i);
    bool all_positive = true;
    for (int64_t k = 0; k < len; ++k) all_positive &= in[i + k] > T(0);
    if (all_positive)
      for (int64_t k = 0; k < len; ++k) out[i + k] = f.positive(in[i + k]);
    else
      for (int64_t k = 0; k < len; ++k) out[i + k] = f(in[i + k]);
  }
}

template <typename T, typename F>
void run_activation(TensorIterator& iter, const F& f) {
  if constexpr (HasPositiveBranch<F> && std::is_floating_point_v<T>) {
    iter.for_each([&](char** data, const int64_t* strides, int64_t n) {
      if (strides[0] == sizeof(T) && strides[1] == sizeof(T))
        positive_block_strip(reinterpret_cast<T*>(data[0]), reinterpret_cast<const T*>(data[1]), n, f);
      else
        unary_strip<T, T>(data, strides, n, f);
    });
  } else {
    unary_loop<T, T>(iter, f);
  }
}

void activation_kernel(TensorIterator& iter, const ActivationSpec& spec) {
  dispatch_dtype(iter.dtype(0), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      visit_activation<opmath_t<T>>(spec, [&](auto f) { run_activation<T>(iter, f); });
    }
  });
}

void activation_backward_kernel(TensorIterator& iter, const ActivationSpec& spec) {
  dispatch_dtype(iter.dtype(0), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      visit_activation<opmath_t<T>>(spec,
                                    [&](auto f) { binary_loop<T, T>(iter, ActivationGrad<decltype(f)>{f}); });
    }
  });
}

}  // namespace

void register_activation_kernels(KernelTable& table) {
  table.activation = &activation_kernel;
  table.activation_backward = &activation_backward_kernel;
}

TANDEM_CPU_KERNELS_END
