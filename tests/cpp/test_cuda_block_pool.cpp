// The CUDA caching allocator's bookkeeping (no CUDA needed): size classes, best fit, splitting, coalescing,
// per-stream pools, releasing free segments, statistics.
#include <gtest/gtest.h>

#include <cstdint>

#include "backend/cuda/block_pool.h"

namespace tandem::cuda {
namespace {

constexpr uintptr_t kBase = 0x10000000;
constexpr size_t MiB = size_t{1} << 20;

TEST(CudaBlockPool, RoundsRequestsAndPicksSegmentSizes) {
  EXPECT_EQ(round_request(0), 512u);
  EXPECT_EQ(round_request(1), 512u);
  EXPECT_EQ(round_request(513), 1024u);
  EXPECT_EQ(segment_size_for(512), 2 * MiB);
  EXPECT_EQ(segment_size_for(MiB), 2 * MiB);
  EXPECT_EQ(segment_size_for(MiB + 512), 20 * MiB);
  EXPECT_EQ(segment_size_for(10 * MiB), 10 * MiB);
  EXPECT_EQ(segment_size_for(10 * MiB + 512), 12 * MiB);
}

// The allocator refuses requests above kMaxRequest before rounding; up to it, rounding never wraps around.
TEST(CudaBlockPool, RequestsUpToTheLimitRoundWithoutWrapping) {
  EXPECT_EQ(round_request(kMaxRequest), kMaxRequest);
  EXPECT_EQ(round_request(kMaxRequest - 1), kMaxRequest);
  EXPECT_EQ(segment_size_for(kMaxRequest), kMaxRequest);
  EXPECT_GE(segment_size_for(round_request(kMaxRequest - 1)), kMaxRequest - 1);
}

TEST(CudaBlockPool, SmallRequestsShareASegmentAndCoalesceBack) {
  BlockPool pool;
  EXPECT_EQ(pool.take(1000, 1), nullptr);
  Block* a = pool.add_segment(kBase, 2 * MiB, 1000, 1);
  EXPECT_EQ(a->addr, kBase);
  EXPECT_EQ(a->size, 1024u);
  Block* b = pool.take(4096, 1);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->addr, kBase + 1024);  // carved from the rest of the same segment
  Block* c = pool.take(512, 1);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->addr, kBase + 1024 + 4096);
  EXPECT_EQ(pool.stats().allocated, 1024u + 4096 + 512);
  EXPECT_EQ(pool.stats().reserved, 2 * MiB);

  pool.release(b);                // a hole between a and c
  Block* d = pool.take(2048, 1);  // best fit: the 4 KiB hole, not the large rest
  EXPECT_EQ(d->addr, kBase + 1024);
  pool.release(d);
  pool.release(a);
  pool.release(c);  // everything merges back into one free segment
  EXPECT_EQ(pool.cached_blocks(), 1u);
  EXPECT_EQ(pool.stats().allocated, 0u);
  auto freed = pool.take_free_segments();
  ASSERT_EQ(freed.size(), 1u);
  EXPECT_EQ(freed[0].addr, kBase);
  EXPECT_EQ(freed[0].size, 2 * MiB);
  EXPECT_EQ(pool.stats().reserved, 0u);
  EXPECT_EQ(pool.stats().max_reserved, 2 * MiB);
  EXPECT_EQ(pool.stats().allocations, 4u);
  EXPECT_EQ(pool.stats().frees, 4u);
}

TEST(CudaBlockPool, PoolsAreSeparatePerStreamAndPerKind) {
  BlockPool pool;
  Block* a = pool.add_segment(kBase, 2 * MiB, 512, /*stream=*/1);
  EXPECT_EQ(pool.take(512, /*stream=*/2), nullptr);  // another stream's cache is not used
  EXPECT_EQ(pool.take(3 * MiB, 1), nullptr);         // a large request does not come from the small pool
  pool.release(a);
  EXPECT_NE(pool.take(512, 1), nullptr);
}

TEST(CudaBlockPool, LargeBlocksSplitOnlyWhenTheRestIsWorthIt) {
  BlockPool pool;
  Block* a = pool.add_segment(kBase, 20 * MiB, 3 * MiB, 1);
  EXPECT_EQ(a->size, 3 * MiB);  // split: 17 MiB stay cached
  Block* b = pool.take(16 * MiB + 512 * 1024, 1);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->size, 17 * MiB);  // the 0.5 MiB rest is too small to split off a large block
  EXPECT_EQ(pool.take(2 * MiB, 1), nullptr);
  pool.release(a);
  EXPECT_TRUE(pool.take_free_segments().empty());  // b still holds part of the segment
  pool.release(b);
  EXPECT_EQ(pool.take_free_segments().size(), 1u);
}

TEST(CudaBlockPool, LargestLiveAllocationsAndPeaks) {
  BlockPool pool;
  Block* a = pool.add_segment(kBase, 12 * MiB, 12 * MiB - 100, 1);
  Block* b = pool.add_segment(kBase + 12 * MiB, 2 * MiB, 1000, 1);
  auto largest = pool.largest_live(5);
  ASSERT_EQ(largest.size(), 2u);
  EXPECT_EQ(largest[0], 12 * MiB - 100);
  EXPECT_EQ(largest[1], 1000u);
  pool.release(a);
  EXPECT_EQ(pool.stats().allocated, 1024u);
  EXPECT_EQ(pool.stats().max_allocated, 12 * MiB + 1024);
  pool.release(b);
  EXPECT_EQ(pool.take_free_segments().size(), 2u);
}

}  // namespace
}  // namespace tandem::cuda
