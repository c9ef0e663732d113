// The Mersenne Twister MT19937 (Matsumoto and Nishimura, 1998), seeded and stepped as PyTorch's CPU generator
// does it (the low 32 bits of the seed through the 2002 init_genrand recurrence; `left`/`next` count the
// words of the current block), so that a seed gives PyTorch's CPU stream word for word and the state
// round-trips through PyTorch's get_rng_state layout (core/generator.cpp).
#pragma once
#include <array>
#include <cstdint>

namespace tandem {

class Mt19937 {
 public:
  static constexpr int kWords = 624;

  explicit Mt19937(uint64_t seed = 5489) { reseed(seed); }

  void reseed(uint64_t seed) {
    seed_ = seed;
    seeded_ = true;
    words_[0] = static_cast<uint32_t>(seed);
    for (int i = 1; i < kWords; ++i)
      words_[i] = 1812433253u * (words_[i - 1] ^ (words_[i - 1] >> 30)) + static_cast<uint32_t>(i);
    left_ = 1;  // the first draw regenerates the block
    next_ = 0;
  }

  uint32_t next32() {
    if (--left_ == 0) regenerate();
    uint32_t y = words_[next_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
  }
  // Two words, the first as the high half (PyTorch's random64).
  uint64_t next64() {
    const uint64_t hi = next32();
    return (hi << 32) | next32();
  }

  // The raw state, for serialisation.
  uint64_t seed() const { return seed_; }
  int left() const { return left_; }
  bool seeded() const { return seeded_; }
  uint32_t next_index() const { return next_; }
  const std::array<uint32_t, kWords>& words() const { return words_; }
  // False (and nothing changed) when the fields cannot come from a running engine.
  bool restore(uint64_t seed, int left, bool seeded, uint32_t next,
               const std::array<uint32_t, kWords>& words) {
    if (!seeded || left <= 0 || left > kWords || next > kWords) return false;
    seed_ = seed;
    left_ = left;
    seeded_ = seeded;
    next_ = next;
    words_ = words;
    return true;
  }

 private:
  void regenerate() {
    auto twist = [](uint32_t upper, uint32_t lower) {
      const uint32_t y = (upper & 0x80000000u) | (lower & 0x7fffffffu);
      return (y >> 1) ^ ((lower & 1u) ? 0x9908b0dfu : 0u);
    };
    // The recurrence word[i] = word[(i + 397) % 624] ^ twist(word[i], word[i + 1]) in three index ranges, so
    // that no modulo sits in the loop (it made the whole draw 3x slower).
    constexpr int kShift = 397;
    int i = 0;
    for (; i < kWords - kShift; ++i) words_[i] = words_[i + kShift] ^ twist(words_[i], words_[i + 1]);
    for (; i < kWords - 1; ++i) words_[i] = words_[i + kShift - kWords] ^ twist(words_[i], words_[i + 1]);
    words_[kWords - 1] = words_[kShift - 1] ^ twist(words_[kWords - 1], words_[0]);
    left_ = kWords;
    next_ = 0;
  }

  std::array<uint32_t, kWords> words_{};
  uint64_t seed_ = 0;
  int left_ = 1;
  bool seeded_ = false;
  uint32_t next_ = 0;
};

}  // namespace tandem
