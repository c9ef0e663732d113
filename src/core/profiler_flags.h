// The switch of the op-level profiler (core/profiler.h), split out so that the hot headers (storage) pay one
// include of <atomic> and not the profiler's event types. With no profiler open, every op and every freed
// storage pays one relaxed load of `g_flags` and a branch that is never taken.
#pragma once
#include <atomic>
#include <cstdint>

#include "core/device.h"

namespace tandem::profiler {

// Bits of g_flags: zero when no profiler records.
enum : uint32_t { kRecording = 1, kRecordShapes = 2, kProfileMemory = 4 };
extern std::atomic<uint32_t> g_flags;

[[gnu::always_inline]] inline uint32_t flags() { return g_flags.load(std::memory_order_relaxed); }
[[gnu::always_inline]] inline bool recording() { return __builtin_expect(flags() != 0, 0); }
[[gnu::always_inline]] inline bool profiling_memory() {
  return __builtin_expect((flags() & kProfileMemory) != 0, 0);
}

// `delta` bytes allocated (> 0) or freed (< 0) on `device` by this thread: added to the innermost open event
// of the thread, or recorded as a "[memory]" event when none is open. Only while memory is profiled.
void note_memory(Device device, int64_t delta);

}  // namespace tandem::profiler
