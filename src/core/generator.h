// A random-number generator. CUDA generators are a Philox key (the seed) plus how many counter blocks have
// been used: draws reserve blocks under a lock and compute values from (seed, offset, element index) alone,
// so results never depend on thread count. The CPU generator is PyTorch's: an MT19937 stream that the common
// draws (uniform_, normal_, random_, bernoulli_, exponential_, randperm: ops/random_cpu_stream.h) consume
// serially in PyTorch's order, so `manual_seed(s)` gives PyTorch's CPU numbers; the other CPU draws take a
// Philox key from that stream (two words per draw), so one state (PyTorch's get_rng_state layout) covers all.
#pragma once
#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "core/device.h"
#include "core/mt19937.h"
#include "core/philox.h"

namespace tandem {

class Generator {
 public:
  // PyTorch's default seed, so a fresh process starts from a fixed, documented state.
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;
  // The serialised state of a CUDA generator: seed then offset, each 8 little-endian bytes.
  static constexpr size_t kPhiloxStateSize = 16;
  // A CPU generator's: PyTorch's CPUGeneratorImplState (seed, left, seeded, next, the 624 words widened to
  // 64 bits, the cached double and float normal samples), so states move between PyTorch and tandem.
  static constexpr size_t kCpuStateSize = 5056;
  using State = std::vector<uint8_t>;

  // What the CPU draws in PyTorch's order read and advance: the engine and Box-Muller's cached second
  // samples (one per precision, as PyTorch keeps them).
  struct CpuStream {
    Mt19937 engine;
    std::optional<double> next_double_normal;
    std::optional<float> next_float_normal;
    uint32_t random() { return engine.next32(); }
    uint64_t random64() { return engine.next64(); }
    // PyTorch's unit uniforms in [0, 1): 53 bits of two words for float64, 24 bits of one for the other
    // floating types (float16 and bfloat16 values are drawn as floats and rounded).
    double uniform_double() { return static_cast<double>(random64() & ((uint64_t{1} << 53) - 1)) * 0x1p-53; }
    float uniform_float() { return static_cast<float>(random() & ((uint32_t{1} << 24) - 1)) * 0x1p-24f; }
  };

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

  // Runs f(stream) under the generator's lock (CPU generators only): a serial draw in PyTorch's order.
  template <typename F>
  decltype(auto) with_cpu_stream(F&& f) {
    std::lock_guard<std::mutex> lock(mutex_);
    return f(stream_);
  }

  size_t state_size() const { return device_.is_cpu() ? kCpuStateSize : kPhiloxStateSize; }
  State state() const;
  // `size` must be state_size(); a CPU state is checked as PyTorch checks it (RuntimeError otherwise).
  void set_state(const uint8_t* data, size_t size);

 private:
  mutable std::mutex mutex_;
  Device device_;
  uint64_t seed_;
  uint64_t offset_ = 0;
  CpuStream stream_;  // CPU generators only
};

// The generator draws use when none is given: one per CPU and one per CUDA ordinal.
Generator& default_generator(Device device);
// Seeds every default generator (what tandem.manual_seed does); returns the CPU one.
Generator& manual_seed_all(uint64_t seed);

}  // namespace tandem
