#include "backend/cpu/cpu_allocator.h"

#include <sys/mman.h>

#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "backend/size_class.h"
#include "core/error.h"

namespace tandem {

namespace {

// Blocks from 128 KiB up are cached: glibc serves those from mmap or from the top of its heap, which it trims
// back to the OS once the free top passes twice that size, so an op with two or three such buffers (a batch
// of 1000 8 x 8 matrices is 512 KiB) page-faulted all of them in again on every call.
constexpr size_t kLargeBlock = size_t{128} << 10;
constexpr size_t kAlignment = 64;  // a cache line: full-width vector loads never split
// Blocks of a huge page or more start on a huge-page boundary: madvise takes only page-aligned ranges, and
// transparent huge pages back only 2 MiB-aligned ones. At 64-byte alignment every block stayed on 4 KiB pages
// (madvise failed) while NumPy's large arrays got huge pages, and its 16M-float add ran 1.4x faster from DRAM
// than tandem's (TLB misses across three streams).
constexpr size_t kHugePage = size_t{2} << 20;
size_t alignment_for(size_t cls) { return cls >= kHugePage ? kHugePage : kAlignment; }

size_t default_cache_limit() {
  if (const char* env = std::getenv("TANDEM_CPU_CACHE_LIMIT")) return std::strtoull(env, nullptr, 10);
  return size_t{2} << 30;
}

class LargeBlockCache {
 public:
  void* take(size_t cls) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(cls);
    if (it == free_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    stats_.cached_bytes -= cls;
    stats_.cache_hits++;
    stats_.allocated_bytes += cls;
    return p;
  }
  void* fresh(size_t cls) {
    void* p = nullptr;
    const size_t align = alignment_for(cls);
    if (posix_memalign(&p, align, cls) != 0) {
      release_all();  // give the cache back and try once more before reporting out-of-memory
      if (posix_memalign(&p, align, cls) != 0) return nullptr;
    }
    // Fewer page faults on first touch and TLB misses after; advisory, so a kernel without THP ignores it.
    if (align == kHugePage) madvise(p, cls - cls % kHugePage, MADV_HUGEPAGE);
    std::lock_guard<std::mutex> lock(mu_);
    stats_.os_allocations++;
    stats_.allocated_bytes += cls;
    return p;
  }
  void give_back(void* p, size_t cls) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.allocated_bytes -= cls;
      if (stats_.cached_bytes + cls <= limit_) {
        free_[cls].push_back(p);
        stats_.cached_bytes += cls;
        return;
      }
    }
    std::free(p);
  }
  void release_all() {
    std::vector<void*> blocks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& [cls, list] : free_) blocks.insert(blocks.end(), list.begin(), list.end());
      free_.clear();
      stats_.cached_bytes = 0;
    }
    for (void* p : blocks) std::free(p);
  }
  CpuAllocatorStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }

 private:
  std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;
  CpuAllocatorStats stats_;
  size_t limit_ = default_cache_limit();
};

LargeBlockCache& cache() {
  static auto* c = new LargeBlockCache();  // leaked on purpose: storages may be freed during static teardown
  return *c;
}

// The deleter's context is the block header: we keep the size class just before the data.
struct LargeHeader {
  void* base;
  size_t cls;
};

void free_small(void* p) { std::free(p); }
void free_large(void* ctx) {
  auto* h = static_cast<LargeHeader*>(ctx);
  void* base = h->base;
  size_t cls = h->cls;
  delete h;
  cache().give_back(base, cls);
}

[[noreturn]] void throw_oom(size_t nbytes) {
  TANDEM_THROW(OutOfMemory, "DefaultCPUAllocator: not enough memory: you tried to allocate ", nbytes,
               " bytes.\nhint: the request is ", nbytes / double(size_t{1} << 30),
               " GiB; use smaller tensors or a smaller batch, or free tensors you no longer need");
}

}  // namespace

DataPtr cpu_allocate(size_t nbytes) {
  if (nbytes < kLargeBlock) {
    void* p = std::malloc(nbytes == 0 ? 1 : nbytes);
    if (!p) throw_oom(nbytes);
    return DataPtr(p, p, &free_small);
  }
  // Anything bigger than the address space can hold fails before we round it.
  if (nbytes > (size_t{1} << 56)) throw_oom(nbytes);
  size_t cls = allocation_size_class(nbytes);
  void* p = cache().take(cls);
  if (!p) p = cache().fresh(cls);
  if (!p) throw_oom(nbytes);
  return DataPtr(p, new LargeHeader{p, cls}, &free_large);
}

void cpu_empty_cache() { cache().release_all(); }
CpuAllocatorStats cpu_allocator_stats() { return cache().stats(); }

}  // namespace tandem
