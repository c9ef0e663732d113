// The interpreter lock around tandem's long work: core/long_work.h calls these hooks when a large kernel
// loop, BLAS call, copy or device wait begins and ends, so other Python threads run meanwhile.
#include "core/long_work.h"

#include "bindings.h"

namespace tandem::py {

namespace {

// Only a thread that holds the interpreter lock drops it: device worker threads and OpenMP threads have no
// thread state, and a region nested in another finds the lock already dropped.
void* release_interpreter() {
  if (!PyGILState_GetThisThreadState() || !PyGILState_Check()) return nullptr;
  return PyEval_SaveThread();
}

void reacquire_interpreter(void* token) { PyEval_RestoreThread(static_cast<PyThreadState*>(token)); }

}  // namespace

void init_long_work(nb::module_& m) {
  set_long_work_hooks({&release_interpreter, &reacquire_interpreter});
  m.def("_long_work_stats", [] {
    LongWorkStats s = long_work_stats();
    return nb::make_tuple(s.released, s.peak_concurrent);
  });
  m.def("_reset_long_work_stats", &reset_long_work_stats);
}

}  // namespace tandem::py
