// CPU kernels of the random family. Work is split over Philox blocks, and each block's values depend only on
// its number, so any thread count writes the same bytes.
#include <algorithm>
#include <numeric>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/functors.h"
#include "kernels/kernel_table.h"
#include "kernels/random_functors.h"

namespace tandem::cpu {

void register_range_kernels(KernelTable& table);  // range_kernels.cpp: arange/linspace

namespace {

constexpr int64_t kGrainBlocks = 4096;

// Calls store(i, value) for every element i < n of the draw starting at `state`.
template <typename Dist, typename Store>
void draw(PhiloxState state, int64_t n, const Dist& dist, const Store& store) {
  constexpr int K = Dist::kPerBlock;
  int64_t blocks = static_cast<int64_t>(philox_blocks(n, K));
  parallel_for(0, blocks, kGrainBlocks, [&](int64_t b0, int64_t b1) {
    typename Dist::value_type v[K];
    for (int64_t b = b0; b < b1; ++b) {
      dist(philox_block(state.seed, state.offset + static_cast<uint64_t>(b)), v);
      int64_t i0 = b * K;
      int m = static_cast<int>(std::min<int64_t>(K, n - i0));
      for (int j = 0; j < m; ++j) store(i0 + j, v[j]);
    }
  });
}

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
  dispatch_dtype(out.dtype(), [&](auto tag) {
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

void randperm_kernel(const Tensor& out, PhiloxState state) {
  int64_t n = out.numel();
  std::vector<uint64_t> keys(static_cast<size_t>(n));
  draw(state, n, Key64Dist{}, [&keys](int64_t i, uint64_t k) { keys[i] = k; });
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  // Ties (vanishingly rare) are broken by index, so every sort implementation gives the same permutation.
  std::sort(order.begin(), order.end(),
            [&keys](int64_t a, int64_t b) { return keys[a] != keys[b] ? keys[a] < keys[b] : a < b; });
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    for (int64_t i = 0; i < n; ++i) p[i] = convert<T>(order[i]);
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
}

}  // namespace tandem::cpu
