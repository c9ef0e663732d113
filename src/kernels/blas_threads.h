// OpenBLAS's thread count, shared by every caller of BLAS and LAPACK (the matrix products of kernels/cpu,
// compiled once per ISA, and the LAPACK kernels of kernels/lapack): one cached count, so that a call that
// wants OpenBLAS's threads and one that runs it on one thread (inside tandem's own parallel loop) each set it
// only when it differs. A LAPACK call that followed a batch of small products would otherwise inherit their
// one thread (and a small product after a LAPACK call its full count). Include only where BLAS is linked.
#pragma once
#include <cblas.h>

#include <atomic>

#include "core/parallel.h"

namespace tandem::blas_threads {

inline std::atomic<int> current{0};  // what OpenBLAS was last told; 0: not yet

// OpenBLAS keeps its own thread pool; follow tandem's thread count (set_num_threads) whenever it changes.
inline void follow_tandem() {
  const int n = get_num_threads();
  if (current.exchange(n, std::memory_order_relaxed) != n) openblas_set_num_threads(n);
}
// One BLAS thread, for calls that tandem's threads run side by side (the next follow_tandem restores it).
inline void single() {
  if (current.exchange(1, std::memory_order_relaxed) != 1) openblas_set_num_threads(1);
}

}  // namespace tandem::blas_threads
