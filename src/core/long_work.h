// Long host work (a large kernel loop, a BLAS call, a big copy, a wait for a device) runs in a
// LongWorkRegion, so the program that embeds tandem may let its other threads run meanwhile. The core knows
// nothing of Python: the bindings install hooks that drop the interpreter lock on entry (when this thread
// holds it) and take it back on exit. Without hooks (the C++ API) a region does nothing.
//
// The one rule: open the region *before* taking a mutex that the long work runs under. Another thread may
// hold the interpreter lock while it waits for that mutex, and taking the lock back would then deadlock.
// Code inside a region never touches Python objects.
#pragma once
#include <cstdint>

namespace tandem {

struct LongWorkHooks {
  void* (*release)() = nullptr;  // returns a token for reacquire, or null when nothing was released
  void (*reacquire)(void* token) = nullptr;
};
// Installed once, at start-up, before any other thread runs tandem code.
void set_long_work_hooks(LongWorkHooks hooks);

// How often regions let other threads run, for tests and diagnostics.
struct LongWorkStats {
  uint64_t released = 0;    // regions that released the interpreter lock
  int peak_concurrent = 0;  // most such regions open at the same time (threads computing side by side)
};
LongWorkStats long_work_stats();
void reset_long_work_stats();

class LongWorkRegion {
 public:
  LongWorkRegion();
  ~LongWorkRegion();
  LongWorkRegion(const LongWorkRegion&) = delete;
  LongWorkRegion& operator=(const LongWorkRegion&) = delete;

 private:
  void* token_;
};

}  // namespace tandem
