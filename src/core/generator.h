// A random-number generator: a Philox key (the seed) plus how many counter blocks have been used. Draws
// reserve blocks under a lock and compute values from (seed, offset, element index) alone, so results
// never depend on thread count or device.
#pragma once
#include <array>
#include <cstdint>
#include <mutex>

#include "core/device.h"
#include "core/philox.h"

namespace tandem {

class Generator {
 public:
  // PyTorch's default seed, so a fresh process starts from a fixed, documented state.
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;
  // The serialised state: seed then offset, each 8 little-endian bytes.
  static constexpr size_t kStateSize = 16;
  using State = std::array<uint8_t, kStateSize>;

  explicit Generator(Device device = Device(), uint64_t seed = kDefaultSeed);
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  Device device() const { return device_; }
  // Restarts the stream at `seed` (offset 0).
  void manual_seed(uint64_t seed);
  // Seeds from the operating system's entropy and returns the seed used.
  uint64_t seed();
  uint64_t initial_seed() const;
  uint64_t offset() const;
  // Reserves `blocks` consecutive Philox blocks for one draw and returns where they start.
  PhiloxState reserve(uint64_t blocks);

  State state() const;
  void set_state(const State& s);

 private:
  mutable std::mutex mutex_;
  Device device_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

// The generator draws use when none is given: one per CPU and one per CUDA ordinal.
Generator& default_generator(Device device);
// Seeds every default generator (what tandem.manual_seed does); returns the CPU one.
Generator& manual_seed_all(uint64_t seed);

}  // namespace tandem
