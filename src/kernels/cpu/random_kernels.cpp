// CPU kernels of the random family. Work is split over Philox blocks, and each block's values depend only on
// its number, so any thread count writes the same bytes.
#include <algorithm>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/philox_loop.h"
#include "kernels/functors.h"
#include "kernels/kernel_table.h"
#include "kernels/random_functors.h"

TANDEM_CPU_KERNELS_BEGIN

void register_range_kernels(KernelTable& table);       // range_kernels.cpp: arange/linspace
void register_multinomial_kernel(KernelTable& table);  // multinomial_kernel.cpp
void register_gamma_kernels(KernelTable& table);       // random_gamma_kernels.cpp: gamma, poisson, binomial
void register_cpu_stream_kernels();  // cpu_stream_kernels.cpp: loops of the draws in PyTorch's order

namespace {

void uniform_kernel(const Tensor& out, PhiloxState state, double from, double to) {
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      using acc_t = opmath_t<T>;
      UniformDist<T> dist{static_cast<acc_t>(from), static_cast<acc_t>(to - from), static_cast<acc_t>(to)};
      T* p = out.data<T>();
      draw(state, out.numel(), dist, [p](int64_t i, T v) { p[i] = v; });
    }
  });
}

void normal_kernel(const Tensor& out, PhiloxState state, double mean, double std) {
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      using acc_t = opmath_t<T>;
      NormalDist<T> dist{static_cast<acc_t>(mean), static_cast<acc_t>(std)};
      T* p = out.data<T>();
      draw(state, out.numel(), dist, [p](int64_t i, T v) { p[i] = v; });
    }
  });
}

void randint_kernel(const Tensor& out, PhiloxState state, int64_t low, uint64_t range) {
  dispatch_dtype_with_uint(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    auto store = [p](int64_t i, int64_t v) { p[i] = convert<T>(v); };
    if (randint_is_wide(range))
      draw(state, out.numel(), RandintDist<true>{low, range}, store);
    else
      draw(state, out.numel(), RandintDist<false>{low, range}, store);
  });
}

void bernoulli_scalar_kernel(const Tensor& out, PhiloxState state, double prob) {
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    draw(state, out.numel(), Uniform32Dist{},
         [p, prob](int64_t i, double u) { p[i] = convert<T>(u < prob); });
  });
}

bool bernoulli_tensor_kernel(const Tensor& out, const Tensor& prob, PhiloxState state) {
  const double* q = prob.data<double>();
  int64_t n = out.numel();
  bool valid = true;
  for (int64_t i = 0; i < n && valid; ++i) valid = q[i] >= 0.0 && q[i] <= 1.0;
  if (!valid) return false;
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    draw(state, n, Uniform32Dist{}, [p, q](int64_t i, double u) { p[i] = convert<T>(u < q[i]); });
  });
  return true;
}

// Sorts indices by (key, index) — a total order, so the permutation is the same on every device and thread
// count. Keys are uniform, so a counting pass on their top bits leaves buckets of a few elements each, which
// are then sorted independently in parallel.
void randperm_kernel(const Tensor& out, PhiloxState state) {
  struct Entry {
    uint64_t key;
    int64_t index;
    bool operator<(const Entry& o) const { return key != o.key ? key < o.key : index < o.index; }
  };
  int64_t n = out.numel();
  std::vector<uint64_t> keys(static_cast<size_t>(n));
  draw(state, n, Key64Dist{}, [&keys](int64_t i, uint64_t k) { keys[i] = k; });
  int bits = 1;
  while (bits < 20 && (int64_t{1} << bits) < n / 4) ++bits;
  const int shift = 64 - bits;
  std::vector<int64_t> start(static_cast<size_t>((int64_t{1} << bits) + 1), 0);
  for (int64_t i = 0; i < n; ++i) ++start[(keys[i] >> shift) + 1];
  for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  std::vector<Entry> sorted(static_cast<size_t>(n));
  std::vector<int64_t> fill(start.begin(), start.end() - 1);
  for (int64_t i = 0; i < n; ++i) sorted[fill[keys[i] >> shift]++] = Entry{keys[i], i};
  parallel_for(0, int64_t{1} << bits, 256, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) std::sort(sorted.begin() + start[b], sorted.begin() + start[b + 1]);
  });
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = convert<T>(sorted[i].index);
  });
}

}  // namespace

void register_random_kernels(KernelTable& table) {
  RandomKernels& k = table.random;
  k.uniform = uniform_kernel;
  k.normal = normal_kernel;
  k.randint = randint_kernel;
  k.bernoulli_scalar = bernoulli_scalar_kernel;
  k.bernoulli_tensor = bernoulli_tensor_kernel;
  k.randperm = randperm_kernel;
  register_range_kernels(table);
  register_multinomial_kernel(table);
  register_gamma_kernels(table);
  register_cpu_stream_kernels();
}

TANDEM_CPU_KERNELS_END
