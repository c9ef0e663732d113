// What crosses the host/device boundary and on whose request: the state behind the transfer guard and the
// transfer profiler. Every entry point of backend/transfer.h constructs one CrossingRecord first; the Python
// bindings install the hooks that log, raise and record (only they know the user's source line).
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/device.h"

namespace tandem {

class Tensor;

enum class CrossingKind : uint8_t { HostToDevice, DeviceToHost, DeviceToDevice, Sync };
inline constexpr int kCrossingKinds = 4;

// Log and Disallow act on implicit crossings only; the *Explicit levels on every crossing. Warn is
// LogExplicit reported as a Python warning (tandem.cuda.set_sync_debug_mode("warn")).
enum class GuardLevel : uint8_t { Allow, Log, Disallow, LogExplicit, DisallowExplicit, Warn };

// The calling thread's guard level for one kind of crossing (threads start at Allow).
GuardLevel guard_level(CrossingKind kind);
void set_guard_level(CrossingKind kind, GuardLevel level);

// Marks the crossings made while it lives as asked for by name (is_explicit, op = ".item()") or done on the
// user's behalf (op = "print"). Crossings outside any scope are implicit. The outermost scope wins, so a
// .tolist() that printing does stays implicit. `op` must outlive the scope (a literal or an interned string).
// With `active` false (nothing can cross, e.g. item() of a CPU tensor) it does nothing, not even touch the
// thread-local state, so the CPU fast paths stay as fast as without it.
class CrossingScope {
 public:
  CrossingScope(const char* op, bool is_explicit, bool active = true);
  ~CrossingScope();
  CrossingScope(const CrossingScope&) = delete;
  CrossingScope& operator=(const CrossingScope&) = delete;

 private:
  bool owner_;
};

// Names the tensor whose bytes cross, for guard messages and the profiler (the innermost one wins).
class CrossingSubject {
 public:
  explicit CrossingSubject(const Tensor& t);
  ~CrossingSubject();
  CrossingSubject(const CrossingSubject&) = delete;
  CrossingSubject& operator=(const CrossingSubject&) = delete;

 private:
  const Tensor* saved_;
};

struct Crossing {
  CrossingKind kind;
  Device from, to;  // the same device for a sync
  size_t nbytes;
  const char* op;  // "" when no scope named it
  bool is_explicit;
  const Tensor* subject;  // null when unknown
};

// Installed once by the Python bindings. `report` runs when the thread's guard level asks to log, warn or
// refuse a crossing (it refuses by throwing); `record` runs after each crossing while profiling is on.
struct CrossingHooks {
  void (*report)(const Crossing&, GuardLevel) = nullptr;
  void (*record)(const Crossing&, int64_t start_ns, int64_t duration_ns) = nullptr;
};
void set_crossing_hooks(CrossingHooks hooks);
// Profiling is process-wide: while on, every thread's crossings reach hooks.record.
void set_crossing_profiling(bool on);

// Constructed first by every transfer entry point: applies the thread's guard (may throw before anything
// moves) and times the crossing for the profiler. With the guard at Allow and the profiler off it costs one
// thread-local and one relaxed atomic load.
class CrossingRecord {
 public:
  CrossingRecord(CrossingKind kind, Device from, Device to, size_t nbytes);
  ~CrossingRecord();
  CrossingRecord(const CrossingRecord&) = delete;
  CrossingRecord& operator=(const CrossingRecord&) = delete;

 private:
  Crossing crossing_;
  int64_t start_ns_ = -1;  // >= 0 while the profiler times this crossing
  int exceptions_ = 0;     // std::uncaught_exceptions() when timing began
};

}  // namespace tandem
