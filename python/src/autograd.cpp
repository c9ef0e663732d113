// Autograd bindings: Tensor.requires_grad/grad/grad_fn/backward/..., grad mode, the graph node type, and
// tandem._C._autograd_backward/_autograd_grad used by tandem.autograd.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include "autograd/anomaly_mode.h"
#include "autograd/engine.h"
#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "backend/backend.h"
#include "bindings.h"
#include "core/error.h"
#include "ops/copy.h"
#include "ops/view.h"
#include "tensor_objects.h"

namespace tandem::py {
namespace {

using autograd::GradMode;
using autograd::Node;

// None or a list/tuple of tensors (or a single tensor) -> vector (None entries become undefined tensors).
// backward(inputs=[]) is refused (None means every leaf), in PyTorch's words.
void check_inputs_not_empty(nb::handle inputs) {
  if (!inputs.is_none() && !is_tensor(inputs) && nb::len(inputs) == 0)
    TANDEM_THROW(Runtime, "`inputs` argument to `backward()` cannot be empty.");
}

std::vector<Tensor> tensor_list(nb::handle h, const char* what) {
  std::vector<Tensor> out;
  if (h.is_none()) return out;
  if (is_tensor(h)) {
    out.push_back(as_tensor_ref(h));
    return out;
  }
  for (nb::handle item : h) {
    if (item.is_none())
      out.emplace_back();
    else
      out.push_back(expect_tensor(item, what, "tensors"));
  }
  return out;
}

nb::object grad_object(const Tensor& t) {
  AutogradMeta* m = t.impl()->autograd();
  if (m && m->grad_fn && !m->retains_grad) {
    // PyTorch's warning: a non-leaf's .grad stays None unless retain_grad() was called.
    if (PyErr_WarnEx(
            PyExc_UserWarning,
            "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
            "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
            "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
            "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead.",
            1) < 0)
      throw nb::python_error();
  }
  if (!m || !m->grad || !m->grad->defined()) return nb::none();
  return grad_objects().get(*m->grad);
}

// A sparse tensor (python/tandem/sparse/) is a Python object over a placeholder C++ tensor of its size whose
// dtype is not the sparse tensor's: its own dtype attribute says that. The .grad slot keeps the placeholder
// and only a weak reference to the object, so tandem.nn._sparse_grad holds the object while it is the grad.
bool is_sparse_grad(nb::handle value) {
  static nb::handle sparse_base =
      nb::object(nb::module_::import_("tandem.sparse._base").attr("_SparseBase")).release();
  return PyObject_IsInstance(value.ptr(), sparse_base.ptr()) == 1;
}

void set_grad(nb::handle self, nb::handle value) {
  const Tensor& t = *nb::inst_ptr<Tensor>(self);
  if (value.is_none()) {
    if (AutogradMeta* m = t.impl()->autograd(); m && m->grad) *m->grad = Tensor();
    return;
  }
  // PyTorch's checks, in its order and words.
  if (nb::isinstance<Tensor>(value))
    TANDEM_CHECK(nb::inst_ptr<Tensor>(value)->impl() != t.impl(), Runtime,
                 "can't assign Variable as its own grad");
  if (!nb::isinstance<Tensor>(value))
    TANDEM_THROW(Type, "assigned grad expected to be a Tensor or None but got grad of type ",
                 Py_TYPE(value.ptr())->tp_name);
  const Tensor& g = *nb::inst_ptr<Tensor>(value);
  const bool sparse = is_sparse_grad(value);
  const DType grad_dtype = sparse ? to_dtype(value.attr("dtype")) : g.dtype();
  TANDEM_CHECK(
      grad_dtype == t.dtype(), Runtime, "attempting to assign a gradient with dtype '",
      dtype_cpp_name(grad_dtype), "' to a tensor with grad_dtype '", dtype_title(t.dtype()),
      "'. The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set "
      "the tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set "
      "grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break downstream "
      "systems that assume they match.\nhint: convert it first, e.g. g.to(x.dtype)");
  TANDEM_CHECK(g.device().type == t.device().type, Runtime,
               "attempting to assign a gradient with device type '", device_type_name(g.device().type),
               "' to a tensor with device type '", device_type_name(t.device().type),
               "'. Please ensure that the gradient and the tensor are on the same device");
  TANDEM_CHECK(g.device() == t.device(), Runtime,
               "attempting to assign a gradient located on device with index '", g.device().index,
               "' to a tensor located on device with index '", t.device().index,
               "'. Please ensure that the gradient and the tensor are on the same device");
  TANDEM_CHECK(g.sizes() == t.sizes(), Runtime, "attempting to assign a gradient of size '", g.shape_str(),
               "' to a tensor of size '", t.shape_str(),
               "'. Please ensure that the gradient and the tensor are the same size");
  AutogradMeta& m = t.impl()->ensure_autograd();
  if (!m.grad) m.grad = std::make_shared<Tensor>();
  *m.grad = g;
  grad_objects().remember(g, value);
  if (sparse) {
    static nb::handle hold =
        nb::object(nb::module_::import_("tandem.nn._sparse_grad").attr("hold")).release();
    hold(self, value);
  }
}

// PyTorch words the integer-dtype refusal two ways: the requires_grad attribute names complex dtypes too,
// requires_grad_() does not (complex tensors may require grad either way).
void set_requires_grad(const Tensor& t, bool v, bool complex_allowed_message = true) {
  AutogradMeta* m = t.impl()->autograd();
  TANDEM_CHECK(
      !(m && m->grad_fn) || v, Runtime,
      "you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
      "in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  TANDEM_CHECK(!v || autograd::is_differentiable(t.dtype()), Runtime,
               complex_allowed_message
                   ? "only Tensors of floating point and complex dtype can require gradients"
                   : "only Tensors of floating point dtype can require gradients",
               "\nhint: convert first, e.g. x.float().requires_grad_()");
  TANDEM_CHECK(!v || !t.storage()->is_inference() || InferenceMode::is_enabled(), Runtime,
               "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.\nhint: "
               "clone it first (x.clone().requires_grad_()): the clone is a normal tensor");
  if (v || m) t.impl()->ensure_autograd().requires_grad = v;
}

Tensor detach(const Tensor& t) { return alias(t); }
// Tensor.data: detach() with a version counter of its own, as in PyTorch: in-place writes through it are not
// seen by autograd's checks on the tensor it came from (what .data is used for; detach() shares the counter).
Tensor data_of(const Tensor& t) {
  Tensor d = alias(t);
  d.impl()->use_own_version();
  return d;
}

}  // namespace

// Drops a Python reference held by C++ autograd state under the GIL. The last reference to a graph can go on
// any thread: an emulated device's stream worker releases the tensors a finished kernel captured, and with
// them their grad_fn (a Function's node, a hook). At interpreter exit the reference is left to the process's
// end.
void release_under_gil(nb::object& o) {
  if (!o.is_valid()) return;
  if (!Py_IsInitialized()) {
    o.release();
    return;
  }
  nb::gil_scoped_acquire gil;
  nb::object dropped = std::move(o);
}

namespace {

// A Python callable as a tensor hook. A named type (not a lambda) so the garbage collector's traversal can
// find the callable inside the std::function (see visit_autograd_objects).
struct PythonHook {
  explicit PythonHook(nb::object f) : fn(std::move(f)) {}
  PythonHook(const PythonHook& other) {
    nb::gil_scoped_acquire gil;
    fn = other.fn;
  }
  PythonHook& operator=(const PythonHook&) = delete;
  ~PythonHook() { release_under_gil(fn); }
  nb::object fn;
  // The hook's replacement gradient, with PyTorch's checks: a tensor of the gradient's dtype, device and
  // size.
  Tensor operator()(const Tensor& g) const {
    nb::object r = fn(wrap(g));
    if (r.is_none()) return Tensor();
    TANDEM_CHECK(is_tensor(r), Type, "expected Variable, but hook returned '", Py_TYPE(r.ptr())->tp_name,
                 "'");
    const Tensor& out = as_tensor_ref(r);
    auto name = [&] {
      nb::object n = nb::getattr(fn, "__name__", nb::none());
      return n.is_none() ? std::string("<unknown>") : nb::cast<std::string>(nb::str(n));
    };
    TANDEM_CHECK(out.dtype() == g.dtype() && out.device() == g.device(), Runtime, "hook '", name(),
                 "' has changed the type of value (was ", autograd::legacy_type_name(g), " got ",
                 autograd::legacy_type_name(out), ")");
    TANDEM_CHECK(out.sizes() == g.sizes(), Runtime, "hook '", name(), "' has changed the size of value");
    return out;
  }
};

// A handle returned by register_hook: remove() takes the hook out again.
struct RemovableHandle {
  Tensor tensor;
  std::weak_ptr<Node> node;  // non-leaf hooks live on the grad_fn
  int id;
  void remove() {
    if (auto n = node.lock()) {
      auto& hs = n->pre_hooks;
      for (size_t i = 0; i < hs.size(); ++i)
        if (hs[i].id == id) hs.erase(hs.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
    if (AutogradMeta* m = tensor.defined() ? tensor.impl()->autograd() : nullptr) {
      auto& hs = m->hooks;
      for (size_t i = 0; i < hs.size(); ++i)
        if (hs[i].first == id) hs.erase(hs.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
};

RemovableHandle register_hook(const Tensor& t, nb::object fn) {
  TANDEM_CHECK(
      t.requires_grad(), Runtime,
      "cannot register a hook on a tensor that doesn't require gradient\nhint: set requires_grad=True "
      "on it (or on the inputs it is computed from) first");
  static int next_id = 0;
  int id = next_id++;
  TensorHook hook = PythonHook(std::move(fn));
  AutogradMeta& m = t.impl()->ensure_autograd();
  if (m.grad_fn) {
    m.grad_fn->pre_hooks.push_back({m.output_nr, id, std::move(hook)});
    return {Tensor(), m.grad_fn, id};
  }
  m.hooks.emplace_back(id, std::move(hook));
  return {t, {}, id};
}

void retain_grad(const Tensor& t) {
  AutogradMeta* m = t.impl()->autograd();
  TANDEM_CHECK(m && m->requires_grad, Runtime, "can't retain_grad on Tensor that has requires_grad=False");
  if (!m->grad_fn || m->retains_grad) return;  // leaves always keep their grad
  m->retains_grad = true;
  if (!m->grad) m->grad = std::make_shared<Tensor>();
  m->grad_fn->retained.emplace_back(m->output_nr, m->grad);
}

// The node of a Python tandem.autograd.Function: calls cls.backward(ctx, *grads). Saved tensors are kept as
// SavedTensor (outputs without their grad_fn), so ctx.save_for_backward never creates a reference cycle.
struct PyFunctionNode final : Node {
  std::string name() const override { return name_; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    ctx_.attr("saved_tensors") = saved_tensors();
    nb::list args;
    args.append(ctx_);
    for (Tensor& g : grads) args.append(wrap(std::move(g)));
    nb::object r = backward_(*nb::tuple(args));
    nb::delattr(ctx_, "saved_tensors");
    nb::tuple rs = nb::isinstance<nb::tuple>(r) ? nb::borrow<nb::tuple>(r) : nb::make_tuple(r);
    TANDEM_CHECK(rs.size() == num_args_, Runtime, "function ", name_,
                 " returned an incorrect number of gradients "
                 "(expected ",
                 num_args_, ", got ", rs.size(),
                 ")\nhint: backward returns one value per forward "
                 "argument (None for non-tensor arguments)");
    std::vector<Tensor> out;
    for (size_t pos : tensor_positions_) {
      nb::handle g = rs[pos];
      if (!g.is_none() && !is_tensor(g))
        TANDEM_THROW(Runtime, "expected Variable or None (got ", Py_TYPE(g.ptr())->tp_name, ")");
      out.push_back(g.is_none() ? Tensor() : as_tensor_ref(g));
    }
    return out;
  }
  // ctx.saved_tensors (also grad_fn.saved_tensors, as in PyTorch): unpacked and version-checked; after a
  // backward without retain_graph, the engine's freed-graph error.
  nb::tuple saved_tensors() const {
    if (!backward_.is_valid()) {  // released by an earlier backward
      autograd::SavedTensor freed;
      freed.release();
      freed.unpack(*this);
    }
    nb::tuple saved = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(saved_.size())));
    for (size_t i = 0; i < saved_.size(); ++i) {
      Tensor t = saved_[i].unpack(*this);
      PyTuple_SET_ITEM(saved.ptr(), i, (t.defined() ? wrap(std::move(t)) : nb::none()).release().ptr());
    }
    return saved;
  }
  // A node that saved tensors cannot run again after a backward without retain_graph, so it also lets go of
  // its Python objects: a Function output and a later result both kept (in a module's globals, which
  // backward_ refers to) would otherwise hold a cycle through this shared node that the garbage collector
  // cannot see. Without saved tensors PyTorch lets backward run again, so such a node keeps them.
  void release_saved() override {
    if (saved_.empty()) return;
    for (auto& s : saved_) s.release();
    release_under_gil(backward_);
    release_under_gil(ctx_);
  }
  ~PyFunctionNode() override {
    release_under_gil(backward_);
    release_under_gil(ctx_);
  }
  std::string name_;
  nb::object backward_, ctx_;
  size_t num_args_ = 0;
  std::vector<size_t> tensor_positions_;  // which forward arguments are tensors (one edge each)
  std::vector<autograd::SavedTensor> saved_;
  std::vector<bool> custom_views_;  // per output: shares memory with an input without being it
  bool output_is_custom_view(uint32_t output_nr) const override {
    return output_nr < custom_views_.size() && custom_views_[output_nr];
  }
};

// Python objects held by C++ autograd state, shown to Python's garbage collector so that cycles through it
// are freed: a hook whose closure names its own tensor, or a Function output kept in a global that the
// Function's backward (through its module's globals) refers to. Only state this Python tensor owns alone is
// visited (the collector counts each visit as a reference owned by the tensor): an impl or node that anything
// else also holds is skipped, which at worst leaves such a cycle uncollected, never frees a live object.
template <typename Hooks, typename Fn>
int visit_hook_list(const Hooks& hooks, Fn&& hook_of, visitproc visit, void* arg) {
  for (const auto& h : hooks)
    if (const PythonHook* p = hook_of(h).template target<PythonHook>()) Py_VISIT(p->fn.ptr());
  return 0;
}

int visit_leaf_hooks(const TensorImpl& impl, visitproc visit, void* arg) {
  const AutogradMeta* m = impl.autograd();
  if (!m) return 0;
  return visit_hook_list(
      m->hooks, [](const auto& h) -> const TensorHook& { return h.second; }, visit, arg);
}

// The nodes reachable from `root` through edges that alone own the next node (an iterative walk: graphs of
// unrolled loops are deep).
int visit_graph(const Node* root, visitproc visit, void* arg) {
  std::vector<const Node*> todo{root};
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (int r = visit_hook_list(
            n->pre_hooks, [](const auto& h) -> const TensorHook& { return h.fn; }, visit, arg))
      return r;
    if (int r = visit_node_objects(*n, visit, arg)) return r;
    if (auto* f = dynamic_cast<const PyFunctionNode*>(n)) {
      Py_VISIT(f->backward_.ptr());
      Py_VISIT(f->ctx_.ptr());
    }
    if (auto* acc = dynamic_cast<const autograd::AccumulateGrad*>(n)) {
      const TensorImpl* leaf = acc->variable.defined() ? acc->variable.impl() : nullptr;
      if (leaf && leaf->use_count() == 1)
        if (int r = visit_leaf_hooks(*leaf, visit, arg)) return r;
    }
    for (const autograd::Edge& e : n->next_edges)
      if (e.fn && e.fn.use_count() == 1) todo.push_back(e.fn.get());
  }
  return 0;
}

}  // namespace

int visit_autograd_objects(const Tensor& t, visitproc visit, void* arg) {
  if (!t.defined() || t.impl()->use_count() != 1) return 0;
  if (int r = visit_leaf_hooks(*t.impl(), visit, arg)) return r;
  const AutogradMeta* m = t.impl()->autograd();
  if (m && m->grad_fn && m->grad_fn.use_count() == 1) return visit_graph(m->grad_fn.get(), visit, arg);
  return 0;
}

namespace {

// Attaches a PyFunctionNode to the outputs of Function.apply.
void record_function(nb::str name, nb::object backward, nb::object ctx, nb::tuple args, nb::tuple outputs,
                     nb::tuple to_save) {
  auto node = std::make_shared<PyFunctionNode>();
  node->name_ = nb::cast<std::string>(name);
  node->backward_ = std::move(backward);
  node->ctx_ = std::move(ctx);
  node->num_args_ = args.size();
  std::vector<Tensor> inputs, outs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!is_tensor(args[i])) continue;
    node->tensor_positions_.push_back(i);
    inputs.push_back(as_tensor_ref(args[i]));
  }
  for (nb::handle o : outputs) outs.push_back(expect_tensor(o, "Function.apply", "output"));
  for (const Tensor& in : inputs) node->next_edges.push_back(autograd::gradient_edge(in));
  for (size_t k = 0; k < outs.size(); ++k) {
    const Tensor& o = outs[k];
    node->outputs.push_back({o.sizes(), o.dtype(), o.device()});
    // A view of an input made in forward, or an input returned as is (Function.apply hands out a detached
    // alias of it); an input modified in place (mark_dirty) is the input itself, and may be written again.
    bool view = false;
    for (const Tensor& in : inputs)
      view |= !o.is_same(in) && o.storage() && in.storage() && o.storage().get() == in.storage().get();
    node->custom_views_.push_back(view);
    if (!autograd::is_differentiable(o.dtype())) continue;
    AutogradMeta& m = o.impl()->ensure_autograd();
    m.requires_grad = true;
    m.grad_fn = node;
    m.output_nr = static_cast<uint32_t>(k);
  }
  for (nb::handle h : to_save) {
    if (h.is_none()) {
      node->saved_.emplace_back();
      continue;
    }
    const Tensor& t = expect_tensor(h, "save_for_backward", "tensors");
    bool is_output = false;
    for (const Tensor& o : outs) is_output |= o.is_same(t);
    node->saved_.emplace_back(t, is_output);
  }
}

// tandem.func's transforms: whether the graph of `outputs` reaches a leaf other than `own_leaves` (the
// transform's private differentiable copies of its inputs). Only then must a transform's results stay
// differentiable: for an enclosing transform, or for the caller's own autograd.
bool graph_reaches_other_leaves(nb::handle outputs, nb::handle own_leaves) {
  std::unordered_set<const TensorImpl*> own;
  for (const Tensor& t : tensor_list(own_leaves, "_graph_reaches_other_leaves")) own.insert(t.impl());
  std::unordered_set<const Node*> seen;
  std::vector<const Node*> todo;
  // The roots' edges are kept alive for the walk: a leaf's gradient edge may be an AccumulateGrad made for
  // this call, which a temporary Edge would free at once (the walk then read a freed node).
  std::vector<autograd::Edge> roots;
  for (const Tensor& t : tensor_list(outputs, "_graph_reaches_other_leaves")) {
    if (!t.defined() || !t.requires_grad()) continue;
    roots.push_back(autograd::gradient_edge(t));
    const autograd::Edge& e = roots.back();
    if (e.fn && seen.insert(e.fn.get()).second) todo.push_back(e.fn.get());
  }
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (auto* acc = dynamic_cast<const autograd::AccumulateGrad*>(n)) {
      if (!own.count(acc->variable.impl())) return true;
      continue;
    }
    for (const autograd::Edge& e : n->next_edges)
      if (e.fn && seen.insert(e.fn.get()).second) todo.push_back(e.fn.get());
  }
  return false;
}

// Anomaly mode's two Python services (see autograd/anomaly_mode.h): the forward traceback as
// traceback.format_stack() writes it, and PyTorch's UserWarning before a failing node's error.
std::string format_forward_stack() {
  nb::gil_scoped_acquire gil;
  nb::object frames = nb::module_::import_("traceback").attr("format_stack")();
  return nb::cast<std::string>(nb::str("").attr("join")(frames));
}

void warn_anomaly(const std::string& message) {
  nb::gil_scoped_acquire gil;
  // A warnings filter that turns this into an error must not replace the node's own error: drop that one.
  if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) < 0) PyErr_Clear();
}

