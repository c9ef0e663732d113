#include "core/generator.h"

#include <random>

#include "core/error.h"

namespace tandem {

namespace {
// Enough for any machine tandem runs on; an ordinal past it is refused by the CUDA backend anyway.
constexpr int kMaxCudaDevices = 64;

Generator* default_generators() {
  // One CPU slot followed by the CUDA ordinals; never destroyed, so draws from static destructors work.
  static Generator* gens = [] {
    auto* g = static_cast<Generator*>(::operator new(sizeof(Generator) * (1 + kMaxCudaDevices)));
    new (&g[0]) Generator(Device());
    for (int i = 0; i < kMaxCudaDevices; ++i) new (&g[1 + i]) Generator(Device(DeviceType::CUDA, int16_t(i)));
    return g;
  }();
  return gens;
}
}  // namespace

Generator::Generator(Device device, uint64_t seed) : device_(device), seed_(seed) {}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t Generator::seed() {
  std::random_device rd;
  uint64_t s = (static_cast<uint64_t>(rd()) << 32) | rd();
  manual_seed(s);
  return s;
}

uint64_t Generator::initial_seed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return seed_;
}

uint64_t Generator::offset() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return offset_;
}

PhiloxState Generator::reserve(uint64_t blocks) {
  std::lock_guard<std::mutex> lock(mutex_);
  PhiloxState s{seed_, offset_};
  offset_ += blocks;
  return s;
}

Generator::State Generator::state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  State s{};
  for (int i = 0; i < 8; ++i) {
    s[i] = static_cast<uint8_t>(seed_ >> (8 * i));
    s[8 + i] = static_cast<uint8_t>(offset_ >> (8 * i));
  }
  return s;
}

void Generator::set_state(const State& s) {
  uint64_t seed = 0, offset = 0;
  for (int i = 0; i < 8; ++i) {
    seed |= static_cast<uint64_t>(s[i]) << (8 * i);
    offset |= static_cast<uint64_t>(s[8 + i]) << (8 * i);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  offset_ = offset;
}

Generator& default_generator(Device device) {
  if (device.is_cpu()) return default_generators()[0];
  if (device.is_meta()) {
    // Random fills of meta tensors draw nothing, but the front ends reserve offsets from the output's
    // device's generator: a generator of its own keeps them from advancing the CPU's stream (as in PyTorch,
    // building a model on 'meta' leaves torch.rand's next values unchanged).
    static Generator* meta = new Generator(Device(DeviceType::Meta));
    return *meta;
  }
  int index = device.index < 0 ? 0 : device.index;
  TANDEM_CHECK(index < kMaxCudaDevices, Runtime, "no default generator for device ", device.str(),
               "\nhint: tandem supports CUDA ordinals below ", kMaxCudaDevices);
  return default_generators()[1 + index];
}

Generator& manual_seed_all(uint64_t seed) {
  for (int i = 0; i < 1 + kMaxCudaDevices; ++i) default_generators()[i].manual_seed(seed);
  return default_generators()[0];
}

}  // namespace tandem
