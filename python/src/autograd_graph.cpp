// Bindings behind tandem.autograd.graph: saved-tensors hooks (this thread's stack of Python pack/unpack
// pairs, whose innermost pair SavedTensor consults), hooks and metadata on a node itself
// (grad_fn.register_hook, register_prehook, metadata), and what register_multi_grad_hook asks the engine.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "autograd/engine.h"
#include "autograd/node.h"
#include "bindings.h"
#include "core/error.h"

namespace tandem::py {
namespace {

using autograd::Node;

// The type name PyTorch's hook messages use ('int', 'list').
std::string py_type_name(nb::handle h) { return nb::cast<std::string>(h.type().attr("__name__")); }

// ---- saved-tensors hooks ----

// What a pack hook returned, with the unpack hook that turns it back into a tensor.
struct PyPackedTensor final : autograd::PackedTensor {
  PyPackedTensor(nb::object p, nb::object u) : packed(std::move(p)), unpack_hook(std::move(u)) {}
  ~PyPackedTensor() override {
    release_under_gil(packed);
    release_under_gil(unpack_hook);
  }
  Tensor unpack() const override {
    nb::gil_scoped_acquire gil;
    nb::object r = unpack_hook(packed);
    TANDEM_CHECK(is_tensor(r), Type,
                 "Output of saved tensor unpack_hook expected to be a Tensor but got result of type ",
                 py_type_name(r),
                 "\nhint: the unpack hook must return the tensor the pack hook stored (or an equal one)");
    return as_tensor_ref(r);
  }
  nb::object packed, unpack_hook;
};

struct PySavedTensorHooks final : autograd::SavedTensorHooks {
  PySavedTensorHooks(nb::object p, nb::object u) : pack_hook(std::move(p)), unpack_hook(std::move(u)) {}
  ~PySavedTensorHooks() override {
    release_under_gil(pack_hook);
    release_under_gil(unpack_hook);
  }
  std::shared_ptr<autograd::PackedTensor> pack(const Tensor& t) override {
    nb::gil_scoped_acquire gil;
    nb::object packed = pack_hook(wrap(t));
    return std::make_shared<PyPackedTensor>(std::move(packed), unpack_hook);
  }
  nb::object pack_hook, unpack_hook;
};

// This thread's hook pairs (innermost last) and, inside disable_saved_tensors_hooks, the error to raise.
struct SavedHooksState {
  std::vector<std::unique_ptr<PySavedTensorHooks>> stack;
  std::optional<std::string> disabled_message;
};
thread_local SavedHooksState saved_hooks;

void push_saved_tensors_hooks(nb::object pack_hook, nb::object unpack_hook) {
  if (saved_hooks.disabled_message) TANDEM_THROW(Runtime, *saved_hooks.disabled_message);
  saved_hooks.stack.push_back(
      std::make_unique<PySavedTensorHooks>(std::move(pack_hook), std::move(unpack_hook)));
  autograd::set_current_saved_tensor_hooks(saved_hooks.stack.back().get());
}

void pop_saved_tensors_hooks() {
  TANDEM_CHECK(!saved_hooks.stack.empty(), Runtime, "no saved tensors hooks to pop");
  saved_hooks.stack.pop_back();
  autograd::set_current_saved_tensor_hooks(saved_hooks.stack.empty() ? nullptr
                                                                     : saved_hooks.stack.back().get());
}

void disable_saved_tensors_hooks(const std::string& message) {
  // As PyTorch: hooks already active would silently stop applying, so refuse with the caller's message.
  if (!saved_hooks.stack.empty()) TANDEM_THROW(Runtime, message);
  saved_hooks.disabled_message = message;
}

// ---- hooks on a node ----

nb::tuple tensors_or_none(const std::vector<Tensor>& ts) {
  nb::list out;
  for (const Tensor& t : ts) out.append(t.defined() ? wrap(t) : nb::none());
  return nb::tuple(out);
}

// A hook's result: None (keep) or a tuple of one tensor-or-None per gradient (PyTorch's checks and messages).
void take_hook_result(const nb::object& fn, const nb::object& r, std::vector<Tensor>& grads) {
  if (r.is_none()) return;
  TANDEM_CHECK(nb::isinstance<nb::tuple>(r), Type, "expected tuple, but hook returned '", py_type_name(r),
               "'");
  nb::tuple values = nb::borrow<nb::tuple>(r);
  nb::object name = nb::getattr(fn, "__name__", nb::str("hook"));
  TANDEM_CHECK(values.size() == grads.size(), Runtime, "hook '", nb::cast<std::string>(nb::str(name)),
               "' has returned an incorrect number of values (got ", values.size(), ", but expected ",
               grads.size(), ")");
  for (size_t i = 0; i < grads.size(); ++i) {
    nb::handle v = values[i];
    TANDEM_CHECK(v.is_none() || is_tensor(v), Type, "expected Variable, but hook returned '", py_type_name(v),
                 "'");
    if (v.is_none()) {
      grads[i] = Tensor();
      continue;
    }
    // PyTorch's checks of a replacement: the node's formula relies on the gradient it was given (a smaller
    // one would broadcast into a silently wrong result).
    const Tensor& out = as_tensor_ref(v);
    const Tensor& was = grads[i];
    TANDEM_CHECK(was.defined(), Runtime, "can't replace a empty gradient with a non-empty value");
    TANDEM_CHECK(out.dtype() == was.dtype() && out.device() == was.device(), Runtime, "hook '",
                 nb::cast<std::string>(nb::str(name)), "' has changed the type of value (was ",
                 autograd::legacy_type_name(was), " got ", autograd::legacy_type_name(out), ")");
    TANDEM_CHECK(out.sizes() == was.sizes(), Runtime, "hook '", nb::cast<std::string>(nb::str(name)),
                 "' has changed the size of value");
    grads[i] = out;
  }
}

// Named types (not lambdas) so the garbage collector's traversal finds the callables (visit_node_objects).
struct PyNodeHook {
  explicit PyNodeHook(nb::object f) : fn(std::move(f)) {}
  PyNodeHook(const PyNodeHook& other) {
    nb::gil_scoped_acquire gil;
    fn = other.fn;
  }
  PyNodeHook& operator=(const PyNodeHook&) = delete;
  ~PyNodeHook() { release_under_gil(fn); }
  nb::object fn;
};

struct PyNodePreHook : PyNodeHook {
  using PyNodeHook::PyNodeHook;
  void operator()(std::vector<Tensor>& grad_outputs) const {
    nb::gil_scoped_acquire gil;
    take_hook_result(fn, fn(tensors_or_none(grad_outputs)), grad_outputs);
  }
};

struct PyNodePostHook : PyNodeHook {
  using PyNodeHook::PyNodeHook;
  void operator()(std::vector<Tensor>& grad_inputs, const std::vector<Tensor>& grad_outputs) const {
    nb::gil_scoped_acquire gil;
    take_hook_result(fn, fn(tensors_or_none(grad_inputs), tensors_or_none(grad_outputs)), grad_inputs);
  }
};

// grad_fn.metadata: a dict kept for the node's lifetime.
struct PyNodeState final : autograd::NodeBindingState {
  ~PyNodeState() override { release_under_gil(metadata); }
  nb::object metadata;
};

int next_node_hook_id() {
  static int next = 0;
  return next++;
}

// remove() takes the hook off its node again (nothing when the node is gone).
struct NodeHookHandle {
  std::weak_ptr<Node> node;
  int id;
  void remove() {
    auto n = node.lock();
    if (!n || !n->hooks) return;
    auto drop = [this](auto& hooks) {
      for (size_t i = 0; i < hooks.size(); ++i)
        if (hooks[i].first == id) hooks.erase(hooks.begin() + static_cast<std::ptrdiff_t>(i));
    };
    drop(n->hooks->pre);
    drop(n->hooks->post);
  }
};

NodeHookHandle register_node_prehook(Node& node, nb::object fn) {
  if (!node.hooks) node.hooks = std::make_unique<autograd::NodeHooks>();
  const int id = next_node_hook_id();
  node.hooks->pre.emplace_back(id, PyNodePreHook(std::move(fn)));
  return {node.shared_from_this(), id};
}

NodeHookHandle register_node_hook(Node& node, nb::object fn) {
  if (!node.hooks) node.hooks = std::make_unique<autograd::NodeHooks>();
  const int id = next_node_hook_id();
  node.hooks->post.emplace_back(id, PyNodePostHook(std::move(fn)));
  return {node.shared_from_this(), id};
}

nb::object node_metadata(Node& node) {
  auto* state = dynamic_cast<PyNodeState*>(node.binding_state.get());
  if (!state) {
    auto fresh = std::make_unique<PyNodeState>();
    fresh->metadata = nb::dict();
    state = fresh.get();
    node.binding_state = std::move(fresh);
  }
  return state->metadata;
}

// Where `t`'s gradient goes (its grad_fn, or a leaf's AccumulateGrad), as register_multi_grad_hook needs.
nb::object grad_fn_or_accumulator(const Tensor& t) {
  autograd::Edge e = autograd::gradient_edge(t);
  TANDEM_CHECK(e.fn, Runtime,
               "It is not possible to get the gradient edge for a Tensor that does not require gradients");
  return node_object(e.fn);
}

}  // namespace

int visit_node_objects(const Node& node, visitproc visit, void* arg) {
  if (node.hooks) {
    for (const auto& h : node.hooks->pre)
      if (const auto* p = h.second.target<PyNodePreHook>()) Py_VISIT(p->fn.ptr());
    for (const auto& h : node.hooks->post)
      if (const auto* p = h.second.target<PyNodePostHook>()) Py_VISIT(p->fn.ptr());
  }
  if (const auto* s = dynamic_cast<const PyNodeState*>(node.binding_state.get())) Py_VISIT(s->metadata.ptr());
  return 0;
}

void init_autograd_graph(nb::module_& m) {
  m.def("_push_saved_tensors_default_hooks", &push_saved_tensors_hooks, nb::arg("pack_hook"),
        nb::arg("unpack_hook"));
  m.def("_pop_saved_tensors_default_hooks", &pop_saved_tensors_hooks);
  m.def("_saved_tensors_hooks_disable", &disable_saved_tensors_hooks, nb::arg("error_message"));
  m.def("_saved_tensors_hooks_enable", [] { saved_hooks.disabled_message.reset(); });
  m.def("_saved_tensors_hooks_get_disabled_error_message", [] { return saved_hooks.disabled_message; });

  nb::class_<NodeHookHandle>(m, "_NodeHookHandle").def("remove", &NodeHookHandle::remove);
  auto cls = nb::type<Node>();
  auto& node = static_cast<nb::class_<Node>&>(cls);
  node.def("register_prehook", &register_node_prehook, nb::arg("fn"));
  node.def("register_hook", &register_node_hook, nb::arg("fn"));
  node.def_prop_ro("metadata", &node_metadata);
  node.def("_sequence_nr", [](const Node& n) { return n.sequence_nr; });

  m.def("_current_graph_task_id", &autograd::current_graph_task_id);
  m.def("_will_engine_execute_node", [](const Node& n) { return autograd::will_engine_execute_node(n); });
  m.def("_grad_fn_or_accumulator", &grad_fn_or_accumulator);
  m.def("_increment_version", [](nb::handle tensors) {
    if (is_tensor(tensors)) {
      as_tensor_ref(tensors).bump_version();
      return;
    }
    for (nb::handle t : tensors) expect_tensor(t, "increment_version", "tensor").bump_version();
  });
}

}  // namespace tandem::py
