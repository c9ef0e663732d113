#include "backend/crossing.h"

#include <atomic>
#include <chrono>
#include <exception>

namespace tandem {

namespace {
struct ThreadState {
  GuardLevel levels[kCrossingKinds] = {};
  bool guarded = false;  // some level is not Allow: the fast path checks this one flag
  bool in_hook = false;  // a hook's own crossings (if any) are neither guarded nor recorded
  const char* op = nullptr;
  bool is_explicit = false;
  const Tensor* subject = nullptr;
};
thread_local ThreadState t_state;
std::atomic<bool> g_profiling{false};
CrossingHooks g_hooks;

bool level_applies(GuardLevel level, bool is_explicit) {
  switch (level) {
    case GuardLevel::Allow:
      return false;
    case GuardLevel::Log:
    case GuardLevel::Disallow:
      return !is_explicit;
    case GuardLevel::Warn:  // PyTorch's sync debug mode flags every sync, .item() included
    case GuardLevel::LogExplicit:
    case GuardLevel::DisallowExplicit:
      return true;
  }
  return false;
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct HookGuard {
  HookGuard() { t_state.in_hook = true; }
  ~HookGuard() { t_state.in_hook = false; }
};
}  // namespace

GuardLevel guard_level(CrossingKind kind) { return t_state.levels[static_cast<int>(kind)]; }

void set_guard_level(CrossingKind kind, GuardLevel level) {
  ThreadState& s = t_state;
  s.levels[static_cast<int>(kind)] = level;
  s.guarded = false;
  for (GuardLevel l : s.levels) s.guarded |= l != GuardLevel::Allow;
}

CrossingScope::CrossingScope(const char* op, bool is_explicit, bool active)
    : owner_(active && t_state.op == nullptr) {
  if (!owner_) return;
  t_state.op = op;
  t_state.is_explicit = is_explicit;
}

CrossingScope::~CrossingScope() {
  if (!owner_) return;
  t_state.op = nullptr;
  t_state.is_explicit = false;
}

CrossingSubject::CrossingSubject(const Tensor& t) : saved_(t_state.subject) { t_state.subject = &t; }
CrossingSubject::~CrossingSubject() { t_state.subject = saved_; }

void set_crossing_hooks(CrossingHooks hooks) { g_hooks = hooks; }
void set_crossing_profiling(bool on) { g_profiling.store(on, std::memory_order_relaxed); }

CrossingRecord::CrossingRecord(CrossingKind kind, Device from, Device to, size_t nbytes)
    : crossing_{kind, from, to, nbytes, "", false, nullptr} {
  ThreadState& s = t_state;
  const bool profiling = g_profiling.load(std::memory_order_relaxed);
  if ((!s.guarded && !profiling) || s.in_hook) return;
  if (kind != CrossingKind::Sync && from == to) return;  // a copy within one device crosses nothing
  if (s.op) crossing_.op = s.op;
  crossing_.is_explicit = s.op && s.is_explicit;
  crossing_.subject = s.subject;
  GuardLevel level = s.levels[static_cast<int>(kind)];
  if (g_hooks.report && level_applies(level, crossing_.is_explicit)) {
    HookGuard in_hook;
    g_hooks.report(crossing_, level);  // throws to refuse
  }
  if (!profiling || !g_hooks.record) return;
  exceptions_ = std::uncaught_exceptions();
  start_ns_ = now_ns();
}

CrossingRecord::~CrossingRecord() {
  // A crossing that failed midway is not recorded: its error reaches the user instead.
  if (start_ns_ < 0 || std::uncaught_exceptions() > exceptions_) return;
  const int64_t end = now_ns();
  HookGuard in_hook;
  g_hooks.record(crossing_, start_ns_, end - start_ns_);
}

}  // namespace tandem
