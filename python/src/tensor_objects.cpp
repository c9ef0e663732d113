// See tensor_objects.h.
#include "tensor_objects.h"

namespace tandem::py {
namespace {

// A new reference to the object `ref` (a weak reference) points to, or null once it is gone.
PyObject* referent(PyObject* ref) {
#if PY_VERSION_HEX >= 0x030D0000
  PyObject* obj = nullptr;
  return PyWeakref_GetRef(ref, &obj) > 0 ? obj : nullptr;
#else
  PyObject* obj = PyWeakref_GetObject(ref);
  if (obj == Py_None) return nullptr;
  Py_INCREF(obj);
  return obj;
#endif
}

}  // namespace

PyObject* TensorObjects::live_object(const Tensor& t) const {
  auto it = refs_.find(t.impl());
  if (it == refs_.end()) return nullptr;
  PyObject* obj = referent(it->second);
  if (obj && nb::inst_ptr<Tensor>(obj)->impl() == t.impl()) return obj;
  Py_XDECREF(obj);
  return nullptr;
}

nb::object TensorObjects::get(const Tensor& t) {
  if (PyObject* obj = live_object(t)) return nb::steal(obj);
  nb::object obj = wrap(t);
  remember(t, obj);
  return obj;
}

void TensorObjects::remember(const Tensor& t, nb::handle obj) {
  PyObject* ref = PyWeakref_NewRef(obj.ptr(), nullptr);
  if (!ref) {  // a subclass without weak references: its identity is not kept
    PyErr_Clear();
    return;
  }
  auto [it, added] = refs_.try_emplace(t.impl(), ref);
  if (!added) {
    Py_DECREF(it->second);
    it->second = ref;
  }
  if (refs_.size() > 2 * swept_size_ + 64) sweep();
}

void TensorObjects::remember_unless_known(const Tensor& t, nb::handle obj) {
  if (PyObject* known = live_object(t)) {
    Py_DECREF(known);
    return;
  }
  remember(t, obj);
}

void TensorObjects::release(nb::handle obj) {
  const TensorImpl* impl = nb::inst_ptr<Tensor>(obj)->impl();
  auto it = refs_.find(impl);
  if (it == refs_.end()) return;
  PyObject* held = referent(it->second);
  Py_XDECREF(held);
  if (held != obj.ptr()) return;
  Py_DECREF(it->second);
  refs_.erase(it);
}

void TensorObjects::sweep() {
  for (auto it = refs_.begin(); it != refs_.end();) {
    PyObject* obj = referent(it->second);
    Py_XDECREF(obj);
    if (obj) {
      ++it;
    } else {
      Py_DECREF(it->second);
      it = refs_.erase(it);
    }
  }
  swept_size_ = refs_.size();
}

TensorObjects& grad_objects() {
  static auto* objects = new TensorObjects();
  return *objects;
}

void note_leaf_object_of(PyObject* obj) noexcept {
  try {
    note_leaf_object(*nb::inst_ptr<Tensor>(obj), obj);
  } catch (...) {  // out of memory for the map's entry: the leaf's identity is not kept, nothing else is lost
  }
}

TensorObjects& leaf_objects() {
  static auto* objects = new TensorObjects();
  return *objects;
}

}  // namespace tandem::py
