// nanobind's caster for tandem::Tensor, with one addition on the way to Python: a leaf that requires grad
// remembers the first Python object made for it (tensor_objects.h), so AccumulateGrad.variable hands back the
// user's own object, whichever binding made it (a factory with requires_grad=True, tensor(), a Parameter).
// Included right after core/tensor.h by bindings.h and layouts.h: a full specialisation has to come before
// any use of nanobind's generic caster for Tensor in a file (see int_caster.h).
#pragma once

#include <nanobind/nanobind.h>

#include <utility>

#include "core/tensor.h"

namespace tandem::py {
// A leaf that requires grad: the tensors whose first Python object is remembered (AccumulateGrad.variable, a
// saved leaf).
inline bool is_grad_leaf(const AutogradMeta* m) { return m && m->requires_grad && !m->grad_fn; }
// Remembers `obj` (a Python tensor) as its leaf's object when it is a leaf that requires grad and has none
// yet.
void note_leaf_object_of(PyObject* obj) noexcept;
}  // namespace tandem::py

NAMESPACE_BEGIN(NB_NAMESPACE)
NAMESPACE_BEGIN(detail)

template <>
struct type_caster<tandem::Tensor> : type_caster_base<tandem::Tensor> {
  template <typename T>
  NB_INLINE static handle from_cpp(T&& value, rv_policy policy, cleanup_list* cleanup) noexcept {
    handle h = type_caster_base<tandem::Tensor>::from_cpp(std::forward<T>(value), policy, cleanup);
    if (h.is_valid()) {
      // The common case (no autograd state, or not a leaf that requires grad) costs one load and a test.
      const tandem::Tensor* t = static_cast<const tandem::Tensor*>(inst_ptr<tandem::Tensor>(h));
      const tandem::AutogradMeta* m = t->defined() ? t->impl()->autograd() : nullptr;
      if (__builtin_expect(tandem::py::is_grad_leaf(m), 0)) tandem::py::note_leaf_object_of(h.ptr());
    }
    return h;
  }
};

NAMESPACE_END(detail)
NAMESPACE_END(NB_NAMESPACE)
