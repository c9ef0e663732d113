// __torch_function__ dispatch, PyTorch's protocol for objects that stand in for tensors (linear_operator's
// LinearOperator, pyro's ProvenanceTensor, any Tensor subclass) and for TorchFunctionModes. tandem's public
// functions (builtin_function.cpp) and Tensor methods (the tensor_method type here) are wrappers whose call
// looks at the arguments first: a tensor, a Python number, None, a dtype or a device is recognised by its
// type alone (a pointer comparison, the common case); any other object's type is looked up, through CPython's
// type cache, for a __torch_function__ that is not the opt-out `_disabled_torch_function_impl`. When one is
// found or a mode is entered in this thread, the call goes to tandem.overrides.handle_torch_function (Python:
// the slow path, as in PyTorch); otherwise straight to the function.
#include "torch_function.h"

#include <structmember.h>

#include <atomic>
#include <optional>

#include <nanobind/stl/optional.h>

#include "bindings.h"
#include "parser_errors.h"

namespace tandem::py {

namespace {

PyObject* torch_function_name = nullptr;  // interned "__torch_function__"
PyObject* disabled_impl = nullptr;        // tandem._C._disabled_torch_function_impl (overrides.py sets it)
PyObject* dispatch_hook = nullptr;        // tandem.overrides._dispatch
PyTypeObject* tensor_type = nullptr;
PyTypeObject* dtype_type = nullptr;
PyTypeObject* device_type = nullptr;

// Per thread, as PyTorch's: DisableTorchFunctionSubclass turns off the arguments' __torch_function__,
// DisableTorchFunction the modes' as well. overrides.py keeps each thread's stack of TorchFunctionModes and
// reports its depth here. A thread whose state is not the default (arguments dispatched, no mode entered) is
// counted in threads_off_default, so that while there is none the check reads no thread-local storage (a
// __tls_get_addr call in a shared library, tens of nanoseconds on the hot path otherwise).
struct DispatchState {
  bool subclass_enabled = true;
  bool mode_enabled = true;
  Py_ssize_t mode_depth = 0;
  bool is_default() const { return subclass_enabled && mode_depth == 0; }
  bool modes_active() const { return mode_enabled && mode_depth > 0; }
};
thread_local DispatchState dispatch_state;
std::atomic<int> threads_off_default{0};

template <typename Change>
void change_dispatch_state(Change change) {
  DispatchState& state = dispatch_state;
  const bool was_default = state.is_default();
  change(state);
  if (was_default != state.is_default()) threads_off_default.fetch_add(was_default ? 1 : -1);
}

// Arguments that never implement __torch_function__, recognised by their type alone.
inline bool is_plain(PyObject* o) {
  PyTypeObject* t = Py_TYPE(o);
  return t == tensor_type || t == &PyLong_Type || t == &PyFloat_Type || t == &PyBool_Type || o == Py_None ||
         t == dtype_type || t == device_type || t == &PyUnicode_Type || t == &PyComplex_Type ||
         t == &PySlice_Type || o == Py_Ellipsis;
}

inline bool implements_torch_function(PyTypeObject* t) {
  PyObject* found = _PyType_Lookup(t, torch_function_name);  // borrowed, from the type cache
  return found != nullptr && found != disabled_impl;
}

// Appends `o` to *found (created on first use) when its type implements __torch_function__. False, with an
// error set, when the list cannot be made or grown.
bool note(PyObject* o, PyObject** found) {
  if (is_plain(o) || !implements_torch_function(Py_TYPE(o))) return true;
  if (!*found && !(*found = PyList_New(0))) return false;
  return PyList_Append(*found, o) == 0;
}

// An argument, or the elements of a list or tuple argument (cat([a, b])). A sequence whose first element is
// a number or another sequence is data or a shape (tensor([[1, 2]]), zeros((2, 3))) and is not searched, so
// that converting a large nested list costs no scan.
bool scan(PyObject* o, PyObject** found) {
  PyTypeObject* t = Py_TYPE(o);
  if (t != &PyList_Type && t != &PyTuple_Type) return note(o, found);
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject** items = PySequence_Fast_ITEMS(o);
  if (n == 0) return true;
  PyTypeObject* first = Py_TYPE(items[0]);
  if (first == &PyLong_Type || first == &PyFloat_Type || first == &PyBool_Type || first == &PyList_Type ||
      first == &PyTuple_Type)
    return true;
  for (Py_ssize_t i = 0; i < n; ++i)
    if (!note(items[i], found)) return false;
  return true;
}

// Any argument (positional or keyword; with `descend`, also an element of a list or tuple argument) that
// implements __torch_function__, as a new list, or null; `failed` is set when an error is raised.
PyObject* overloaded_arguments(PyObject* const* args, Py_ssize_t n, bool descend, bool& failed) {
  PyObject* found = nullptr;
  failed = false;
  if (threads_off_default.load(std::memory_order_relaxed) != 0 && !dispatch_state.subclass_enabled)
    return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (Py_TYPE(args[i]) == tensor_type) continue;
    if (!(descend ? scan(args[i], &found) : note(args[i], &found))) {
      Py_XDECREF(found);
      failed = true;
      return nullptr;
    }
  }
  return found;
}

PyObject* dispatch(PyObject* public_api, PyObject* function, PyObject* const* args, size_t nargsf,
                   PyObject* kwnames, PyObject* found) {
  if (!dispatch_hook) {
    Py_XDECREF(found);
    PyErr_SetString(PyExc_RuntimeError, "tandem.overrides is not initialised: import tandem first");
    return nullptr;
  }
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  PyObject* relevant = found ? PyList_AsTuple(found) : PyTuple_New(0);
  Py_XDECREF(found);
  PyObject* positional = relevant ? PyTuple_New(nargs) : nullptr;
  PyObject* keywords = positional ? PyDict_New() : nullptr;
  PyObject* result = nullptr;
  if (keywords) {
    for (Py_ssize_t i = 0; i < nargs; ++i) PyTuple_SET_ITEM(positional, i, Py_NewRef(args[i]));
    bool ok = true;
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw && ok; ++i)
      ok = PyDict_SetItem(keywords, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) == 0;
    if (ok)
      result = PyObject_CallFunctionObjArgs(dispatch_hook, public_api, function, relevant, positional,
                                            keywords, nullptr);
  }
  Py_XDECREF(relevant);
  Py_XDECREF(positional);
  Py_XDECREF(keywords);
  return result;
}

}  // namespace

