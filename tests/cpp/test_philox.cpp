#include <gtest/gtest.h>

#include <cstring>

#include "core/generator.h"
#include "core/philox.h"
#include "kernels/kernel_table.h"

using namespace tandem;

// Known-answer vectors of Philox4x32-10 from the Random123 distribution (kat_vectors).
TEST(Philox, MatchesRandom123KnownAnswers) {
  struct Case {
    PhiloxWords ctr;
    uint32_t k0, k1;
    PhiloxWords expect;
  } cases[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}}},
      {{{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}},
       0xffffffffu,
       0xffffffffu,
       {{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}}},
      {{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}},
       0xa4093822u,
       0x299f31d0u,
       {{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}}},
  };
  for (const Case& c : cases) {
    PhiloxWords r = philox4x32_10(c.ctr, c.k0, c.k1);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(r.w[i], c.expect.w[i]) << "word " << i;
  }
}

TEST(Generator, ReserveAdvancesOffsetAndStateRoundTrips) {
  Generator g(Device(), 42);
  EXPECT_EQ(g.reserve(3).offset, 0u);
  EXPECT_EQ(g.reserve(5).offset, 3u);
  Generator::State s = g.state();
  g.manual_seed(7);
  EXPECT_EQ(g.offset(), 0u);
  g.set_state(s);
  EXPECT_EQ(g.initial_seed(), 42u);
  EXPECT_EQ(g.offset(), 8u);
}

// A draw that starts k blocks later reproduces the tail of a longer draw: element i depends only on
// (seed, offset, i), which is what lets a CUDA kernel (or any thread split) produce the same numbers.
TEST(RandomKernels, ElementsDependOnlyOnSeedOffsetAndIndex) {
  const int64_t long_size[1] = {40}, short_size[1] = {20};
  for (DType d : {DType::Float32, DType::Float64}) {
    Tensor whole = empty(long_size, d), tail = empty(short_size, d);
    const RandomKernels& k = kernel_table(DeviceType::CPU).random;
    k.normal(whole, PhiloxState{99, 0}, 0.0, 1.0);
    int per_block = d == DType::Float64 ? 2 : 4;
    k.normal(tail, PhiloxState{99, static_cast<uint64_t>(20 / per_block)}, 0.0, 1.0);
    EXPECT_EQ(std::memcmp(static_cast<char*>(whole.data_ptr()) + 20 * whole.element_size(), tail.data_ptr(),
                          tail.nbytes()),
              0)
        << dtype_name(d);
  }
}
