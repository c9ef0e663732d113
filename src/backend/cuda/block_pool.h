// The bookkeeping of the CUDA caching allocator, free of CUDA calls so it is unit-tested on any machine:
// size classes, per-stream pools of free blocks, best-fit search, block splitting, coalescing of free
// neighbours, and statistics. The caller (cuda_allocator.cpp) gets segments from cudaMalloc and gives them
// back with cudaFree; this class only decides which bytes of which segment a request gets.
//
// Rules (those of PyTorch's allocator, simplified):
// - requests are rounded up to 512 bytes;
// - small requests (<= 1 MiB) are carved from 2 MiB segments, medium ones (< 10 MiB) from 20 MiB segments,
//   large ones get a segment of their size rounded up to 2 MiB;
// - a free block is split when the rest is still useful (>= 512 bytes in a small pool, > 1 MiB in a large
// one);
// - a freed block merges with free neighbours of its segment and goes back to the pool of the stream it was
//   allocated on: later work on that stream runs after the work that used it, so reuse needs no event.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

#include "backend/accelerator.h"

namespace tandem::cuda {

constexpr size_t kBlockRound = 512;
constexpr size_t kSmallRequest = size_t{1} << 20;    // up to this: the small pool
constexpr size_t kSmallSegment = size_t{2} << 20;    // segment size of the small pool
constexpr size_t kMediumRequest = size_t{10} << 20;  // below this: 20 MiB segments shared by several blocks
constexpr size_t kMediumSegment = size_t{20} << 20;
constexpr size_t kLargeRound = size_t{2} << 20;
// Larger requests are out of memory on any device, and are refused before rounding: rounding a size near
// SIZE_MAX up would wrap around to a tiny block handed out for a huge tensor.
constexpr size_t kMaxRequest = size_t{1} << 56;

inline size_t round_request(size_t n) {
  return std::max(kBlockRound, (n + kBlockRound - 1) / kBlockRound * kBlockRound);
}

// Size of the segment to cudaMalloc when no cached block fits a request of `rounded` bytes.
inline size_t segment_size_for(size_t rounded) {
  if (rounded <= kSmallRequest) return kSmallSegment;
  if (rounded < kMediumRequest) return kMediumSegment;
  return (rounded + kLargeRound - 1) / kLargeRound * kLargeRound;
}

using StreamKey = uintptr_t;  // the cudaStream_t a block belongs to

struct Block {
  uintptr_t addr = 0;
  size_t size = 0;
  size_t requested = 0;  // what the caller asked for (allocated blocks)
  StreamKey stream = 0;
  bool small = false;  // which pool kind
  bool allocated = false;
  Block* prev = nullptr;  // neighbours in the same segment
  Block* next = nullptr;
  void* ptr() const { return reinterpret_cast<void*>(addr); }
};

struct FreedSegment {
  uintptr_t addr;
  size_t size;
};

class BlockPool {
 public:
  BlockPool() = default;
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;
  ~BlockPool() {
    for (Block* b : all_) delete b;
  }

  // A cached block for `nbytes` on `stream`, split to size; null when none fits (the caller then adds a
  // segment).
  Block* take(size_t nbytes, StreamKey stream) {
    size_t rounded = round_request(nbytes);
    bool small = rounded <= kSmallRequest;
    auto pool = pools_.find({stream, small});
    if (pool == pools_.end()) return nullptr;
    Block key;
    key.size = rounded;
    auto it = pool->second.lower_bound(&key);  // best fit: smallest free block that is large enough
    if (it == pool->second.end()) return nullptr;
    Block* b = *it;
    pool->second.erase(it);
    return use(b, rounded, nbytes);
  }

  // Registers a new segment [addr, addr + size) from the device for `stream` and takes `nbytes` from it.
  Block* add_segment(uintptr_t addr, size_t size, size_t nbytes, StreamKey stream) {
    auto* b = new Block;
    all_.insert(b);
    b->addr = addr;
    b->size = size;
    b->stream = stream;
    b->small = round_request(nbytes) <= kSmallRequest;
    stats_.reserved += size;
    stats_.max_reserved = std::max(stats_.max_reserved, stats_.reserved);
    return use(b, round_request(nbytes), nbytes);
  }