// PyTorch's repr names the node's class: CopySlices, not the qualified torch::autograd::CopySlices of name().
std::string node_repr(const Node& n) {
  char buf[64];
  std::snprintf(buf, sizeof buf, " object at %p>", static_cast<const void*>(&n));
  const std::string name = n.name();
  const size_t colons = name.rfind("::");
  return "<" + (colons == std::string::npos ? name : name.substr(colons + 2)) + buf;
}

}  // namespace

void init_autograd(nb::module_& m) {
  nb::class_<Node>(m, "Node", "A node of the autograd graph (a tensor's grad_fn).",
                   nb::type_slots(node_slots()))
      .def("name", &Node::name)
      .def("__repr__", &node_repr)
      .def("_saved_value", &node_saved_value, nb::arg("name"))
      .def_prop_ro("next_functions",
                   [](const Node& n) {
                     nb::list out;
                     for (const auto& e : n.next_edges) {
                       nb::object fn = node_object(e.fn);
                       out.append(nb::make_tuple(fn, e.input_nr));
                     }
                     return nb::tuple(out);
                   })
      .def_prop_ro("variable",
                   [](const Node& n) -> nb::object {
                     auto* acc = dynamic_cast<const autograd::AccumulateGrad*>(&n);
                     if (!acc) throw nb::attribute_error("'Node' object has no attribute 'variable'");
                     return leaf_objects().get(acc->variable);  // the leaf's own object, as in PyTorch
                   })
      // grad_fn(*grads): the node's backward on gradients of its forward's outputs (PyTorch's Node.__call__),
      // checked against what the forward produced so a formula never sees a gradient of another shape.
      .def("__call__",
           [](Node& n, nb::args args) -> nb::object {
             TANDEM_CHECK(args.size() == n.outputs.size(), Type, "expected ", n.outputs.size(),
                          " arguments, got ", args.size(), " instead\nhint: ", n.name(),
                          " takes one gradient per output of its forward");
             std::vector<Tensor> grads;
             for (size_t k = 0; k < args.size(); ++k) {
               const autograd::OutputMeta& meta = n.outputs[k];
               if (args[k].is_none()) {
                 grads.push_back(n.fills_missing_gradients()
                                     ? Tensor()
                                     : full(meta.sizes, Scalar(0.0), meta.dtype, meta.device));
                 continue;
               }
               TANDEM_CHECK(is_tensor(args[k]), Type, "argument ", k,
                            " is not a Variable\nhint: pass a tensor "
                            "(or None) as each gradient");
               Tensor g = as_tensor_ref(args[k]);
               TANDEM_CHECK(g.sizes() == IntArrayRef(meta.sizes), Runtime, n.name(), ": gradient ", k,
                            " has shape ", g.shape_str(), " but the forward's output ", k, " had shape ",
                            shape_to_string(meta.sizes));
               TANDEM_CHECK(g.device() == meta.device, Runtime, n.name(), ": gradient ", k, " is on ",
                            g.device().str(), " but the forward's output ", k, " was on ", meta.device.str());
               grads.push_back(g.dtype() == meta.dtype ? g : to_dtype(g, meta.dtype));
             }
             std::vector<Tensor> out = n.apply(std::move(grads));
             out.resize(std::max(out.size(), n.next_edges.size()));  // one per input (None for a number's)
             auto as_object = [](Tensor& t) { return t.defined() ? wrap(std::move(t)) : nb::none(); };
             if (out.size() == 1) return as_object(out[0]);
             nb::list items;
             for (Tensor& t : out) items.append(as_object(t));
             return nb::tuple(items);
           })
      // A custom Function's saved tensors; other nodes fall through to the ctx lookup
      // (autograd/_function_node_attrs.py), which names the node in its AttributeError.
      .def_prop_ro("saved_tensors", [](const Node& n) -> nb::object {
        auto* f = dynamic_cast<const PyFunctionNode*>(&n);
        if (!f) throw nb::attribute_error("saved_tensors");
        return f->saved_tensors();
      });

  nb::class_<RemovableHandle>(m, "RemovableHandle").def("remove", &RemovableHandle::remove);

  auto cls = nb::type<Tensor>();
  auto& tensor = static_cast<nb::class_<Tensor>&>(cls);
  tensor.def_prop_rw(
      "requires_grad", [](const Tensor& t) { return t.requires_grad(); },
      [](nb::handle self, bool v) {
        const Tensor& t = self_tensor(self, "requires_grad");
        set_requires_grad(t, v);
        note_leaf_object(t, self);
      });
  // Made under inference_mode (its memory was: views and detached aliases of it are too), as PyTorch's.
  tensor.def("is_inference", [](const Tensor& t) { return t.storage()->is_inference(); });
  tensor.def(
      "requires_grad_",
      [](nb::handle self, nb::handle v) {
        // PyTorch's parser takes a bool only (not 1, not a 0-dim tensor, not numpy.bool_).
        TANDEM_CHECK(PyBool_Check(v.ptr()), Type,
                     "requires_grad_(): argument 'requires_grad' (position 1) must be bool, not ",
                     Py_TYPE(v.ptr())->tp_name);
        const Tensor& t = self_tensor(self, "requires_grad_");
        set_requires_grad(t, v.ptr() == Py_True, /*complex_allowed_message=*/false);
        note_leaf_object(t, self);
        return nb::borrow(self);  // the same Python object, as PyTorch returns self
      },
      nb::arg("requires_grad").none() = true);
  tensor.def_prop_ro("is_leaf", [](const Tensor& t) {
    AutogradMeta* m = t.impl()->autograd();
    return !m || !m->grad_fn;
  });
  tensor.def_prop_ro("grad_fn", [](const Tensor& t) -> nb::object {
    autograd::refresh_view_history(t);
    AutogradMeta* m = t.impl()->autograd();
    if (!m || !m->grad_fn) return nb::none();
    return node_object(m->grad_fn);
  });
  tensor.def_prop_rw("grad", &grad_object, &set_grad, nb::arg("value").none());
  // swap_tensors: the weak references these maps hold are not the user's (it refuses objects that have some).
  m.def("_release_tensor_objects", [](nb::handle t) {
    if (!is_tensor(t)) return;
    grad_objects().release(t);
    leaf_objects().release(t);
  });
  tensor.def_prop_ro("retains_grad", [](const Tensor& t) {
    AutogradMeta* m = t.impl()->autograd();
    return m && m->retains_grad;
  });
  tensor.def("retain_grad", &retain_grad);
  tensor.def("register_hook", &register_hook, nb::arg("hook"));
  // Tensor.register_post_accumulate_grad_hook (python/tandem/_tensor_extras.py): the hook goes on the leaf's
  // AccumulateGrad, run after .grad was accumulated. The node is returned for the Python tensor to keep (a
  // leaf holds its accumulator weakly; the node holds the C++ tensor, never its Python object: no cycle).
  m.def("_add_post_accumulate_grad_hook", [](const Tensor& t, nb::object fn) {
    TANDEM_CHECK(t.requires_grad(), Runtime,
                 "cannot register a hook on a tensor that doesn't require gradient");
    TANDEM_CHECK(!t.impl()->autograd()->grad_fn, Runtime,
                 "post accumulate grad hooks cannot be registered on non-leaf tensors");
    std::shared_ptr<Node> acc = autograd::grad_accumulator(t);
    static int64_t next_id = -1;  // negative: the DDP reducer's ids on the same list count up from 0
    const int64_t id = next_id--;
    auto hook = std::make_shared<PythonHook>(std::move(fn));
    static_cast<autograd::AccumulateGrad*>(acc.get())->post_hooks.emplace_back(id, [hook](const Tensor&) {
      nb::gil_scoped_acquire gil;
      hook->fn();
    });
    return nb::make_tuple(node_object(acc), id);
  });
  m.def("_remove_post_accumulate_grad_hook", [](std::shared_ptr<Node> node, int64_t id) {
    auto* acc = dynamic_cast<autograd::AccumulateGrad*>(node.get());
    if (acc) std::erase_if(acc->post_hooks, [id](const auto& h) { return h.first == id; });
  });
  tensor.def_prop_ro("output_nr", [](const Tensor& t) {
    AutogradMeta* m = t.impl()->autograd();
    return m && m->grad_fn ? m->output_nr : 0u;
  });
  tensor.def("detach", &detach);
  // copy.deepcopy(t), as PyTorch's: leaves only; a copy of the data with the same requires_grad and a copy
  // of .grad; memo keeps tensors shared inside a deep-copied container shared in the copy. (Parameter keeps
  // its own __deepcopy__ in Python, to stay a Parameter.)
  tensor.def(
      "__deepcopy__",
      [](nb::handle self, nb::dict memo) -> nb::object {
        const Tensor& t = self_tensor(self, "__deepcopy__");
        AutogradMeta* m = t.impl()->autograd();
        TANDEM_CHECK(
            !m || !m->grad_fn, Runtime,
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at "
            "the moment.  If you were attempting to deepcopy a module, this may be because of a "
            "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001\nhint: "
            "deep-copy t.detach() instead");
        nb::int_ key(reinterpret_cast<uintptr_t>(self.ptr()));  // id(self), the key copy.deepcopy uses
        if (memo.contains(key)) return memo[key];
        Tensor copy = clone(detach(t));
        if (t.requires_grad()) copy.impl()->ensure_autograd().requires_grad = true;
        if (m && m->grad && m->grad->defined()) {
          AutogradMeta& cm = copy.impl()->ensure_autograd();
          cm.grad = std::make_shared<Tensor>(clone(detach(*m->grad)));
        }
        nb::object result = wrap(std::move(copy));
        memo[key] = result;
        return result;
      },
      nb::arg("memo"));
  tensor.def("detach_", [](nb::handle self) {
    if (AutogradMeta* m = self_tensor(self, "detach_").impl()->autograd()) {
      // (tandem knows the views autograd recorded; a view of a tensor without grad is detached in place.)
      TANDEM_CHECK(
          !m->view_base, Runtime,
          "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
          "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
          "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
          "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.");
      m->grad_fn.reset();
      m->requires_grad = false;
      m->output_nr = 0;
    }
    return nb::borrow(self);
  });
  tensor.def_prop_rw("data", &data_of, &autograd::set_data);
  tensor.def(
      "backward",
      [](nb::handle self, nb::handle gradient, nb::handle retain_graph, nb::handle create_graph,
         nb::handle inputs) {
        // The common call here; anything else (flags given as other truth values, inputs as a generator or
        // holding non-tensors) through tandem.autograd.backward, which reads them as PyTorch's does.
        auto tensors_only = [](nb::handle seq) {
          if (!PyList_Check(seq.ptr()) && !PyTuple_Check(seq.ptr())) return false;
          for (nb::handle item : seq)
            if (!is_tensor(item)) return false;
          return true;
        };
        if (!(retain_graph.is_none() || PyBool_Check(retain_graph.ptr())) ||
            !PyBool_Check(create_graph.ptr()) ||
            !(inputs.is_none() || is_tensor(inputs) || tensors_only(inputs))) {
          nb::module_::import_("tandem.autograd")
              .attr("backward")(self, gradient, retain_graph, create_graph, nb::arg("inputs") = inputs);
          return;
        }
        const Tensor& t = as_tensor_ref(self);
        check_inputs_not_empty(inputs);
        std::vector<Tensor> grads;
        if (!gradient.is_none()) grads.push_back(expect_tensor(gradient, "backward", "gradient"));
        const std::optional<bool> retain =
            retain_graph.is_none() ? std::nullopt : std::optional<bool>(retain_graph.ptr() == Py_True);
        autograd::backward({t}, grads, retain, create_graph.ptr() == Py_True,
                           tensor_list(inputs, "backward"));
      },
      nb::arg("gradient") = nb::none(), nb::arg("retain_graph") = nb::none(), nb::arg("create_graph") = false,
      nb::arg("inputs") = nb::none());

  // Live host bytes: lets tests check that a training loop's memory stays flat (no graph kept alive).
  m.def("_cpu_allocated_bytes", [] { return backend_for(DeviceType::CPU).live_bytes(); });  // blocks >= 1 MiB
  m.def("_autograd_live_nodes", &autograd::live_node_count);
  m.def("_record_function", &record_function);
  m.def("is_grad_enabled", &GradMode::is_enabled);
  m.def("_set_grad_enabled", &GradMode::set_enabled);
  m.def("is_inference_mode_enabled", &GradMode::is_inference);
  m.def("_set_inference_mode", &GradMode::set_inference);
  autograd::set_anomaly_callbacks(&format_forward_stack, &warn_anomaly);
  m.def("_graph_reaches_other_leaves", &graph_reaches_other_leaves);
  m.def("is_anomaly_enabled", &autograd::AnomalyMode::is_enabled);
  m.def("is_anomaly_check_nan_enabled", &autograd::AnomalyMode::should_check_nan);
  m.def("set_anomaly_enabled", &autograd::AnomalyMode::set_enabled, nb::arg("enabled"),
        nb::arg("check_nan") = true);
  m.def(
      "_autograd_backward",
      [](nb::handle tensors, nb::handle grad_tensors, std::optional<bool> retain_graph, bool create_graph,
         nb::handle inputs) {
        check_inputs_not_empty(inputs);
        autograd::backward(tensor_list(tensors, "backward"), tensor_list(grad_tensors, "backward"),
                           retain_graph, create_graph, tensor_list(inputs, "backward"));
      },
      nb::arg("tensors"), nb::arg("grad_tensors").none(), nb::arg("retain_graph").none(),
      nb::arg("create_graph"), nb::arg("inputs").none());
  m.def(
      "_autograd_grad",
      [](nb::handle outputs, nb::handle inputs, nb::handle grad_outputs, std::optional<bool> retain_graph,
         bool create_graph, bool allow_unused) {
        std::vector<Tensor> r =
            autograd::grad(tensor_list(outputs, "grad"), tensor_list(inputs, "grad"),
                           tensor_list(grad_outputs, "grad"), retain_graph, create_graph, allow_unused);
        nb::list out;
        for (Tensor& g : r) out.append(g.defined() ? wrap(std::move(g)) : nb::none());
        return nb::tuple(out);
      },
      nb::arg("outputs"), nb::arg("inputs"), nb::arg("grad_outputs").none(), nb::arg("retain_graph").none(),
      nb::arg("create_graph"), nb::arg("allow_unused"));
}

}  // namespace tandem::py
