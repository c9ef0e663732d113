// Pinned (page-locked) host memory from cudaHostAlloc, with a cache: pinning is slow (the OS locks every
// page), so freed blocks are kept by size class and handed out again. A block is only freed once no copy
// uses it: non_blocking copies keep their host storage alive until they finished.
#pragma once
#include <cstddef>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/storage.h"

namespace tandem::cuda {

class PinnedAllocator {
 public:
  DataPtr allocate(size_t nbytes);
  // Whether `ptr` lies in pinned memory: ours, or any other that CUDA knows (cudaHostAlloc,
  // cudaHostRegister).
  bool is_pinned(const void* ptr);
  void empty_cache();

 private:
  static void free_block(void* ctx);
  void release_cache_locked();

  std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;  // size class -> cached blocks
  std::map<uintptr_t, size_t> live_;                     // start -> size class, for is_pinned lookups
};

}  // namespace tandem::cuda
