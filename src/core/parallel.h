// Host-side parallel loop over an index range, on OpenMP threads when the range is large enough.
#pragma once
#include <omp.h>

#include <algorithm>
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
#pragma omp parallel num_threads(nt_req)
  {
    int64_t nt = omp_get_num_threads();
    int64_t t = omp_get_thread_num();
    int64_t chunk = (total + nt - 1) / nt;
    int64_t b = begin + t * chunk, e = std::min(end, b + chunk);
    if (b < e) fn(b, e);
  }
}

}  // namespace tandem
