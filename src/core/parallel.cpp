#include "core/parallel.h"

#include <algorithm>
#include <atomic>

namespace tandem {
namespace {
std::atomic<int> g_threads{0};  // 0: not yet read from OpenMP
}
int get_num_threads() {
  int n = g_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    n = omp_get_max_threads();
    g_threads.store(n, std::memory_order_relaxed);
  }
  return n;
}
// Capped at 4 threads per processor: more only adds scheduling overhead, and an OpenMP team of tens of
// thousands of threads exhausts the process (set_num_threads(100000) and a large sum crashed). The count in
// use is what get_num_threads() reports.
void set_num_threads(int n) {
  const int limit = std::max(4 * omp_get_num_procs(), 4);
  g_threads.store(std::clamp(n, 1, limit), std::memory_order_relaxed);
}
}  // namespace tandem
