#include "core/parallel.h"

#include <algorithm>
#include <atomic>

#include <pthread.h>

namespace tandem {
namespace {
std::atomic<int> g_threads{0};  // 0: not yet read from OpenMP

// A forked child inherits none of the parent's OpenMP worker threads, but libgomp still believes its team
// exists: the child's first parallel region then waits forever at a barrier (a DataLoader worker forked after
// the parent ran 2 threads hung so). The child runs on one thread, as PyTorch's DataLoader workers do;
// set_num_threads raises it again for a program that knows its OpenMP runtime copes.
const bool fork_handler_installed = [] {
  pthread_atfork(nullptr, nullptr, [] { g_threads.store(1, std::memory_order_relaxed); });
  return true;
}();
}  // namespace
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
