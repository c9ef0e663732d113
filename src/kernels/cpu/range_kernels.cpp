// CPU kernels of the range factories (arange, linspace). Each element is computed from its index, never by
// accumulating, so chunks can run on any thread and large ranges do not drift.
#include <type_traits>

#include "core/parallel.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/functors.h"
#include "kernels/kernel_table.h"

TANDEM_CPU_KERNELS_BEGIN

namespace {

constexpr int64_t kGrain = 32768;

// PyTorch's CPU accumulate type for arange: int64 for integers, float for 16-bit floats, double otherwise.
template <typename T>
using arange_acc_t = std::conditional_t<
    std::is_integral_v<T>, int64_t,
    std::conditional_t<std::is_same_v<T, double> || std::is_same_v<T, float>, double, float>>;

void arange_kernel(const Tensor& out, const Scalar& start, const Scalar& step) {
  dispatch_dtype_with_uint(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      using acc_t = arange_acc_t<T>;
      acc_t a = start.to<acc_t>(), s = step.to<acc_t>();
      T* p = out.data<T>();
      parallel_for(0, out.numel(), kGrain, [&](int64_t b, int64_t e) {
        // Integers step in wrapping arithmetic: s * i may leave int64's range for an element inside it.
        using W = wrapping_t<acc_t>;
        for (int64_t i = b; i < e; ++i)
          p[i] = static_cast<T>(static_cast<W>(a) + static_cast<W>(s) * static_cast<W>(i));
      });
    }
  });
}

void linspace_kernel(const Tensor& out, const Scalar& start, const Scalar& end) {
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      // As PyTorch: integers step in double; the ends are first converted to the output type.
      using acc_t = std::conditional_t<std::is_integral_v<T>, double, opmath_t<T>>;
      int64_t steps = out.numel();
      acc_t a = static_cast<acc_t>(start.to<T>()), z = static_cast<acc_t>(end.to<T>());
      acc_t step = (z - a) / static_cast<acc_t>(steps - 1);
      int64_t halfway = steps / 2;
      T* p = out.data<T>();
      // The first half counts up from start and the second down from end, so both ends are exact.
      parallel_for(0, steps, kGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i)
          p[i] = static_cast<T>(i < halfway ? a + step * static_cast<acc_t>(i)
                                            : z - step * static_cast<acc_t>(steps - i - 1));
      });
    }
  });
}

}  // namespace

void register_range_kernels(KernelTable& table) {
  table.random.arange = arange_kernel;
  table.random.linspace = linspace_kernel;
}

TANDEM_CPU_KERNELS_END