PyObject* call_with_torch_function(PyObject* public_api, PyObject* function, PyObject* const* args,
                                   size_t nargsf, PyObject* kwnames, bool binary_op) {
  const Py_ssize_t n = PyVectorcall_NARGS(nargsf) + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
  bool failed;
  PyObject* found = overloaded_arguments(args, n, true, failed);
  if (failed) return nullptr;
  if (!found && (threads_off_default.load(std::memory_order_relaxed) == 0 || !dispatch_state.modes_active()))
    return PyObject_Vectorcall(function, args, nargsf, kwnames);
  PyObject* result = dispatch(public_api, function, args, nargsf, kwnames, found);
  if (!result && binary_op && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();  // no __torch_function__ took it: Python tries the other operand's reflected operator
    result = Py_NewRef(Py_NotImplemented);
  }
  return result;
}

bool torch_function_idle() { return threads_off_default.load(std::memory_order_relaxed) == 0; }

PyObject* call_with_torch_function_modes(PyObject* public_api, PyObject* function, PyObject* const* args,
                                         size_t nargsf, PyObject* kwnames) {
  if (threads_off_default.load(std::memory_order_relaxed) == 0 || !dispatch_state.modes_active())
    return PyObject_Vectorcall(function, args, nargsf, kwnames);
  return dispatch(public_api, function, args, nargsf, kwnames, nullptr);
}

namespace {

// --- tandem.Tensor's methods ------------------------------------------------------------------------------
// A method descriptor (as PyTorch's `method_descriptor`): `x.add(y)` calls it with x first and no bound
// method made (Py_TPFLAGS_METHOD_DESCRIPTOR), `Tensor.add` is the descriptor itself, which is what
// __torch_function__ receives as `func` for a method. The type is immutable, as CPython's own descriptor
// types are: only then does an interpreter specialise `x.item()`'s lookup (3.12's LOAD_ATTR_METHOD_LAZY_DICT;
// 3.11 specialises none for a type with a __dict__ slot, as Tensor has for user attributes).

struct TensorMethod {
  PyObject_HEAD PyObject* function;  // the method's implementation (a nanobind method or a Python function)
  PyObject* name;                    // str
  PyObject* dict;                    // __doc__ and what a user sets
  PyObject* public_api;              // what __torch_function__ receives as func: null for the method itself,
                                     // Tensor.add for Tensor.__add__ (PyTorch's choice for its operators)
  vectorcallfunc vectorcall;
  bool binary_op;  // an arithmetic or comparison operator: NotImplemented when no __torch_function__ takes it
  MethodFastPath
      fast;  // `x.item()`, `x.view(b, -1)`, ... on a plain tensor without argument dispatch, or null
};

PyObject* method_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* m = reinterpret_cast<TensorMethod*>(self);
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (m->fast && nargs >= 1 && !kwnames && Py_TYPE(args[0]) == tensor_type &&
      threads_off_default.load(std::memory_order_relaxed) == 0) {
    if (PyObject* result = m->fast(args, nargs)) return result;
    if (PyErr_Occurred()) return nullptr;
  }
  PyObject* result = call_with_torch_function(m->public_api ? m->public_api : self, m->function, args, nargsf,
                                              kwnames, m->binary_op);
  return result ? result : explain_refused_call(m->function, args, nargsf, kwnames, m->name);
}

