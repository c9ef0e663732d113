// Starts tandem's devices before any test runs (a C++ program calls start_runtime() before creating tensors;
// the Python module does it at import).
#include "kernels/startup.h"

namespace {
const bool g_started = (tandem::start_runtime(), true);
}  // namespace
