// tandem's public functions, as PyTorch's C functions behave: stored as a class attribute (`class Block: conv
// = torch.conv3d`) it is not bound as a method and `self.conv(x, w)` passes no `self`, as with PyTorch's
// builtins (those of tandem.nn.functional, Python functions in PyTorch, are bound: `binds`). It calls the
// function through vectorcall (tens of nanoseconds), pickles by reference to its public name, prints as a
// built-in, and keeps the function as __wrapped__ (inspect.signature reads it there). tandem/__init__.py
// wraps the public functions of tandem, tandem.linalg, tandem.special and tandem.fft with it
// (python/tandem/_builtin_functions.py); those that take tensors dispatch to __torch_function__ first.
#include <Python.h>
#include <nanobind/stl/string.h>
#include <structmember.h>

#include "bindings.h"
#include "parser_errors.h"
#include "torch_function.h"

namespace tandem::py {

namespace {

struct BuiltinFunction {
  PyObject_HEAD PyObject* function;  // the Python function called
  PyObject* name;                    // its public name (str)
  PyObject* module;                  // the module that holds it under that name (str)
  PyObject* dict;                    // __doc__ and anything else a user sets
  vectorcallfunc vectorcall;
  bool binds;  // bound as a method when stored on a class, as a Python function (tandem.nn.functional's are)
};

// Each call's failure path asks whether nanobind refused the arguments, to raise PyTorch's parser error
// instead (parser_errors.h); a call that succeeds pays one test of its result.
PyObject* builtin_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  PyObject* function = reinterpret_cast<BuiltinFunction*>(self)->function;
  PyObject* result = PyObject_Vectorcall(function, args, nargsf, kwnames);
  return result ? result : explain_refused_call(function, args, nargsf, kwnames, nullptr);
}

// A function whose arguments are data: only modes see its calls (torch_function.cpp).
PyObject* mode_dispatching_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  PyObject* function = reinterpret_cast<BuiltinFunction*>(self)->function;
  PyObject* result = call_with_torch_function_modes(self, function, args, nargsf, kwnames);
  return result ? result : explain_refused_call(function, args, nargsf, kwnames, nullptr);
}

// A function of tensors: __torch_function__ dispatch first (torch_function.cpp).
PyObject* dispatching_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  PyObject* function = reinterpret_cast<BuiltinFunction*>(self)->function;
  PyObject* result = call_with_torch_function(self, function, args, nargsf, kwnames, false);
  return result ? result : explain_refused_call(function, args, nargsf, kwnames, nullptr);
}

int builtin_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* f = reinterpret_cast<BuiltinFunction*>(self);
  Py_VISIT(f->function);
  Py_VISIT(f->dict);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int builtin_clear(PyObject* self) {
  auto* f = reinterpret_cast<BuiltinFunction*>(self);
  Py_CLEAR(f->function);
  Py_CLEAR(f->name);
  Py_CLEAR(f->module);
  Py_CLEAR(f->dict);
  return 0;
}

void builtin_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  builtin_clear(self);
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

PyObject* builtin_get(PyObject* self, PyObject* obj, PyObject*) {
  if (obj == nullptr || obj == Py_None || !reinterpret_cast<BuiltinFunction*>(self)->binds)
    return Py_NewRef(self);
  return PyMethod_New(self, obj);
}

PyObject* builtin_repr(PyObject* self) {
  return PyUnicode_FromFormat("<built-in function %U>", reinterpret_cast<BuiltinFunction*>(self)->name);
}

// pickle (and copy) store a global reference: module.name, which is this object again when loaded.
PyObject* builtin_reduce(PyObject* self, PyObject*) {
  PyObject* name = reinterpret_cast<BuiltinFunction*>(self)->name;
  Py_INCREF(name);
  return name;
}

PyObject* get_wrapped(PyObject* self, void*) {
  PyObject* f = reinterpret_cast<BuiltinFunction*>(self)->function;
  Py_INCREF(f);
  return f;
}

PyObject* get_name(PyObject* self, void*) {
  PyObject* n = reinterpret_cast<BuiltinFunction*>(self)->name;
  Py_INCREF(n);
  return n;
}

PyObject* get_module(PyObject* self, void*) {
  PyObject* m = reinterpret_cast<BuiltinFunction*>(self)->module;
  Py_INCREF(m);
  return m;
}

