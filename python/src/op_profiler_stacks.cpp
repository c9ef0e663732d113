// with_stack's Python call stacks (core/profiler_stack.h): the hook that walks the calling thread's Python
// frames for each profiled event, and the session that interns those stacks until tandem/_profiler_stacks.py
// formats them at stop. Only frames outside the tandem package are kept; the frame of nn.Module.__call__
// stands for the module it calls (PyTorch's "nn.Module: Linear_0" entries).
#include <nanobind/stl/string.h>

#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "bindings.h"
#include "core/profiler_stack.h"

namespace tandem::py {

namespace {

// A code object and the line shown for it, or (line kModule) a module whose __call__ the frame runs.
struct Frame {
  PyObject* object;
  int line;
  auto operator<=>(const Frame&) const = default;
};
constexpr int kModule = -1;

// One with_stack recording. Guarded by the GIL: the hook records only while it holds it, and start/stop are
// called from Python.
struct StackSession {
  std::string package_prefix;       // ".../tandem/": tandem's own frames are left out
  PyObject* module_call = nullptr;  // the code of tandem.nn.Module.__call__
  std::unordered_map<PyObject*, int>
      start_lines;                               // frames open at start: PyTorch shows the line they were at
  std::unordered_map<PyObject*, bool> own_code;  // code object -> in tandem's package
  std::map<std::vector<Frame>, int64_t> index;   // each distinct stack once, innermost frame first
  nb::list stacks;                               // index -> [(code or module, line), ...]
  nb::list event_stacks;                         // (event id, stack index) per captured event
  std::vector<nb::object> keep;  // every pointer used as a key stays alive, so no address is reused
};

StackSession* g_session = nullptr;

bool is_own_code(StackSession& s, PyCodeObject* code) {
  auto it = s.own_code.find(reinterpret_cast<PyObject*>(code));
  if (it != s.own_code.end()) return it->second;
  const char* file = PyUnicode_Check(code->co_filename) ? PyUnicode_AsUTF8(code->co_filename) : nullptr;
  if (!file) PyErr_Clear();
  bool own = file && std::string_view(file).starts_with(s.package_prefix);
  s.keep.push_back(nb::borrow(reinterpret_cast<PyObject*>(code)));
  s.own_code.emplace(reinterpret_cast<PyObject*>(code), own);
  return own;
}

// The module a frame of nn.Module.__call__ calls (borrowed: the frame holds it), or nullptr.
PyObject* called_module(PyFrameObject* frame) {
  PyObject* locals = PyFrame_GetLocals(frame);
  PyObject* self = locals && PyDict_Check(locals) ? PyDict_GetItemString(locals, "self") : nullptr;
  Py_XDECREF(locals);
  return self;
}

void capture_stack(int64_t event_id) {
  if (!g_session || !PyGILState_Check()) return;  // a thread without Python (a device worker) has no stack
  StackSession& s = *g_session;
  PyObject *type, *value, *traceback;  // an op may run while an exception is being handled
  PyErr_Fetch(&type, &value, &traceback);
  std::vector<Frame> stack;
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  while (frame) {
    PyCodeObject* code = PyFrame_GetCode(frame);
    if (reinterpret_cast<PyObject*>(code) == s.module_call) {
      if (PyObject* module = called_module(frame)) stack.push_back({module, kModule});
    } else if (!is_own_code(s, code)) {
      auto open = s.start_lines.find(reinterpret_cast<PyObject*>(frame));
      stack.push_back({reinterpret_cast<PyObject*>(code),
                       open != s.start_lines.end() ? open->second : code->co_firstlineno});
    }
    Py_DECREF(code);
    PyFrameObject* back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  PyErr_Clear();
  PyErr_Restore(type, value, traceback);
  if (stack.empty()) return;
  auto it = s.index.find(stack);
  if (it == s.index.end()) {
    // Made before the stack is indexed: making tuples may run the collector, whose finalizers may run ops
    // that come back here and add stacks of their own.
    nb::list entries;
    for (const Frame& f : stack) entries.append(nb::make_tuple(nb::borrow(f.object), f.line));
    bool added;
    std::tie(it, added) = s.index.try_emplace(stack, static_cast<int64_t>(nb::len(s.stacks)));
    if (added) {
      for (const Frame& f : stack) s.keep.push_back(nb::borrow(f.object));
      s.stacks.append(entries);
    }
  }
  s.event_stacks.append(nb::make_tuple(event_id, it->second));
}

}  // namespace

void init_op_profiler_stacks(nb::module_& m) {
  // Starts capturing (before the op profiler starts): frames whose file is under `package_prefix` are left
  // out, and a frame running `module_call` (nn.Module.__call__'s code) is shown as its module.
  m.def("_op_profiler_stacks_start", [](const std::string& package_prefix, nb::handle module_call) {
    delete g_session;
    g_session = new StackSession();
    g_session->package_prefix = package_prefix;
    g_session->module_call = module_call.ptr();
    g_session->keep.push_back(nb::borrow(module_call));
    PyFrameObject* frame = PyEval_GetFrame();
    Py_XINCREF(frame);
    while (frame) {
      g_session->keep.push_back(nb::borrow(reinterpret_cast<PyObject*>(frame)));
      g_session->start_lines.emplace(reinterpret_cast<PyObject*>(frame), PyFrame_GetLineNumber(frame));
      PyFrameObject* back = PyFrame_GetBack(frame);
      Py_DECREF(frame);
      frame = back;
    }
    profiler::set_stack_hook(&capture_stack);
  });
  // Stops capturing: ([(event id, stack index)], [[(code or module, line), ...] per stack]).
  m.def("_op_profiler_stacks_stop", []() -> nb::object {
    profiler::set_stack_hook(nullptr);
    if (!g_session) return nb::make_tuple(nb::list(), nb::list());
    nb::object out = nb::make_tuple(g_session->event_stacks, g_session->stacks);
    delete g_session;
    g_session = nullptr;
    return out;
  });
}

}  // namespace tandem::py