PyObject* method_get(PyObject* self, PyObject* obj, PyObject*) {
  if (obj == nullptr || obj == Py_None) return Py_NewRef(self);
  return PyMethod_New(self, obj);
}

int method_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* m = reinterpret_cast<TensorMethod*>(self);
  Py_VISIT(m->function);
  Py_VISIT(m->dict);
  Py_VISIT(m->public_api);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int method_clear(PyObject* self) {
  auto* m = reinterpret_cast<TensorMethod*>(self);
  Py_CLEAR(m->function);
  Py_CLEAR(m->name);
  Py_CLEAR(m->dict);
  Py_CLEAR(m->public_api);
  return 0;
}

void method_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  method_clear(self);
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

PyObject* method_repr(PyObject* self) {
  return PyUnicode_FromFormat("<method '%U' of 'tandem.Tensor' objects>",
                              reinterpret_cast<TensorMethod*>(self)->name);
}

// pickle and copy find the method again as getattr(tandem.Tensor, name).
PyObject* method_reduce(PyObject* self, PyObject*) {
  PyObject* getattr = PyDict_GetItemString(PyEval_GetBuiltins(), "getattr");  // borrowed
  if (!getattr) return nullptr;
  return Py_BuildValue("(O(OO))", getattr, tensor_type, reinterpret_cast<TensorMethod*>(self)->name);
}

PyObject* method_wrapped(PyObject* self, void*) {
  return Py_NewRef(reinterpret_cast<TensorMethod*>(self)->function);
}
PyObject* method_name(PyObject* self, void*) {
  return Py_NewRef(reinterpret_cast<TensorMethod*>(self)->name);
}
PyObject* method_qualname(PyObject* self, void*) {
  return PyUnicode_FromFormat("Tensor.%U", reinterpret_cast<TensorMethod*>(self)->name);
}
PyObject* method_objclass(PyObject*, void*) { return Py_NewRef(reinterpret_cast<PyObject*>(tensor_type)); }
PyObject* method_module(PyObject*, void*) { return PyUnicode_FromString("tandem"); }

PyMethodDef method_methods[] = {{"__reduce__", method_reduce, METH_NOARGS, nullptr},
                                {nullptr, nullptr, 0, nullptr}};

PyGetSetDef method_getset[] = {
    {"__wrapped__", method_wrapped, nullptr, nullptr, nullptr},
    {"__name__", method_name, nullptr, nullptr, nullptr},
    {"__qualname__", method_qualname, nullptr, nullptr, nullptr},
    {"__objclass__", method_objclass, nullptr, nullptr, nullptr},
    {"__module__", method_module, nullptr, nullptr, nullptr},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMemberDef method_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(TensorMethod, vectorcall), READONLY, nullptr},
    {"__dictoffset__", T_PYSSIZET, offsetof(TensorMethod, dict), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyType_Slot method_slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(method_dealloc)},
                              {Py_tp_traverse, reinterpret_cast<void*>(method_traverse)},
                              {Py_tp_clear, reinterpret_cast<void*>(method_clear)},
                              {Py_tp_repr, reinterpret_cast<void*>(method_repr)},
                              {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
                              {Py_tp_descr_get, reinterpret_cast<void*>(method_get)},
                              {Py_tp_methods, method_methods},
                              {Py_tp_getset, method_getset},
                              {Py_tp_members, method_members},
                              {0, nullptr}};

PyType_Spec method_spec = {"tandem._C.tensor_method", sizeof(TensorMethod), 0,
                           Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                               Py_TPFLAGS_METHOD_DESCRIPTOR | Py_TPFLAGS_IMMUTABLETYPE,
                           method_slots};

