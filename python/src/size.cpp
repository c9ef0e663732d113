// tandem.Size, the type of `t.shape` and `t.size()`: a tuple of ints, as PyTorch's torch.Size. The Python
// class (tandem/_size.py: construction from any integers, repr, numel) derives from _SizeBase here, which
// gives it in C the operations on hot paths: making one from a tensor's sizes, indexing (`x.shape[0]`,
// `x.shape[-2:]`; a Python __getitem__ cost a frame per use, 1.8x PyTorch's x.shape[0]), and `+`/`*`, which
// give a Size as PyTorch's do (`(1,) + x.shape` too).
#include "bindings.h"
#include "core/error.h"

namespace tandem::py {

namespace {

PyTypeObject* size_type = nullptr;  // tandem.Size, set by the Python package at import (which keeps it alive)

// A Size with `n` unset items. tandem.Size has a tuple's layout (a tuple subclass without a __dict__:
// `__slots__ = ()`, checked by set_size_type), so it is made as CPython makes one (tuple_subtype_new):
// allocated with its length, the items set after. An item the collector sees before it is set is null, which
// it skips.
PyObject* new_size(Py_ssize_t n) {
  PyTypeObject* type = size_type ? size_type : &PyTuple_Type;
  return type->tp_alloc(type, n);
}

// Size[i] is the int, Size[a:b] a Size (a tuple's slice would be a plain tuple).
PyObject* size_subscript(PyObject* self, PyObject* key) {
  if (!PySlice_Check(key)) return PyTuple_Type.tp_as_mapping->mp_subscript(self, key);
  Py_ssize_t start, stop, step;
  if (PySlice_Unpack(key, &start, &stop, &step) < 0) return nullptr;
  const Py_ssize_t n = PySlice_AdjustIndices(PyTuple_GET_SIZE(self), &start, &stop, step);
  PyObject* size = new_size(n);
  if (size)
    for (Py_ssize_t i = 0; i < n; ++i)
      PyTuple_SET_ITEM(size, i, Py_NewRef(PyTuple_GET_ITEM(self, start + i * step)));
  return size;
}

// A plain tuple's items as a Size; steals `tuple`.
PyObject* as_size(PyObject* tuple) {
  if (!tuple) return nullptr;
  const Py_ssize_t n = PyTuple_GET_SIZE(tuple);
  PyObject* size = new_size(n);
  if (size)
    for (Py_ssize_t i = 0; i < n; ++i) PyTuple_SET_ITEM(size, i, Py_NewRef(PyTuple_GET_ITEM(tuple, i)));
  Py_DECREF(tuple);
  return size;
}

// Size + tuple and tuple + Size are a Size; Size + anything else is PyTorch's TypeError (a list is not
// concatenated) unless it is an instance of a user's class, whose reflected operator may take it; another
// left operand keeps its own rule ([1] + size is the list's error).
PyObject* size_add(PyObject* a, PyObject* b) {
  if (!PyTuple_Check(a)) Py_RETURN_NOTIMPLEMENTED;
  if (!PyTuple_Check(b)) {
    if (PyType_HasFeature(Py_TYPE(b), Py_TPFLAGS_HEAPTYPE)) Py_RETURN_NOTIMPLEMENTED;
    PyErr_Format(PyExc_TypeError, "can only concatenate tuple (not %.200s) to tandem.Size",
                 Py_TYPE(b)->tp_name);
    return nullptr;
  }
  return as_size(PyTuple_Type.tp_as_sequence->sq_concat(a, b));
}

// Size * n and n * Size are a Size, as in PyTorch. Another count is the tuple's TypeError (a Python
// subclass's
// `*` replaces the tuple's repeat slot, so Python would not reach it), unless the count is an instance of a
// user's class, whose own reflected operator may take it.
PyObject* size_multiply(PyObject* a, PyObject* b) {
  PyObject* sequence = PyTuple_Check(a) ? a : b;
  PyObject* count = sequence == a ? b : a;
  if (!PyIndex_Check(count)) {
    if (PyType_HasFeature(Py_TYPE(count), Py_TPFLAGS_HEAPTYPE) && !PyTuple_Check(count))
      Py_RETURN_NOTIMPLEMENTED;
    PyErr_Format(PyExc_TypeError, "can't multiply sequence by non-int of type '%.200s'",
                 Py_TYPE(count)->tp_name);
    return nullptr;
  }
  const Py_ssize_t n = PyNumber_AsSsize_t(count, PyExc_OverflowError);
  if (n == -1 && PyErr_Occurred()) return nullptr;
  return as_size(PyTuple_Type.tp_as_sequence->sq_repeat(sequence, n));
}

PyType_Slot size_base_slots[] = {
    {Py_mp_subscript, reinterpret_cast<void*>(size_subscript)},
    {Py_nb_add, reinterpret_cast<void*>(size_add)},
    {Py_nb_multiply, reinterpret_cast<void*>(size_multiply)},
    {Py_tp_doc, const_cast<char*>("tandem.Size's C base: creation, indexing, + and *.")},
    {0, nullptr}};

void set_size_type(nb::handle cls) {
  TANDEM_CHECK(PyType_Check(cls.ptr()), Type, "_set_size_class expects a class");
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  TANDEM_CHECK(PyType_IsSubtype(type, &PyTuple_Type) && type->tp_itemsize == PyTuple_Type.tp_itemsize &&
                   type->tp_basicsize == PyTuple_Type.tp_basicsize && type->tp_dictoffset == 0,
               Type, "_set_size_class expects a tuple subclass with __slots__ = ()");
  size_type = type;
}

}  // namespace

nb::object size_object(IntArrayRef sizes) {
  const auto n = static_cast<Py_ssize_t>(sizes.size());
  nb::object size = nb::steal(new_size(n));
  if (!size.is_valid()) throw nb::python_error();
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyLong_FromLongLong(sizes[static_cast<size_t>(i)]);
    if (!item) throw nb::python_error();
    PyTuple_SET_ITEM(size.ptr(), i, item);
  }
  return size;
}

void init_size(nb::module_& m) {
  static PyType_Spec spec = {"tandem._C._SizeBase", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                             size_base_slots};
  spec.basicsize = static_cast<int>(PyTuple_Type.tp_basicsize);  // a tuple's layout, nothing added
  spec.itemsize = static_cast<int>(PyTuple_Type.tp_itemsize);
  PyObject* base = PyType_FromSpecWithBases(&spec, reinterpret_cast<PyObject*>(&PyTuple_Type));
  if (!base) throw nb::python_error();
  m.attr("_SizeBase") = nb::steal(base);
  m.def("_set_size_class", &set_size_type);
}

}  // namespace tandem::py
