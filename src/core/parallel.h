// Host-side parallel loop over an index range, on OpenMP threads when the range is large enough.
#pragma once
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "core/long_work.h"

namespace tandem {

int get_num_threads();
void set_num_threads(int n);

// fn(begin, end) over contiguous chunks of [begin, end); serial below `grain` elements. Work of `grain`
// elements or more is worth a thread, and so long enough to run in a LongWorkRegion (other Python threads
// run meanwhile), on one thread as on several. Call it with no mutex held (see long_work.h).
template <typename Fn>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const Fn& fn) {
  int64_t total = end - begin;
  if (total <= 0) return;
  if (total < grain || omp_in_parallel()) {
    fn(begin, end);
    return;
  }
  LongWorkRegion region;
  int threads = get_num_threads();
  if (threads <= 1) {
    fn(begin, end);
    return;
  }
  int64_t max_threads = std::max<int64_t>(1, total / std::max<int64_t>(grain, 1));
  int nt_req = static_cast<int>(std::min<int64_t>(threads, max_threads));
  // The threads claim chunks one at a time (up to kChunksPerThread per thread, each at least `grain`) instead
  // of one fixed share each: a worker the OS runs late (another process on its core) finds its share already
  // taken by the threads that run, instead of making them wait for it. A fixed share held a loaded 2-core
  // machine's 2-thread Conv1d training step to a third of its 1-thread speed.
  constexpr int64_t kChunksPerThread = 4;
  const int64_t chunks = std::min<int64_t>(max_threads, kChunksPerThread * nt_req);
  const int64_t chunk = (total + chunks - 1) / chunks;
  std::atomic<int64_t> next{0};
#pragma omp parallel num_threads(nt_req)
  {
    for (int64_t c = next.fetch_add(1, std::memory_order_relaxed); c < chunks;
         c = next.fetch_add(1, std::memory_order_relaxed)) {
      const int64_t b = begin + c * chunk, e = std::min(end, b + chunk);
      if (b < e) fn(b, e);
    }
  }
}

}  // namespace tandem
