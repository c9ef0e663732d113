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

// Tells OpenBLAS n threads unless it was told so last. The count is recorded after the call returns, so a
// thread that sees it recorded (a second worker of a parallel region) never calls BLAS while the change is
// still under way; two threads that both see it differ both make the same call.
inline void set(int n) {
  if (current.load(std::memory_order_acquire) == n) return;
  openblas_set_num_threads(n);
  current.store(n, std::memory_order_release);
}
// OpenBLAS keeps its own thread pool; follow tandem's thread count (set_num_threads) whenever it changes.
// Inside one of tandem's parallel regions (each of its threads calling BLAS on its own share) it is one.
inline void follow_tandem() { set(omp_in_parallel() ? 1 : get_num_threads()); }
// One BLAS thread, for calls that tandem's threads run side by side (the next follow_tandem restores it).
inline void single() { set(1); }

}  // namespace tandem::blas_threads
