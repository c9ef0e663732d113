#include "core/long_work.h"

#include <atomic>

namespace tandem {

namespace {
LongWorkHooks g_hooks;
std::atomic<uint64_t> g_released{0};
std::atomic<int> g_open{0};
std::atomic<int> g_peak{0};
}  // namespace

void set_long_work_hooks(LongWorkHooks hooks) { g_hooks = hooks; }

LongWorkStats long_work_stats() {
  return {g_released.load(std::memory_order_relaxed), g_peak.load(std::memory_order_relaxed)};
}

void reset_long_work_stats() {
  g_released.store(0, std::memory_order_relaxed);
  g_peak.store(g_open.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

LongWorkRegion::LongWorkRegion() : token_(g_hooks.release ? g_hooks.release() : nullptr) {
  if (!token_) return;
  g_released.fetch_add(1, std::memory_order_relaxed);
  int open = g_open.fetch_add(1, std::memory_order_relaxed) + 1;
  int peak = g_peak.load(std::memory_order_relaxed);
  while (open > peak && !g_peak.compare_exchange_weak(peak, open, std::memory_order_relaxed)) {
  }
}

LongWorkRegion::~LongWorkRegion() {
  if (!token_) return;
  g_open.fetch_sub(1, std::memory_order_relaxed);
  g_hooks.reacquire(token_);
}

}  // namespace tandem
