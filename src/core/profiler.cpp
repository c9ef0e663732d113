// The op-level profiler's recording (core/profiler.h): one log per thread, collected at stop.
#include "core/profiler.h"

#include <chrono>
#include <memory>
#include <mutex>

#include "core/error.h"
#include "core/profiler_stack.h"

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace tandem::profiler {

std::atomic<uint32_t> g_flags{0};

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint64_t os_thread_id() {
#if defined(__linux__)
  return static_cast<uint64_t>(syscall(SYS_gettid));
#else
  return 0;
#endif
}

// One thread's events. Its owner appends under `mu`; stop() takes them under the same mutex. The log outlives
// its thread (the registry shares it), so the events of a thread that ended are still collected.
struct ThreadLog {
  std::mutex mu;
  uint64_t session = 0;  // the session `events` belong to; an older one is dropped on the next record
  std::vector<Event> events;
  std::vector<uint32_t> open;  // indices of the events still open, innermost last
  uint64_t thread = 0, os_thread = 0;
};

std::mutex g_registry_mu;
std::vector<std::shared_ptr<ThreadLog>> g_logs;  // guarded by g_registry_mu
uint64_t g_thread_count = 0;                     // guarded by g_registry_mu
std::atomic<uint64_t> g_session{0};              // the recording session, 0 when none
uint64_t g_last_session = 0;                     // guarded by g_registry_mu
std::atomic<int64_t> g_next_id{0};
std::atomic<StackHook> g_stack_hook{nullptr};

ThreadLog& this_thread_log() {
  thread_local std::shared_ptr<ThreadLog> log;
  if (!log) {
    log = std::make_shared<ThreadLog>();
    log->os_thread = os_thread_id();
    std::lock_guard<std::mutex> lock(g_registry_mu);
    log->thread = ++g_thread_count;
    g_logs.push_back(log);
  }
  return *log;
}

// The log of this thread, emptied when it still holds an older session's events. Called with log.mu held.
void enter_session(ThreadLog& log, uint64_t session) {
  if (log.session == session) return;
  log.session = session;
  log.events.clear();
  log.open.clear();
}

}  // namespace

void start(uint32_t options) {
  std::lock_guard<std::mutex> lock(g_registry_mu);
  TANDEM_CHECK(
      g_session.load() == 0, Runtime,
      "Profiler is already enabled\nhint: stop the profiler that is running (leave its `with` block or "
      "call its stop()) before starting another one");
  // Logs of threads that ended (only the registry still holds them) are dropped with their old events.
  std::erase_if(g_logs, [](const std::shared_ptr<ThreadLog>& l) { return l.use_count() == 1; });
  g_next_id.store(0);
  g_session.store(++g_last_session);
  g_flags.store(kRecording | (options & (kRecordShapes | kProfileMemory)), std::memory_order_release);
}

bool is_recording() { return g_session.load() != 0; }

std::vector<Event> stop() {
  std::lock_guard<std::mutex> lock(g_registry_mu);
  uint64_t session = g_session.exchange(0);
  g_flags.store(0, std::memory_order_release);
  std::vector<Event> out;
  if (session == 0) return out;
  int64_t end = now_ns();
  for (const auto& log : g_logs) {
    std::lock_guard<std::mutex> log_lock(log->mu);
    if (log->session != session) continue;
    for (uint32_t i : log->open) log->events[i].end_ns = end;  // still open (a range left across stop)
    for (Event& e : log->events) out.push_back(std::move(e));
    log->events.clear();
    log->open.clear();
  }
  return out;
}

