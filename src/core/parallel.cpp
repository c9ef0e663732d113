#include "core/parallel.h"

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
void set_num_threads(int n) { g_threads.store(n < 1 ? 1 : n, std::memory_order_relaxed); }
}  // namespace tandem
