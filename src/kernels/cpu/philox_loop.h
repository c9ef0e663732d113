// The CPU loop over a Philox draw. Work is split over blocks, and each block's values depend only on its
// number, so any thread count writes the same bytes.
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/parallel.h"
#include "core/philox.h"
#include "kernels/cpu/isa_region.h"

TANDEM_CPU_KERNELS_BEGIN

constexpr int64_t kGrainBlocks = 4096;

// Calls store(i, value) for every element i < n of the draw from `dist` starting at `state`.
template <typename Dist, typename Store>
void draw(PhiloxState state, int64_t n, const Dist& dist, const Store& store) {
  constexpr int K = Dist::kPerBlock;
  int64_t blocks = (n + K - 1) / K;
  parallel_for(0, blocks, kGrainBlocks, [&](int64_t b0, int64_t b1) {
    typename Dist::value_type v[K];
    for (int64_t b = b0; b < b1; ++b) {
      dist(philox_block(state.seed, state.offset + static_cast<uint64_t>(b)), v);
      int64_t i0 = b * K;
      int m = static_cast<int>(std::min<int64_t>(K, n - i0));
      for (int j = 0; j < m; ++j) store(i0 + j, v[j]);
    }
  });
}

TANDEM_CPU_KERNELS_END
