// One Python object per C++ tensor where PyTorch users rely on identity: `p.grad is p.grad`, and the leaf
// that AccumulateGrad.variable returns being the very object the user made (`fn.variable is param`, which
// graph printers such as torchviz use to name parameters). tandem wraps a C++ tensor in a new Python object
// each time it crosses the boundary; these maps remember the object to hand out again.
#pragma once
#include <unordered_map>

#include "bindings.h"

namespace tandem::py {

// A tensor implementation -> a weak reference to its Python object. Weak, so it keeps no tensor alive; an
// entry whose object died (or whose address a new implementation reuses) is replaced on lookup, and dead
// entries are swept whenever the map has doubled since the last sweep. Used under the interpreter lock only;
// never destroyed (its references must not be released after the interpreter is gone).
class TensorObjects {
 public:
  // The remembered object of `t`, or a new wrapper (remembered from then on).
  nb::object get(const Tensor& t);
  // `obj` is t's object from now on.
  void remember(const Tensor& t, nb::handle obj);
  // `obj` is t's object unless a live one is remembered already (the first object made for a leaf stays its
  // object when the same tensor is wrapped again).
  void remember_unless_known(const Tensor& t, nb::handle obj);
  // Drops the entry that points to `obj`, if one does (swap_tensors refuses objects with weak references, and
  // this one is only the map's).
  void release(nb::handle obj);

 private:
  // A new reference to the live object remembered for `t`, or null.
  PyObject* live_object(const Tensor& t) const;
  void sweep();
  std::unordered_map<const TensorImpl*, PyObject*> refs_;
  size_t swept_size_ = 0;
};

// The objects handed out as tensors' .grad.
TensorObjects& grad_objects();
// The objects of leaves that require grad (AccumulateGrad.variable), remembered when a leaf is made or
// wrapped.
TensorObjects& leaf_objects();
// Remembers `obj` as the object of `t` when t is a leaf that requires grad (and no object is known for it).
inline void note_leaf_object(const Tensor& t, nb::handle obj) {
  if (__builtin_expect(is_grad_leaf(t.impl()->autograd()), 0)) leaf_objects().remember_unless_known(t, obj);
}

}  // namespace tandem::py
