// tandem._C bindings of the boundary diagnostics: the transfer guard's per-thread levels, crossing scopes for
// tandem's own Python code, and the hooks (backend/crossing.h) that find the user's source line, report guard
// violations through a Python callable and record profiled crossings.
#include <nanobind/stl/string.h>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "backend/crossing.h"
#include "bindings.h"
#include "core/error.h"

namespace tandem::py {

namespace {

// Op names given from Python live as long as the process: a Crossing keeps only a pointer.
const char* intern(const std::string& s) {
  static std::unordered_set<std::string> names;
  return names.insert(s).first->c_str();
}

// The first Python frame outside the tandem package. Whether a code object is tandem's is cached; the cache
// holds a reference, so a recorded code pointer stays valid (and unique) for the life of the process.
struct SourceLine {
  PyCodeObject* code = nullptr;
  int lineno = 0;
};
std::string g_package_dir;
std::unordered_map<PyCodeObject*, bool> g_is_internal;

bool is_internal(PyCodeObject* code) {
  auto it = g_is_internal.find(code);
  if (it != g_is_internal.end()) return it->second;
  Py_ssize_t n = 0;
  const char* file = PyUnicode_AsUTF8AndSize(code->co_filename, &n);
  bool internal = file && std::string_view(file, n).starts_with(g_package_dir);
  if (!file) PyErr_Clear();
  Py_INCREF(code);
  g_is_internal.emplace(code, internal);
  return internal;
}

SourceLine user_source_line() {
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  SourceLine found;
  while (frame) {
    PyCodeObject* code = PyFrame_GetCode(frame);
    bool internal = is_internal(code);  // caches (and keeps) the code object
    Py_DECREF(code);
    if (!internal || !found.code) found = {code, PyFrame_GetLineNumber(frame)};  // innermost as a fallback
    if (!internal) {
      Py_DECREF(frame);
      break;
    }
    PyFrameObject* back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  return found;
}

bool finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
}

nb::object device_str(Device d) { return nb::str(d.str().c_str()); }

// Guard reports go to a Python callable (tandem._transfer_guard._report) that logs, warns or raises.
// A leaked reference on purpose: a static nb::object would be released after the interpreter is gone.
PyObject* g_reporter = nullptr;

void report(const Crossing& c, GuardLevel level) {
  if (finalizing()) return;
  nb::gil_scoped_acquire gil;
  if (!g_reporter) return;
  SourceLine where = user_source_line();
  nb::object shape = nb::none(), dtype = nb::none();
  if (c.subject) {
    shape = shape_object(c.subject->sizes());
    dtype = dtype_object(c.subject->dtype());
  }
  nb::object file = where.code ? nb::borrow(where.code->co_filename) : nb::object(nb::none());
  nb::handle reporter(g_reporter);
  reporter(static_cast<int>(level), static_cast<int>(c.kind), c.is_explicit, c.op, shape, dtype,
           device_str(c.from), device_str(c.to), c.nbytes, file, where.lineno);  // raises to refuse
}

// Profiled crossings from every thread, appended under the GIL (which also guards the readers).
struct Event {
  CrossingKind kind;
  bool is_explicit;
  Device from, to;
  size_t nbytes;
  const char* op;
  SourceLine where;
  unsigned long thread;
  int64_t start_ns, duration_ns;
};
std::vector<Event> g_events;
int g_profilers = 0;

void record(const Crossing& c, int64_t start_ns, int64_t duration_ns) {
  if (finalizing()) return;
  PyGILState_STATE gil = PyGILState_Ensure();
  g_events.push_back({c.kind, c.is_explicit, c.from, c.to, c.nbytes, c.op, user_source_line(),
                      PyThread_get_thread_ident(), start_ns, duration_ns});
  PyGILState_Release(gil);
}

// Events as tuples in the field order of tandem.profiler.TransferEvent, times in seconds from t0. Strings
// that repeat (directions, devices, op names) are made once per call.
nb::list events_since(size_t start, int64_t t0_ns) {
  static const char* const kDirections[kCrossingKinds] = {"host_to_device", "device_to_host",
                                                          "device_to_device", "sync"};
  std::unordered_map<uint32_t, nb::object> devices;
  std::unordered_map<const char*, nb::object> ops;
  auto device = [&](Device d) -> PyObject* {
    uint32_t key = (static_cast<uint32_t>(d.type) << 16) | static_cast<uint16_t>(d.index);
    auto it = devices.find(key);
    if (it == devices.end()) it = devices.emplace(key, device_str(d)).first;
    return it->second.inc_ref().ptr();
  };
  auto op = [&](const char* name) -> PyObject* {  // op names and directions, keyed by their static address
    auto it = ops.find(name);
    if (it == ops.end()) it = ops.emplace(name, nb::str(name)).first;
    return it->second.inc_ref().ptr();
  };
  nb::list out;
  for (size_t i = start; i < g_events.size(); ++i) {
    const Event& e = g_events[i];
    PyObject* file = e.where.code ? e.where.code->co_filename : Py_None;
    PyObject* function = e.where.code ? e.where.code->co_name : Py_None;
    Py_INCREF(file);
    Py_INCREF(function);
    PyObject* items[] = {op(kDirections[static_cast<int>(e.kind)]),
                         device(e.from),
                         device(e.to),
                         PyLong_FromSize_t(e.nbytes),
                         op(e.op),
                         PyBool_FromLong(e.is_explicit),
                         file,
                         PyLong_FromLong(e.where.lineno),
                         function,
                         PyLong_FromUnsignedLong(e.thread),
                         PyFloat_FromDouble(static_cast<double>(e.start_ns - t0_ns) * 1e-9),
                         PyFloat_FromDouble(static_cast<double>(e.duration_ns) * 1e-9)};
    constexpr Py_ssize_t n = sizeof(items) / sizeof(items[0]);
    PyObject* t = PyTuple_New(n);
    for (Py_ssize_t k = 0; k < n; ++k) PyTuple_SET_ITEM(t, k, items[k]);  // steals each reference
    out.append(nb::steal(t));
  }
  return out;
}

// `with _C._CrossingScope("print", False):` — tandem's Python code naming the crossings it makes for the
// user.
struct PyCrossingScope {
  const char* op;
  bool is_explicit;
  std::optional<CrossingScope> scope;
};

int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void init_boundary(nb::module_& m) {
  m.def("_transfer_guard_levels", [] {
    nb::list out;
    for (int k = 0; k < kCrossingKinds; ++k)
      out.append(static_cast<int>(guard_level(static_cast<CrossingKind>(k))));
    return out;
  });
  m.def("_set_transfer_guard_level", [](int kind, int level) {
    TANDEM_CHECK(
        kind >= 0 && kind < kCrossingKinds && level >= 0 && level <= static_cast<int>(GuardLevel::Warn),
        Value, "invalid transfer guard setting");
    set_guard_level(static_cast<CrossingKind>(kind), static_cast<GuardLevel>(level));
  });
  m.def("_set_boundary_hooks", [](nb::object reporter, std::string package_dir) {
    g_reporter = reporter.release().ptr();  // set once, at import
    g_package_dir = std::move(package_dir);
    set_crossing_hooks({&report, &record});
  });
  m.def("_profiler_start", [] {
    if (g_profilers++ == 0) set_crossing_profiling(true);
    return nb::make_tuple(g_events.size(), steady_now_ns());
  });
  m.def("_profiler_events", [](size_t start, int64_t t0_ns) { return events_since(start, t0_ns); });
  m.def("_profiler_stop", [](size_t start, int64_t t0_ns) {
    nb::list out = events_since(start, t0_ns);
    if (--g_profilers == 0) {
      set_crossing_profiling(false);
      g_events.clear();
    }
    return out;
  });
  nb::class_<PyCrossingScope>(m, "_CrossingScope")
      .def("__init__",
           [](PyCrossingScope* self, const std::string& op, bool is_explicit) {
             new (self) PyCrossingScope{intern(op), is_explicit, std::nullopt};
           })
      .def("__enter__",
           [](PyCrossingScope& s) {
             s.scope.emplace(s.op, s.is_explicit);
             return nb::none();
           })
      .def("__exit__", [](PyCrossingScope& s, nb::args) {
        s.scope.reset();
        return false;
      });
}

}  // namespace tandem::py
