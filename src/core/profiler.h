// The op-level profiler behind tandem.profiler.profile (PyTorch's torch.profiler). Op front ends open a
// RecordScope, the autograd engine a Range per backward node, Python's record_function a range of its own;
// while a profiler records, each becomes an Event with its name, start/end (steady clock, ns), thread, parent
// (the event open around it on the same thread, so self time can be computed), device, and on request the
// input shapes/dtypes and the bytes allocated minus freed while it was the innermost event.
//
// Cost: with no profiler open a scope is one relaxed atomic load and a branch that is not taken
// (profiler_flags.h); the recording code is out of line. While recording, each thread appends to its own log
// under its own mutex (uncontended but for the one collection at stop), so ops on several threads (the
// emulated device's workers, user threads) record side by side.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/device.h"
#include "core/dtype.h"
#include "core/profiler_flags.h"
#include "core/scalar.h"
#include "core/tensor.h"

namespace tandem::profiler {

// DeviceKernel: a kernel of the emulated device, timed on the device's worker thread while it runs.
enum class EventKind : uint8_t { Op = 0, UserAnnotation = 1, BackwardNode = 2, Memory = 3, DeviceKernel = 4 };

// What record_shapes keeps of one input: a tensor's sizes and dtype, or no sizes and a Python number's
// "Scalar" (dtype kNumber), or nothing for other arguments (kOther).
struct InputMeta {
  static constexpr int8_t kNumber = -1, kOther = -2;
  std::vector<int64_t> sizes;
  int8_t dtype = kOther;
};

struct Event {
  std::string name;
  EventKind kind = EventKind::Op;
  int64_t start_ns = 0, end_ns = 0;
  int64_t id = 0;       // unique within the session, in order of start on each thread
  int64_t parent = -1;  // id of the event open around this one on the same thread
  uint64_t thread = 0;  // 1, 2, ... in the order threads first recorded (PyTorch's numbering)
  uint64_t os_thread = 0;
  Device device;
  int64_t self_cpu_memory = 0, self_device_memory = 0;  // bytes allocated minus freed, innermost only
  std::vector<InputMeta> inputs;                        // with record_shapes
  int64_t correlation = -1;                             // a kernel's op (the op that queued it)
};

// A started event, for end_event. session == 0: nothing was started (not recording).
struct Token {
  uint64_t session = 0;
  uint32_t log_index = 0;  // the event's index in its thread's log
  uint32_t thread = 0;  // that thread's number: an end on another thread is ignored (the event ends at stop)
};

// Starts recording (flags: kRecordShapes | kProfileMemory); RuntimeError when a profiler already records, as
// PyTorch's "profiler is already enabled" refusal.
void start(uint32_t options);
// Stops recording and returns every event of the session; events still open end now.
std::vector<Event> stop();
bool is_recording();

Token begin_event(std::string name, EventKind kind, Device device, std::vector<InputMeta> inputs = {});
void end_event(const Token& token);

// A kernel queued by the innermost op open on this thread, to be timed where it runs (kernel_launch() on the
// queuing thread, begin_kernel() on the device's worker).
struct KernelLaunch {
  uint64_t session = 0;
  int64_t op_id = -1;
};
KernelLaunch kernel_launch();
Token begin_kernel(const char* name, Device device, const KernelLaunch& launch);

// Ends its event when it goes out of scope (also when an exception unwinds).
class Range {
 public:
  Range() = default;
  explicit Range(Token token) : token_(token) {}
  void set(Token token) { token_ = token; }  // on a Range made empty: ends `token`'s event instead
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;
  ~Range() {
    if (__builtin_expect(token_.session != 0, 0)) end_event(token_);
  }

 private:
  Token token_;
};

namespace detail {
inline void describe(std::vector<InputMeta>& out, Device& device, bool& found, const Tensor& t) {
  if (!t.defined()) {
    out.push_back({});
    return;
  }
  if (!found) device = t.device(), found = true;
  out.push_back({std::vector<int64_t>(t.sizes().begin(), t.sizes().end()), static_cast<int8_t>(t.dtype())});
}
inline void describe(std::vector<InputMeta>& out, Device&, bool&, const Scalar&) {
  out.push_back({{}, InputMeta::kNumber});
}
template <typename T>
void describe(std::vector<InputMeta>& out, Device&, bool&, const T&) {
  out.push_back({});
}
inline void find_device(Device& device, bool& found, const Tensor& t) {
  if (!found && t.defined()) device = t.device(), found = true;
}
template <typename T>
void find_device(Device&, bool&, const T&) {}
}  // namespace detail

// Starts an op's event: the inputs (tensors, scalars, anything else) give its device (the first defined
// tensor's) and, with record_shapes, its input shapes and dtypes. An op whose innermost open event is an op
// of the same name records nothing: a front end that re-enters itself (under autograd, or an overload calling
// another) is one call, as in PyTorch.
template <typename... Inputs>
[[gnu::noinline, gnu::cold]] Token begin_op(std::string name, const Inputs&... inputs) {
  Device device;
  bool found = false;
  std::vector<InputMeta> metas;
  if (flags() & kRecordShapes) {
    metas.reserve(sizeof...(Inputs));
    (detail::describe(metas, device, found, inputs), ...);
  } else {
    (detail::find_device(device, found, inputs), ...);
  }
  (void)found;  // (no inputs)
  return begin_event(std::move(name), EventKind::Op, device, std::move(metas));
}

// An op front end's event for the time of its scope; `name` is a string literal ("aten::add").
class RecordScope {
 public:
  // Inlined at every optimisation level: the off path is the flag load and branch in the front end itself.
  template <typename... Inputs>
  [[gnu::always_inline]] explicit RecordScope(const char* name, const Inputs&... inputs) {
    if (recording()) token_ = begin_op(name, inputs...);
  }
  RecordScope(const RecordScope&) = delete;
  RecordScope& operator=(const RecordScope&) = delete;
  [[gnu::always_inline]] ~RecordScope() {
    if (__builtin_expect(token_.session != 0, 0)) end_event(token_);
  }

 private:
  Token token_;
};

}  // namespace tandem::profiler
