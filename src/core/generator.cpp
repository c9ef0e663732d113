#include "core/generator.h"

#include <cstring>
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

Generator::Generator(Device device, uint64_t seed) : device_(device), seed_(seed) {
  stream_.engine.reseed(seed);
}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  offset_ = 0;
  stream_ = CpuStream{Mt19937(seed), std::nullopt, std::nullopt};
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
  // A CPU draw without a PyTorch-order form keys its Philox stream from the MT19937 stream: one state.
  if (device_.is_cpu()) return PhiloxState{stream_.random64(), 0};
  PhiloxState s{seed_, offset_};
  offset_ += blocks;
  return s;
}

namespace {
// PyTorch's CPUGeneratorImplState, field by field (offsets of its x86-64 layout).
constexpr size_t kSeedAt = 0, kLeftAt = 8, kSeededAt = 12, kNextAt = 16, kWordsAt = 24, kNormalYAt = 5024,
                 kNormalValidAt = 5040, kFloatNormalAt = 5048, kFloatNormalValidAt = 5052;

template <typename T>
void put(Generator::State& s, size_t at, T v) {
  std::memcpy(s.data() + at, &v, sizeof(T));
}
template <typename T>
T get(const uint8_t* s, size_t at) {
  T v;
  std::memcpy(&v, s + at, sizeof(T));
  return v;
}
}  // namespace

Generator::State Generator::state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  State s(state_size(), 0);
  if (device_.is_cpu()) {
    const Mt19937& e = stream_.engine;
    put<uint64_t>(s, kSeedAt, e.seed());
    put<int32_t>(s, kLeftAt, e.left());
    put<int32_t>(s, kSeededAt, e.seeded() ? 1 : 0);
    put<uint64_t>(s, kNextAt, e.next_index());
    for (int i = 0; i < Mt19937::kWords; ++i) put<uint64_t>(s, kWordsAt + 8 * i, e.words()[i]);
    put<double>(s, kNormalYAt, stream_.next_double_normal.value_or(0.0));
    put<int32_t>(s, kNormalValidAt, stream_.next_double_normal ? 1 : 0);
    put<float>(s, kFloatNormalAt, stream_.next_float_normal.value_or(0.0f));
    s[kFloatNormalValidAt] = stream_.next_float_normal ? 1 : 0;
    return s;
  }
  for (int i = 0; i < 8; ++i) {
    s[i] = static_cast<uint8_t>(seed_ >> (8 * i));
    s[8 + i] = static_cast<uint8_t>(offset_ >> (8 * i));
  }
  return s;
}

void Generator::set_state(const uint8_t* data, size_t size) {
  if (device_.is_cpu()) {
    TANDEM_CHECK(
        size == kCpuStateSize, Runtime, "Expected a CPUGeneratorImplState of size ", kCpuStateSize,
        " but found the input RNG state size to be ", size,
        "\nhint: pass the tensor get_rng_state() (or a CPU generator's get_state()) returned, unchanged");
    std::array<uint32_t, Mt19937::kWords> words;
    for (int i = 0; i < Mt19937::kWords; ++i)
      words[i] = static_cast<uint32_t>(get<uint64_t>(data, kWordsAt + 8 * i));
    CpuStream stream;
    TANDEM_CHECK(stream.engine.restore(get<uint64_t>(data, kSeedAt), get<int32_t>(data, kLeftAt),
                                       get<int32_t>(data, kSeededAt) != 0,
                                       static_cast<uint32_t>(get<uint64_t>(data, kNextAt)), words),
                 Runtime, "Invalid mt19937 state\nhint: pass the tensor get_rng_state() returned, unchanged");
    if (get<int32_t>(data, kNormalValidAt)) stream.next_double_normal = get<double>(data, kNormalYAt);
    if (data[kFloatNormalValidAt]) stream.next_float_normal = get<float>(data, kFloatNormalAt);
    std::lock_guard<std::mutex> lock(mutex_);
    stream_ = stream;
    seed_ = stream_.engine.seed();
    return;
  }
  TANDEM_CHECK(size == kPhiloxStateSize, Runtime, "Expected a Philox generator state of size ",
               kPhiloxStateSize, " but found the input RNG state size to be ", size,
               "\nhint: pass the tensor get_state() returned, unchanged");
  uint64_t seed = 0, offset = 0;
  for (int i = 0; i < 8; ++i) {
    seed |= static_cast<uint64_t>(data[i]) << (8 * i);
    offset |= static_cast<uint64_t>(data[8 + i]) << (8 * i);
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