Token begin_event(std::string name, EventKind kind, Device device, std::vector<InputMeta> inputs) {
  uint64_t session = g_session.load(std::memory_order_acquire);
  if (session == 0) return {};
  ThreadLog& log = this_thread_log();
  std::unique_lock<std::mutex> lock(log.mu);
  enter_session(log, session);
  if (kind == EventKind::Op && !log.open.empty()) {
    const Event& parent = log.events[log.open.back()];
    if (parent.kind == EventKind::Op && parent.name == name) return {};
  }
  Event e;
  e.name = std::move(name);
  e.kind = kind;
  e.id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  e.parent = log.open.empty() ? -1 : log.events[log.open.back()].id;
  e.thread = log.thread;
  e.os_thread = log.os_thread;
  e.device = device;
  e.inputs = std::move(inputs);
  auto index = static_cast<uint32_t>(log.events.size());
  int64_t id = e.id;
  log.events.push_back(std::move(e));
  log.open.push_back(index);
  StackHook hook = kind == EventKind::DeviceKernel ? nullptr : g_stack_hook.load(std::memory_order_relaxed);
  if (!hook) {
    log.events.back().start_ns = now_ns();  // last, so the bookkeeping above is not the op's time
    return {session, index, static_cast<uint32_t>(log.thread)};
  }
  lock.unlock();
  // Outside the lock: the hook reads the Python stack under the GIL, and stop() takes each log's lock while
  // holding the GIL. The walk is bookkeeping too, so the event starts after it (unless a stop came between).
  hook(id);
  lock.lock();
  if (log.session == session && index < log.events.size()) log.events[index].start_ns = now_ns();
  return {session, index, static_cast<uint32_t>(log.thread)};
}

void set_stack_hook(StackHook hook) { g_stack_hook.store(hook, std::memory_order_relaxed); }

void end_event(const Token& token) {
  int64_t end = now_ns();
  ThreadLog& log = this_thread_log();
  std::lock_guard<std::mutex> lock(log.mu);
  // A token of a stopped session, or of an event another thread started (a Python range closed elsewhere).
  if (log.session != token.session || log.thread != token.thread || token.log_index >= log.events.size())
    return;
  log.events[token.log_index].end_ns = end;
  // Innermost first; a Python range closed out of order leaves the ones opened after it open.
  for (size_t k = log.open.size(); k-- > 0;) {
    if (log.open[k] == token.log_index) {
      log.open.erase(log.open.begin() + static_cast<std::ptrdiff_t>(k));
      break;
    }
  }
}

KernelLaunch kernel_launch() {
  uint64_t session = g_session.load(std::memory_order_acquire);
  if (session == 0) return {};
  ThreadLog& log = this_thread_log();
  std::lock_guard<std::mutex> lock(log.mu);
  enter_session(log, session);
  for (size_t k = log.open.size(); k-- > 0;) {
    const Event& e = log.events[log.open[k]];
    if (e.kind == EventKind::Op) return {session, e.id};
  }
  return {session, -1};
}

Token begin_kernel(const char* name, Device device, const KernelLaunch& launch) {
  if (launch.session == 0 || launch.session != g_session.load(std::memory_order_acquire)) return {};
  Token t = begin_event(name, EventKind::DeviceKernel, device);
  if (t.session == 0) return t;
  ThreadLog& log = this_thread_log();
  std::lock_guard<std::mutex> lock(log.mu);
  if (log.session == t.session) log.events[t.log_index].correlation = launch.op_id;
  return t;
}

void note_memory(Device device, int64_t delta) {
  uint64_t session = g_session.load(std::memory_order_acquire);
  if (session == 0 || delta == 0) return;
  ThreadLog& log = this_thread_log();
  std::lock_guard<std::mutex> lock(log.mu);
  enter_session(log, session);
  if (log.open.empty()) {
    // Outside every op (a tensor freed by Python): PyTorch's "[memory]" event, an instant.
    Event e;
    e.name = "[memory]";
    e.kind = EventKind::Memory;
    e.id = g_next_id.fetch_add(1, std::memory_order_relaxed);
    e.thread = log.thread;
    e.os_thread = log.os_thread;
    e.device = device;
    e.start_ns = e.end_ns = now_ns();
    log.events.push_back(std::move(e));
  }
  Event& target = log.open.empty() ? log.events.back() : log.events[log.open.back()];
  (device.is_cpu() ? target.self_cpu_memory : target.self_device_memory) += delta;
}

}  // namespace tandem::profiler
