// Host memory allocator with a cache for large blocks. Freshly mmap'ed pages must be page-faulted in on
// first touch, which caps a streaming op like `c = a + b` at a fraction of memory bandwidth; reusing freed
// blocks of the same size class avoids that. Blocks under 128 KiB go straight to malloc, which is already fast.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/storage.h"

namespace tandem {

struct CpuAllocatorStats {
  size_t allocated_bytes = 0;  // live, as requested (rounded to the size class)
  size_t cached_bytes = 0;     // held in the cache, ready for reuse
  uint64_t cache_hits = 0;
  uint64_t os_allocations = 0;
};

DataPtr cpu_allocate(size_t nbytes);
// Returns every cached block to the OS.
void cpu_empty_cache();
CpuAllocatorStats cpu_allocator_stats();

}  // namespace tandem