// overrides.has_torch_function: PyTorch's looks at the arguments given, not into sequences among them.
bool has_torch_function(PyObject* const* args, Py_ssize_t n) {
  if (n == 0) return false;  // PyTorch's answer for no arguments, even under a mode
  if (dispatch_state.modes_active()) return true;
  bool failed;
  PyObject* found = overloaded_arguments(args, n, false, failed);
  if (failed) throw nb::python_error();
  Py_XDECREF(found);
  return found != nullptr;
}

}  // namespace

void init_torch_function(nb::module_& m) {
  torch_function_name = PyUnicode_InternFromString("__torch_function__");
  auto* method_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&method_spec));
  if (!torch_function_name || !method_type) throw nb::python_error();
  tensor_type = reinterpret_cast<PyTypeObject*>(nb::type<Tensor>().ptr());
  dtype_type = reinterpret_cast<PyTypeObject*>(nb::type<PyDType>().ptr());
  device_type = reinterpret_cast<PyTypeObject*>(nb::type<PyDevice>().ptr());
  m.attr("tensor_method") = nb::steal(reinterpret_cast<PyObject*>(method_type));

  m.def(
      "_tensor_method",
      [method_type](nb::object function, nb::str name, bool binary_op, nb::object public_api) {
        if (!PyCallable_Check(function.ptr()))
          throw nb::type_error("_tensor_method: the function is not callable");
        auto* f = PyObject_GC_New(TensorMethod, method_type);
        if (!f) throw nb::python_error();
        const char* utf8 = PyUnicode_AsUTF8(name.ptr());
        if (!utf8) throw nb::python_error();
        f->fast = method_fast_path(utf8);
        f->function = function.release().ptr();
        f->name = name.release().ptr();
        f->dict = nullptr;
        f->public_api = public_api.is_none() ? nullptr : public_api.release().ptr();
        f->vectorcall = method_call;
        f->binary_op = binary_op;
        PyObject_GC_Track(reinterpret_cast<PyObject*>(f));
        return nb::steal(reinterpret_cast<PyObject*>(f));
      },
      nb::arg("function"), nb::arg("name"), nb::arg("binary_op"), nb::arg("public_api").none() = nb::none(),
      "A Tensor method that dispatches to __torch_function__ (docs/compat.md).");
  m.def(
      "_set_torch_function_hooks",
      [](nb::object dispatch, nb::object disabled) {
        // Kept for the life of the process (the functions of tandem.overrides).
        dispatch_hook = dispatch.release().ptr();
        disabled_impl = disabled.release().ptr();
      },
      nb::arg("dispatch"), nb::arg("disabled_impl"));
  m.def(
      "_set_torch_function_mode_depth",
      [](Py_ssize_t depth) { change_dispatch_state([depth](DispatchState& s) { s.mode_depth = depth; }); },
      nb::arg("depth"));
  m.def(
      "_is_torch_function_enabled", []() { return dispatch_state.subclass_enabled; },
      "False inside DisableTorchFunctionSubclass or DisableTorchFunction.");
  m.def(
      "_is_torch_function_mode_enabled", []() { return dispatch_state.modes_active(); },
      "True while a TorchFunctionMode is entered in this thread and not disabled.");
  m.def(
      "_set_torch_function_state",
      [](bool subclass, std::optional<bool> mode) {
        nb::tuple previous = nb::make_tuple(dispatch_state.subclass_enabled, dispatch_state.mode_enabled);
        change_dispatch_state([&](DispatchState& s) {
          s.subclass_enabled = subclass;
          if (mode) s.mode_enabled = *mode;
        });
        return previous;
      },
      nb::arg("subclass"), nb::arg("mode").none(),
      "Turns the arguments' and the modes' __torch_function__ dispatch on or off in this thread (mode None: "
      "unchanged); returns the previous (subclass, mode) state.");
  m.def(
      "_has_torch_function",
      [](nb::handle args) {
        nb::object items = nb::steal(PySequence_Fast(args.ptr(), "expected a sequence"));
        if (!items) throw nb::python_error();
        return has_torch_function(PySequence_Fast_ITEMS(items.ptr()), PySequence_Fast_GET_SIZE(items.ptr()));
      },
      nb::arg("args"));
  m.def("_has_torch_function_unary", [](nb::handle arg) {
    PyObject* one = arg.ptr();
    return has_torch_function(&one, 1);
  });
  m.def("_has_torch_function_variadic",
        [](nb::args args) { return has_torch_function(PySequence_Fast_ITEMS(args.ptr()), nb::len(args)); });
}

}  // namespace tandem::py
