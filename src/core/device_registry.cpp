#include "core/device_registry.h"

#include <array>
#include <atomic>
#include <mutex>

#include <pthread.h>

#include "core/error.h"

namespace tandem {

namespace {
struct Slot {
  DeviceAllocator* allocator = nullptr;
  void (*starter)() = nullptr;
  std::atomic<bool> started{false};
  bool starting = false;  // guarded by the start mutex
  std::string first_line = "Torch not compiled with CUDA enabled", hint;
};
std::array<Slot, kNumDeviceTypes>& slots() {
  static std::array<Slot, kNumDeviceTypes> s;
  return s;
}
Slot& slot(DeviceType type) { return slots()[static_cast<int>(type)]; }
}  // namespace

void register_allocator(DeviceType type, DeviceAllocator* allocator) { slot(type).allocator = allocator; }

void set_device_type_starter(DeviceType type, void (*starter)()) { slot(type).starter = starter; }

namespace {
// A forked child has none of its parent's device threads (stream workers, driver threads), so a device that
// was started in the parent would wait forever there. PyTorch refuses CUDA in such a child; so does tandem:
// the child's started device types are reset to a starter that raises.
void refuse_device_after_fork() {
  TANDEM_THROW(Runtime,
               "Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the "
               "'spawn' start method\nhint: this process was forked after its parent used a cuda device; start "
               "workers with multiprocessing's 'spawn' context (DataLoader(multiprocessing_context=\"spawn\")) "
               "or keep the child's work on the cpu");
}
void reset_devices_in_child() {
  for (int t = 0; t < kNumDeviceTypes; ++t) {
    Slot& s = slots()[static_cast<size_t>(t)];
    // The CPU and the meta device have no threads of their own and keep working in the child.
    const auto type = static_cast<DeviceType>(t);
    if (type == DeviceType::CPU || type == DeviceType::Meta || !s.started.load(std::memory_order_relaxed))
      continue;
    s.started.store(false, std::memory_order_relaxed);
    s.starting = false;
    s.starter = &refuse_device_after_fork;
  }
}

// The slow path of start_device_type, out of line so that the check every allocation makes stays two loads.
[[gnu::noinline]] void run_starter(Slot& s) {
  // Other threads wait until the starter has finished; the starter itself may look its own type up again
  // (the recursive mutex lets it through, and `starting` stops the recursion). A starter that throws (a bad
  // TANDEM_EMULATE_CUDA_MEMORY, say) leaves the type unstarted, so the next lookup raises the error again.
  static std::recursive_mutex mutex;
  std::lock_guard<std::recursive_mutex> lock(mutex);
  // No starter yet: nothing to run (start_runtime() has not been called), and a later lookup tries again.
  if (s.started.load(std::memory_order_relaxed) || s.starting || !s.starter) return;
  s.starting = true;
  try {
    s.starter();
  } catch (...) {
    s.starting = false;
    throw;
  }
  s.starting = false;
  s.started.store(true, std::memory_order_release);
  static std::once_flag fork_handler;
  std::call_once(fork_handler, [] { pthread_atfork(nullptr, nullptr, &reset_devices_in_child); });
}
}  // namespace

void start_device_type(DeviceType type) {
  Slot& s = slot(type);
  if (__builtin_expect(!s.started.load(std::memory_order_acquire), 0)) run_starter(s);
}

DeviceAllocator& allocator_for(DeviceType type) {
  Slot& s = slot(type);
  if (__builtin_expect(!s.started.load(std::memory_order_acquire), 0)) run_starter(s);
  DeviceAllocator* a = s.allocator;
  if (__builtin_expect(a != nullptr, 1)) return *a;
  throw_missing_device(type);
}

void set_missing_device_reason(DeviceType type, std::string hint, std::string first_line) {
  slot(type).first_line = std::move(first_line);
  slot(type).hint = std::move(hint);
}

void throw_missing_device(DeviceType type) {
  const Slot& s = slot(type);
  TANDEM_CHECK(s.starter, Runtime,
               "tandem's devices are not started\nhint: call tandem::start_runtime() (or "
               "include <tandem/tandem.h>) before creating tensors");
  TANDEM_THROW(Runtime, s.first_line, "\nhint: ",
               s.hint.empty() ? std::string("tandem has no ") + std::string(device_type_name(type)) +
                                    " backend in this build; use device='cpu'"
                              : s.hint);
}

}  // namespace tandem
