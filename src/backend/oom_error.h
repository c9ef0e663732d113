// The "CUDA out of memory" error, worded once for every CUDA-type allocator (real and emulated): PyTorch's
// first line, then a hint naming the largest live allocations and the fixes.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace tandem {

struct OutOfMemoryReport {
  int device = 0;
  size_t requested = 0;                // bytes the caller asked for
  size_t capacity = 0, free = 0;       // of the device
  size_t allocated = 0, reserved = 0;  // by tandem's allocator
  std::vector<size_t> largest_live;    // sizes of the largest live allocations, largest first
  std::string note;                    // extra advice for this allocator (may be empty)
};

[[noreturn]] void throw_cuda_out_of_memory(const OutOfMemoryReport& report);
// "512 bytes", "1.50 MiB", ...
std::string format_bytes(double bytes);

}  // namespace tandem
