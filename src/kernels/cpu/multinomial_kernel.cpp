// CPU kernel of multinomial. Uniform number r * stride + j feeds row r's sample (or category) j, so rows are
// independent and any thread count draws the same indices.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/philox_loop.h"
#include "kernels/kernel_table.h"
#include "kernels/random_functors.h"

TANDEM_CPU_KERNELS_BEGIN

namespace {

MultinomialStatus check_rows(const double* p, int64_t rows, int64_t k) {
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t j = 0; j < k; ++j) {
      double w = p[r * k + j];
      if (!(w >= 0) || std::isinf(w)) return MultinomialStatus::kBadProbability;
      sum += w;
    }
    if (!(sum > 0)) return MultinomialStatus::kZeroSum;
  }
  return MultinomialStatus::kOk;
}

MultinomialStatus multinomial_kernel(const Tensor& out, const Tensor& probs, bool replacement,
                                     PhiloxState state) {
  const double* p = probs.data<double>();
  int64_t* o = out.data<int64_t>();
  int64_t rows = probs.dim() == 2 ? probs.size(0) : 1, k = probs.size(-1), samples = out.size(-1);
  if (MultinomialStatus s = check_rows(p, rows, k); s != MultinomialStatus::kOk) return s;
  if (replacement) {
    // Inverse CDF: the first category whose running sum exceeds u * total. Zero weights add nothing to the
    // running sum, so they are never picked.
    std::vector<double> u(static_cast<size_t>(rows * samples));
    draw(state, rows * samples, Uniform32Dist{}, [&u](int64_t i, double v) { u[i] = v; });
    parallel_for(0, rows, 1, [&](int64_t r0, int64_t r1) {
      std::vector<double> cum(static_cast<size_t>(k));
      for (int64_t r = r0; r < r1; ++r) {
        double run = 0;
        for (int64_t j = 0; j < k; ++j) cum[j] = run += p[r * k + j];
        for (int64_t s = 0; s < samples; ++s) {
          double target = u[r * samples + s] * run;
          int64_t j = std::upper_bound(cum.begin(), cum.end(), target) - cum.begin();
          o[r * samples + s] = std::min(j, k - 1);
        }
      }
    });
  } else {
    std::vector<double> keys(static_cast<size_t>(rows * k));
    draw(state, rows * k, OpenUniform32Dist{},
         [&](int64_t i, double v) { keys[i] = exponential_race_key(v, p[i]); });
    parallel_for(0, rows, 1, [&](int64_t r0, int64_t r1) {
      std::vector<int64_t> order(static_cast<size_t>(k));
      for (int64_t r = r0; r < r1; ++r) {
        const double* key = keys.data() + r * k;
        for (int64_t j = 0; j < k; ++j) order[j] = j;
        // Ties (zero weights) go by category index, so the order is total and device-independent.
        std::partial_sort(order.begin(), order.begin() + samples, order.end(),
                          [key](int64_t a, int64_t b) { return key[a] != key[b] ? key[a] < key[b] : a < b; });
        std::copy(order.begin(), order.begin() + samples, o + r * samples);
      }
    });
  }
  return MultinomialStatus::kOk;
}

}  // namespace

void register_multinomial_kernel(KernelTable& table) { table.random.multinomial = multinomial_kernel; }

TANDEM_CPU_KERNELS_END
