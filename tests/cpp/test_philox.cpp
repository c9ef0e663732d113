#include <gtest/gtest.h>

#include <cstring>

#include "core/error.h"
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
  Generator g(Device(DeviceType::CUDA, 0), 42);
  EXPECT_EQ(g.reserve(3).offset, 0u);
  EXPECT_EQ(g.reserve(5).offset, 3u);
  Generator::State s = g.state();
  ASSERT_EQ(s.size(), Generator::kPhiloxStateSize);
  g.manual_seed(7);
  EXPECT_EQ(g.offset(), 0u);
  g.set_state(s.data(), s.size());
  EXPECT_EQ(g.initial_seed(), 42u);
  EXPECT_EQ(g.offset(), 8u);
}

// The CPU generator is PyTorch's MT19937 stream: seed 0's first words are PyTorch's (and NumPy's legacy
// RandomState(0)'s), a Philox draw keys itself from two words, and the state round-trips in PyTorch's layout.
TEST(Generator, CpuStreamIsMt19937AndStateRoundTrips) {
  Generator g(Device(), 0);
  const uint32_t first[3] = {2357136044u, 2546248239u, 3071714933u};
  for (uint32_t w : first)
    EXPECT_EQ(g.with_cpu_stream([](Generator::CpuStream& s) { return s.random(); }), w);
  Generator::State s = g.state();
  ASSERT_EQ(s.size(), Generator::kCpuStateSize);
  const PhiloxState key = g.reserve(4);
  EXPECT_EQ(key.offset, 0u);
  g.manual_seed(5);
  g.set_state(s.data(), s.size());
  EXPECT_EQ(g.reserve(4).seed, key.seed);
  EXPECT_EQ(g.initial_seed(), 0u);
  for (int i = 8; i < 12; ++i) s[i] = 0;  // left = 0: not a state a running engine has
  EXPECT_THROW(g.set_state(s.data(), s.size()), Error);
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