  // Gives an allocated block back: merged with free neighbours, back into its stream's pool.
  void release(Block* b) {
    b->allocated = false;
    stats_.allocated -= b->size;
    stats_.frees++;
    live_.erase(b);
    if (b->prev && !b->prev->allocated) b = merge_free_neighbour(b, b->prev);
    if (b->next && !b->next->allocated) b = merge_free_neighbour(b, b->next);
    pool_of(b).insert(b);
  }

  // Removes every segment that is entirely free from the pools and returns them for cudaFree.
  std::vector<FreedSegment> take_free_segments() {
    std::vector<FreedSegment> out;
    for (auto& [key, pool] : pools_) {
      for (auto it = pool.begin(); it != pool.end();) {
        Block* b = *it;
        if (b->prev || b->next) {
          ++it;
          continue;
        }
        out.push_back({b->addr, b->size});
        stats_.reserved -= b->size;
        it = pool.erase(it);
        all_.erase(b);
        delete b;
      }
    }
    return out;
  }

  // Sizes (as requested) of the largest live allocations, largest first.
  std::vector<size_t> largest_live(size_t count) const {
    std::vector<size_t> sizes;
    sizes.reserve(live_.size());
    for (const Block* b : live_) sizes.push_back(b->requested);
    std::sort(sizes.rbegin(), sizes.rend());
    if (sizes.size() > count) sizes.resize(count);
    return sizes;
  }

  size_t cached_blocks() const {
    size_t n = 0;
    for (auto& [key, pool] : pools_) n += pool.size();
    return n;
  }

  DeviceMemoryStats& stats() { return stats_; }
  const DeviceMemoryStats& stats() const { return stats_; }

 private:
  struct BySizeThenAddress {
    bool operator()(const Block* a, const Block* b) const {
      return a->size != b->size ? a->size < b->size : a->addr < b->addr;
    }
  };
  using Pool = std::set<Block*, BySizeThenAddress>;

  Pool& pool_of(const Block* b) { return pools_[{b->stream, b->small}]; }

  // Marks `b` allocated for `rounded` bytes, returning the remainder to the pool when it is worth keeping.
  Block* use(Block* b, size_t rounded, size_t requested) {
    size_t rest = b->size - rounded;
    bool split = b->small ? rest >= kBlockRound : rest > kSmallRequest;
    if (split) {
      auto* r = new Block;
      all_.insert(r);
      r->addr = b->addr + rounded;
      r->size = rest;
      r->stream = b->stream;
      r->small = b->small;
      r->prev = b;
      r->next = b->next;
      if (b->next) b->next->prev = r;
      b->next = r;
      b->size = rounded;
      pool_of(r).insert(r);
    }
    b->allocated = true;
    b->requested = requested;
    live_.insert(b);
    stats_.allocated += b->size;
    stats_.max_allocated = std::max(stats_.max_allocated, stats_.allocated);
    stats_.allocations++;
    return b;
  }

  // Absorbs `b`'s free neighbour `n` (still in its pool) into one block; `b` is in no pool, nor is the
  // result.
  Block* merge_free_neighbour(Block* b, Block* n) {
    pool_of(n).erase(n);  // before its size changes: the pool is ordered by size
    Block* first = n == b->prev ? n : b;
    Block* second = first == b ? n : b;
    first->size += second->size;
    first->next = second->next;
    if (second->next) second->next->prev = first;
    all_.erase(second);
    delete second;
    return first;
  }

  std::map<std::pair<StreamKey, bool>, Pool> pools_;
  std::unordered_set<Block*> all_;   // owns every block
  std::unordered_set<Block*> live_;  // allocated blocks
  DeviceMemoryStats stats_;
};

}  // namespace tandem::cuda
