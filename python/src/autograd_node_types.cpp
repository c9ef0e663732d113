// The Python classes of autograd nodes. PyTorch gives each kind of node its own class
// (type(y.grad_fn).__name__ == "ExpBackward0"), and graph printers (torchviz) and tutorials read that name.
// tandem binds one C++ base class, Node; each node name gets a Python subclass of it, made on first use, and
// a node's Python object is given its subclass when it is first handed out. A subclass adds no slots
// (__slots__ = ()) and Node is a garbage-collected type, so a subclass's instances have exactly the layout of
// Node's: only the type pointer changes.
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <memory>
#include <string>
#include <unordered_map>

#include "autograd/formula_node.h"
#include "autograd/node.h"
#include "bindings.h"
#include "tensor_objects.h"

namespace tandem::py {
namespace {

using autograd::Node;

// Node's instances take part in garbage collection only so that its subclasses' instances (always collected:
// Python makes a subclass collected whatever its base) share their layout. A Python object of a node owns no
// Python references of its own: the node's hooks and metadata are visited through the tensors that own the
// graph (visit_autograd_objects), so visiting them here too would count them twice.
int node_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int node_clear(PyObject*) { return 0; }

// PyTorch's class name: "AccumulateGrad", not the qualified "torch::autograd::AccumulateGrad" of name().
std::string class_name(const Node& n) {
  std::string name = n.name();
  const size_t colons = name.rfind("::");
  return colons == std::string::npos ? name : name.substr(colons + 2);
}

// The subclass for `n`'s name. The map and its classes are kept for the process, as the interpreter keeps
// builtin types.
PyTypeObject* class_for(const Node& n, PyTypeObject* base) {
  static auto* classes = new std::unordered_map<std::string, PyTypeObject*>();
  std::string name = class_name(n);
  if (auto it = classes->find(name); it != classes->end()) return it->second;
  nb::dict body;
  body["__slots__"] = nb::tuple();
  body["__module__"] = "builtins";  // as PyTorch's C++ nodes: repr(type(fn)) is "<class 'ExpBackward0'>"
  nb::handle base_obj(reinterpret_cast<PyObject*>(base));
  nb::object cls =
      nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(base)))(name, nb::make_tuple(base_obj), body);
  auto* type = reinterpret_cast<PyTypeObject*>(cls.release().ptr());
  classes->emplace(std::move(name), type);
  return type;
}

}  // namespace

nb::object node_saved_value(const Node& n, const std::string& name) {
  if (const auto* f = dynamic_cast<const autograd::FormulaNode*>(&n)) {
    for (size_t i = 0; i < f->saved_names.size() && i < f->saved.size(); ++i) {
      if (!f->saved_names[i] || name != f->saved_names[i]) continue;
      Tensor t = f->saved_tensor(i);  // PyTorch's error once the graph was freed
      if (!t.defined()) return nb::none();
      // A saved leaf is the user's own object, as in PyTorch (`x is y.grad_fn._saved_self`).
      return is_grad_leaf(t.impl()->autograd()) ? leaf_objects().get(t) : wrap(std::move(t));
    }
  }
  throw nb::attribute_error(
      ("'" + class_name(n) + "' object has no attribute '_saved_" + name + "'").c_str());
}

PyType_Slot* node_slots() {
  static PyType_Slot slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(&node_traverse)},
                                {Py_tp_clear, reinterpret_cast<void*>(&node_clear)},
                                {0, nullptr}};
  return slots;
}

nb::object node_object(const std::shared_ptr<Node>& n) {
  if (!n) return nb::none();
  nb::object obj = nb::cast(n);  // the node's existing object, or a new one of the bound class
  auto* base = reinterpret_cast<PyTypeObject*>(nb::type<Node>().ptr());
  if (Py_TYPE(obj.ptr()) != base) return obj;
  PyTypeObject* cls = class_for(*n, base);
  // The layouts match by construction; checked so that a Python or nanobind version where they do not keeps
  // the base class rather than corrupting the object.
  if (cls->tp_basicsize != base->tp_basicsize || cls->tp_itemsize != base->tp_itemsize ||
      cls->tp_dictoffset != base->tp_dictoffset || cls->tp_weaklistoffset != base->tp_weaklistoffset ||
      PyType_IS_GC(cls) != PyType_IS_GC(base))
    return obj;
  Py_INCREF(cls);
  Py_SET_TYPE(obj.ptr(), cls);
  Py_DECREF(base);
  return obj;
}

}  // namespace tandem::py
