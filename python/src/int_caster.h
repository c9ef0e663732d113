// The int64_t argument of every binding (a dim, a size, an index, a count) reads a Python int as PyTorch's
// argument parser does: an int, an int subclass or an object with __index__ (a NumPy integer, a one-element
// integer tensor), but not a bool. nanobind's own caster takes bool as the int subclass it is, so
// x.transpose(True, 0) swapped dims 1 and 0 where PyTorch raises TypeError. This full specialisation replaces
// nanobind's for int64_t in every binding file: bindings.h and layouts.h include it right after nanobind, and
// a file that instantiated nanobind's first would fail to compile (specialisation after instantiation).
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>

NAMESPACE_BEGIN(NB_NAMESPACE)
NAMESPACE_BEGIN(detail)

template <>
struct type_caster<int64_t> {
  NB_TYPE_CASTER(int64_t, const_name("int"))

  // Flags is uint8_t or uint32_t depending on nanobind's version.
  template <typename Flags>
  bool from_python(handle src, Flags flags, cleanup_list*) noexcept {
    PyObject* o = src.ptr();
    if (PyLong_CheckExact(o)) return load_exact(o);
    // Only the conversion pass takes anything else, so an overload taking bool is preferred for a bool.
    if ((static_cast<uint32_t>(flags) & static_cast<uint32_t>(cast_flags::convert)) == 0 || PyBool_Check(o))
      return false;
    if (PyLong_Check(o)) return load_exact(o);
    if (PyFloat_Check(o) || !PyIndex_Check(o)) return false;
    PyObject* index = PyNumber_Index(o);
    if (index == nullptr) {
      PyErr_Clear();
      return false;
    }
    const bool ok = load_exact(index);
    Py_DECREF(index);
    return ok;
  }

  static handle from_cpp(int64_t v, rv_policy, cleanup_list*) noexcept { return PyLong_FromLongLong(v); }

 private:
  bool load_exact(PyObject* o) noexcept {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return false;
    }
    value = v;
    return true;
  }
};

NAMESPACE_END(detail)
NAMESPACE_END(NB_NAMESPACE)