PyMethodDef builtin_methods[] = {{"__reduce__", builtin_reduce, METH_NOARGS, nullptr},
                                 {nullptr, nullptr, 0, nullptr}};

PyGetSetDef builtin_getset[] = {
    {"__wrapped__", get_wrapped, nullptr, nullptr, nullptr},
    {"__name__", get_name, nullptr, nullptr, nullptr},
    {"__qualname__", get_name, nullptr, nullptr, nullptr},
    {"__module__", get_module, nullptr, nullptr, nullptr},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMemberDef builtin_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(BuiltinFunction, vectorcall), READONLY, nullptr},
    {"__dictoffset__", T_PYSSIZET, offsetof(BuiltinFunction, dict), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyType_Slot builtin_slots[] = {{Py_tp_dealloc, reinterpret_cast<void*>(builtin_dealloc)},
                               {Py_tp_traverse, reinterpret_cast<void*>(builtin_traverse)},
                               {Py_tp_clear, reinterpret_cast<void*>(builtin_clear)},
                               {Py_tp_repr, reinterpret_cast<void*>(builtin_repr)},
                               {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
                               {Py_tp_descr_get, reinterpret_cast<void*>(builtin_get)},
                               {Py_tp_methods, builtin_methods},
                               {Py_tp_getset, builtin_getset},
                               {Py_tp_members, builtin_members},
                               {0, nullptr}};

PyType_Spec builtin_spec = {"tandem._C.builtin_function", sizeof(BuiltinFunction), 0,
                            Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
                            builtin_slots};

PyTypeObject* builtin_type = nullptr;

}  // namespace

void init_builtin_function(nb::module_& m) {
  builtin_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&builtin_spec));
  if (!builtin_type) throw nb::python_error();
  m.def(
      "_builtin_function",
      [](nb::object function, nb::str name, nb::str module, nb::handle dispatches, bool binds) {
        // dispatches: True (arguments and modes), "modes" (modes only: its arguments are data) or False
        const bool modes_only = PyUnicode_Check(dispatches.ptr());
        const bool dispatching = modes_only || PyObject_IsTrue(dispatches.ptr()) == 1;
        if (!PyCallable_Check(function.ptr()))
          throw nb::type_error("_builtin_function: the function is not callable");
        auto* f = PyObject_GC_New(BuiltinFunction, builtin_type);
        if (!f) throw nb::python_error();
        f->function = function.release().ptr();
        f->name = name.release().ptr();
        f->module = module.release().ptr();
        f->dict = nullptr;
        f->vectorcall = modes_only ? mode_dispatching_call : dispatching ? dispatching_call : builtin_call;
        f->binds = binds;
        PyObject_GC_Track(reinterpret_cast<PyObject*>(f));
        nb::object wrapper = nb::steal(reinterpret_cast<PyObject*>(f));
        PyObject* doc = PyObject_GetAttrString(f->function, "__doc__");
        if (!doc) {
          PyErr_Clear();  // a callable without __doc__: the wrapper has none either
          return wrapper;
        }
        const int set = PyObject_SetAttrString(wrapper.ptr(), "__doc__", doc);
        Py_DECREF(doc);
        if (set < 0) throw nb::python_error();
        return wrapper;
      },
      nb::arg("function"), nb::arg("name"), nb::arg("module"), nb::arg("dispatches") = nb::bool_(false),
      nb::arg("binds") = false,
      "Wraps a function as a builtin: called the same (with `dispatches`, after the __torch_function__ "
      "check), "
      "never bound as a method (docs/compat.md).");
  m.attr("builtin_function") = nb::borrow(reinterpret_cast<PyObject*>(builtin_type));
  m.def(
      "_set_refused_call_hook", &set_refused_call_hook, nb::arg("hook"),
      "tandem._parser_errors.message: PyTorch's parser error for a call nanobind refused (parser_errors.h).");
  m.def("_parser_type_name", &parser_type_name, nb::arg("value").none(),
        "A value's type as PyTorch's argument parser prints it (CPython's tp_name; tandem's classes as "
        "torch's).");
  m.def("_parser_argument_description", &parser_argument_description, nb::arg("value").none(),
        "An argument as PyTorch's \"didn't match because\" line describes it (list of [int], tuple of "
        "(int,)).");
  m.def("_parser_signatures", &parser_signatures, nb::arg("name"),
        "PyTorch's overloads registered for a binding whose own signature differs from them, or None.");
}

}  // namespace tandem::py
