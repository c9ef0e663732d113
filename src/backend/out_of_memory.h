// The device out-of-memory error, built in one place for every accelerator backend: PyTorch's first line,
// a hint naming the largest live allocations (with their source lines when allocation sites are recorded),
// a glossary line, and the figures as attributes of tandem.cuda.OutOfMemoryError.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/device.h"

namespace tandem {

struct OutOfMemoryReport {
  Device device;
  size_t requested = 0;         // bytes the failed allocation asked for
  size_t total = 0;             // device capacity
  size_t free = 0;              // what the device can still hand out
  size_t allocated = 0;         // held by live tensors
  size_t reserved = 0;          // allocated plus the allocator's cache
  std::vector<size_t> largest;  // the backend's largest live allocations, largest first
  std::string note;             // backend-specific advice for the hint ("" for none)
};

[[noreturn]] void throw_out_of_memory(const OutOfMemoryReport& report);

// "48.00 MiB", "512 bytes": PyTorch's way of printing sizes in memory messages.
std::string format_bytes(size_t bytes);

}  // namespace tandem
