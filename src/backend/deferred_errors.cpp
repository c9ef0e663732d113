#include "backend/deferred_errors.h"

#include <atomic>
#include <map>
#include <mutex>
#include <utility>

#include "backend/backend.h"
#include "core/error.h"

namespace tandem {

namespace {
struct Pending {
  Tensor flag;
  std::string message;
};
struct DeferredErrors {
  std::atomic<int> count{0};  // entries in `by_device`: the fast path reads only this
  std::mutex mutex;
  std::map<std::pair<int, int>, Pending> by_device;  // (device type, index)
};
DeferredErrors& deferred() {
  static DeferredErrors* d = new DeferredErrors;  // leaked: tensors may be freed during interpreter shutdown
  return *d;
}
std::pair<int, int> key(Device d) { return {static_cast<int>(d.type), d.index}; }
}  // namespace

void defer_device_error(Device device, Tensor flag, std::string message) {
  DeferredErrors& d = deferred();
  std::lock_guard<std::mutex> lock(d.mutex);
  auto [it, inserted] =
      d.by_device.insert_or_assign(key(device), Pending{std::move(flag), std::move(message)});
  (void)it;
  if (inserted) d.count.fetch_add(1, std::memory_order_release);
}

Tensor pending_device_error_flag(Device device) {
  DeferredErrors& d = deferred();
  if (d.count.load(std::memory_order_acquire) == 0) return Tensor();
  std::lock_guard<std::mutex> lock(d.mutex);
  auto it = d.by_device.find(key(device));
  return it == d.by_device.end() ? Tensor() : it->second.flag;
}

void raise_deferred_device_errors(Device device) {
  DeferredErrors& d = deferred();
  if (__builtin_expect(d.count.load(std::memory_order_acquire) == 0, 1)) return;
  Pending pending;
  {
    std::lock_guard<std::mutex> lock(d.mutex);
    auto it = d.by_device.find(key(device));
    if (it == d.by_device.end()) return;
    pending = std::move(it->second);
    d.by_device.erase(it);
    d.count.fetch_sub(1, std::memory_order_release);
  }
  // The flag may have been computed on another stream: wait for the whole device, then read its one byte.
  // Both go to the backend directly: this read is part of the crossing that called us, not one of its own.
  Backend& backend = backend_for(device.type);
  backend.synchronize(device);
  bool set = false;
  backend.copy_device_to_host(&set, pending.flag.data_ptr(), 1, device);
  TANDEM_CHECK(!set, Runtime, pending.message);
}

}  // namespace tandem
