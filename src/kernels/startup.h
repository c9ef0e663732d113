// The one start-up function: it registers the backends and fills their kernel tables. The CPU is started on
// first use of anything; the CUDA slot is started lazily, on its first lookup, because finding GPUs
// initialises the driver (too slow for import, and a driver initialised before fork() is unusable in the
// child, which DataLoader workers rely on).
#pragma once
#include "core/device.h"

namespace tandem {

struct KernelTable;

// Idempotent; called by the Python module's init, by kernel_table(), and by a C++ program (the C++ tests do
// it in tests/cpp/start_runtime.cpp) before it creates tensors.
void start_runtime();

// Whether this build has the real CUDA backend. Defined per build configuration, with start_cuda_hardware:
// kernels/cuda/start_cuda.cpp or kernels/no_cuda/start_cuda.cpp.
bool cuda_backend_built();
// Registers the real CUDA devices and their kernels, or records why there are none.
void start_cuda_hardware();

// Wraps every kernel slot of a device type's (filled) table so that complex or uint16..64 operands reaching a
// slot not written for them raise NotImplementedError at the call (kernels/dtype_guard.cpp). Called once per
// type, last.
void guard_operand_dtypes(DeviceType type);

namespace emulated {
// Wraps every CPU kernel slot to run asynchronously on an emulated device's stream.
void register_emulated_kernels(KernelTable& table);
}  // namespace emulated

}  // namespace tandem
