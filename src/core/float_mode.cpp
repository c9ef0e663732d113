#include "core/float_mode.h"

#include <omp.h>

#include <algorithm>

#include "core/parallel.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

namespace tandem {

#if defined(__x86_64__) || defined(_M_X64)
namespace {
constexpr unsigned kFlushToZero = 0x8000, kDenormalsAreZero = 0x0040;

void set_this_thread(bool on) {
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(on ? csr | kFlushToZero | kDenormalsAreZero : csr & ~(kFlushToZero | kDenormalsAreZero));
}
}  // namespace

bool set_flush_denormal(bool on) {
  set_this_thread(on);
  // The pool's threads persist between parallel regions (libgomp keeps them), so one region that reaches
  // every thread sets them for the kernels to come.
#pragma omp parallel num_threads(std::max(omp_get_max_threads(), get_num_threads()))
  set_this_thread(on);
  return true;
}
#else
bool set_flush_denormal(bool) { return false; }
#endif

}  // namespace tandem
