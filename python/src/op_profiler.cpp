// The op-level profiler (core/profiler.h) for tandem.profiler.profile: start/stop, the events as tuples for
// tandem/profiler.py, and the ranges of record_function.
#include "core/profiler.h"

#include <nanobind/stl/string.h>

#include <chrono>
#include <string>
#include <unordered_map>

#include "bindings.h"
#include "core/error.h"

namespace tandem::py {

namespace {

// PyTorch's input dtype names: the C++ type ("float", "long int"), "Scalar" for a Python number.
nb::object input_dtype_name(int8_t dtype) {
  if (dtype == profiler::InputMeta::kNumber) return nb::str("Scalar");
  if (dtype == profiler::InputMeta::kOther) return nb::str("");
  std::string_view name = dtype_cpp_name(static_cast<DType>(dtype));
  return nb::str(name.data(), name.size());
}

// Events as tuples in the field order tandem/profiler.py's _event_from_tuple reads: name, kind, start_ns,
// end_ns, id, parent, thread, os_thread, device type ("cpu"/"cuda"), device index, self cpu bytes, self
// device bytes, input shapes, input dtypes, correlation (a kernel's op id). Names repeat a lot and are made
// once per call.
nb::list events_to_python(std::vector<profiler::Event>& events) {
  std::unordered_map<std::string, nb::object> names;
  nb::str cpu("cpu"), cuda("cuda");
  nb::list out;
  for (profiler::Event& e : events) {
    auto it = names.find(e.name);
    if (it == names.end()) it = names.emplace(e.name, nb::str(e.name.data(), e.name.size())).first;
    nb::list shapes, dtypes;
    for (const profiler::InputMeta& in : e.inputs) {
      nb::list sizes;
      for (int64_t s : in.sizes) sizes.append(s);
      shapes.append(sizes);
      dtypes.append(input_dtype_name(in.dtype));
    }
    out.append(nb::make_tuple(it->second, static_cast<int>(e.kind), e.start_ns, e.end_ns, e.id, e.parent,
                              e.thread, e.os_thread, e.device.is_cpu() ? cpu : cuda,
                              static_cast<int>(e.device.index), e.self_cpu_memory, e.self_device_memory,
                              shapes, dtypes, e.correlation));
  }
  return out;
}

}  // namespace

void init_op_profiler_stacks(nb::module_& m);  // op_profiler_stacks.cpp

void init_op_profiler(nb::module_& m) {
  init_op_profiler_stacks(m);
  m.def("_op_profiler_start", [](bool record_shapes, bool profile_memory) {
    profiler::start((record_shapes ? profiler::kRecordShapes : 0u) |
                    (profile_memory ? profiler::kProfileMemory : 0u));
  });
  m.def("_op_profiler_stop", [] {
    std::vector<profiler::Event> events = profiler::stop();
    return events_to_python(events);
  });
  m.def("_op_profiler_enabled", &profiler::is_recording);
  // record_function's range: a token (session, index, thread) for _record_function_exit, or None when no
  // profiler records.
  m.def("_record_function_enter", [](const std::string& name) -> nb::object {
    if (!profiler::recording()) return nb::none();
    profiler::Token t = profiler::begin_event(name, profiler::EventKind::UserAnnotation, Device());
    if (t.session == 0) return nb::none();
    return nb::make_tuple(t.session, t.log_index, t.thread);
  });
  m.def("_record_function_exit", [](nb::handle token) {
    if (token.is_none()) return;
    auto t = nb::cast<nb::tuple>(token);
    TANDEM_CHECK(t.size() == 3, Value, "_record_function_exit: not a token of _record_function_enter");
    profiler::end_event({nb::cast<uint64_t>(t[0]), nb::cast<uint32_t>(t[1]), nb::cast<uint32_t>(t[2])});
  });
  m.def("_steady_clock_ns", [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  });
}

}  // namespace tandem::py
