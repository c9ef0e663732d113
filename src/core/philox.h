// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): a counter-based
// generator. A block of four 32-bit words is a pure function of (key, counter), so any thread on any device
// can compute element i of a draw without touching the others; that is what makes tandem's random numbers
// independent of thread count and identical between the CPU and CUDA kernels.
#pragma once
#include <cstdint>

#include "core/macros.h"

namespace tandem {

struct PhiloxWords {
  uint32_t w[4];
};

// Where one draw starts in a generator's stream: element blocks are numbered from `offset` on, keyed by
// `seed`. A draw that uses B blocks advances its generator's offset by B.
struct PhiloxState {
  uint64_t seed = 0;
  uint64_t offset = 0;
};

namespace philox_detail {
constexpr uint32_t kMul0 = 0xD2511F53u;
constexpr uint32_t kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u;  // golden ratio
constexpr uint32_t kWeyl1 = 0xBB67AE85u;  // sqrt(3) - 1

TANDEM_HOST_DEVICE TANDEM_INLINE void round(uint32_t c[4], uint32_t k0, uint32_t k1) {
  uint64_t p0 = static_cast<uint64_t>(kMul0) * c[0];
  uint64_t p1 = static_cast<uint64_t>(kMul1) * c[2];
  uint32_t hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
  uint32_t hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
  uint32_t c1 = c[1], c3 = c[3];
  c[0] = hi1 ^ c1 ^ k0;
  c[1] = lo1;
  c[2] = hi0 ^ c3 ^ k1;
  c[3] = lo0;
}
}  // namespace philox_detail

// The raw Philox4x32 bijection with 10 rounds.
TANDEM_HOST_DEVICE TANDEM_INLINE PhiloxWords philox4x32_10(PhiloxWords counter, uint32_t key0,
                                                           uint32_t key1) {
  uint32_t* c = counter.w;
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      key0 += philox_detail::kWeyl0;
      key1 += philox_detail::kWeyl1;
    }
    philox_detail::round(c, key0, key1);
  }
  return counter;
}

// Block number `block` of the stream keyed by `seed`: the 64-bit block number is the low half of the
// counter, the seed is the key.
TANDEM_HOST_DEVICE TANDEM_INLINE PhiloxWords philox_block(uint64_t seed, uint64_t block) {
  PhiloxWords ctr{{static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32), 0u, 0u}};
  return philox4x32_10(ctr, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

}  // namespace tandem
