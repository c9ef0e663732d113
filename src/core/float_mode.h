// The CPU's treatment of denormal (subnormal) floats: torch.set_flush_denormal.
#pragma once

namespace tandem {

// On x86-64, sets (or clears) the SSE control register's flush-to-zero and denormals-are-zero bits on the
// calling thread and on every thread of the OpenMP pool the kernels run on, and returns true; elsewhere
// changes nothing and returns false (as PyTorch, which supports it only on x86 with SSE3). Threads started
// later, and the emulated device's worker threads, keep IEEE denormals.
bool set_flush_denormal(bool on);

}  // namespace tandem
