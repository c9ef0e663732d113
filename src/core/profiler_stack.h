// The Python call stacks of with_stack (tandem.profiler.profile(with_stack=True)). The core knows nothing of
// Python: the binding installs a hook that begin_event calls, outside the thread log's lock, with the id of
// each op, backward node and user range it starts; the hook keeps the stack by that id. With no hook (the
// default, and whenever with_stack is off) the recorder pays one relaxed load per event, nothing per op when
// no profiler records.
#pragma once
#include <cstdint>

namespace tandem::profiler {

using StackHook = void (*)(int64_t event_id);

// nullptr: capture nothing. Set before start() and cleared after stop() by the profiler's binding.
void set_stack_hook(StackHook hook);

}  // namespace tandem::profiler
