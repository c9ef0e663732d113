// tandem.Size, the type of `t.shape` and `t.size()`: a tuple of ints, as PyTorch's torch.Size. The Python
// class (tandem/_size.py: construction from any integers, repr, numel, +) derives from _SizeBase here, which
// gives it the two operations on every hot path in C: making one from a tensor's sizes, and indexing
// (`x.shape[0]`, `x.shape[-2:]`), which as a Python __getitem__ cost a frame per use (1.8x PyTorch's
// x.shape[0]).
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

PyType_Slot size_base_slots[] = {
    {Py_mp_subscript, reinterpret_cast<void*>(size_subscript)},
    {Py_tp_doc, const_cast<char*>("tandem.Size's C base: creation and indexing.")},
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
