#include "autograd/node.h"

#include <atomic>
#include <mutex>
#include <thread>

#include "autograd/anomaly_mode.h"
#include "autograd/type_names.h"
#include "core/error.h"
#include "core/memory_overlap.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/layout.h"
#include "ops/view.h"

namespace tandem {

namespace autograd {
namespace {

thread_local uint64_t next_sequence_nr = 0;
thread_local std::vector<std::shared_ptr<Node>>* pending_release = nullptr;

// Drops a reference to a node without recursing: destroying the last reference of a long chain would
// otherwise destroy the whole chain on the C++ stack, one frame per node. The outermost call drains a
// work list; nested destructions (a node's edges, its saved tensors' grad_fns) just append to it.
void release_node(std::shared_ptr<Node>&& n) {
  if (!n) return;
  if (n.use_count() > 1) {
    n.reset();
    return;
  }
  if (pending_release) {
    pending_release->push_back(std::move(n));
    return;
  }
  std::vector<std::shared_ptr<Node>> work;
  pending_release = &work;
  work.push_back(std::move(n));
  while (!work.empty()) {
    std::shared_ptr<Node> last = std::move(work.back());
    work.pop_back();
    last.reset();
  }
  pending_release = nullptr;
}

std::atomic<int64_t> live_nodes{0};

}  // namespace

int64_t live_node_count() { return live_nodes.load(std::memory_order_relaxed); }

Node::Node() : sequence_nr(next_sequence_nr++) {
  live_nodes.fetch_add(1, std::memory_order_relaxed);
  if (__builtin_expect(AnomalyMode::is_enabled(), 0)) forward_trace = capture_forward_trace();
}

Node::~Node() {
  live_nodes.fetch_sub(1, std::memory_order_relaxed);
  for (Edge& e : next_edges) release_node(std::move(e.fn));
}

std::string legacy_type_name(DType dtype, Device device) {
  switch (dtype) {
    case DType::UInt8:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
    case DType::Float16:
    case DType::Float32:
    case DType::Float64:
      return std::string("torch.") + (device.is_cpu() ? "" : "cuda.") + std::string(dtype_title(dtype)) +
             "Tensor";
    default:
      return std::string(device.is_cpu() ? "CPU" : "CUDA") + std::string(dtype_title(dtype)) + "Type";
  }
}

std::string legacy_type_name(const Tensor& t) { return legacy_type_name(t.dtype(), t.device()); }

namespace {
thread_local SavedTensorHooks* saved_tensor_hooks = nullptr;
}  // namespace

SavedTensorHooks* current_saved_tensor_hooks() { return saved_tensor_hooks; }
void set_current_saved_tensor_hooks(SavedTensorHooks* hooks) { saved_tensor_hooks = hooks; }

struct SavedTensor::Hooked {
  std::shared_ptr<PackedTensor> packed;
  Edge history;
};

SavedTensor::SavedTensor(const Tensor& t, bool is_output) : is_output_(is_output) {
  if (!t.defined()) return;
  TANDEM_CHECK(
      !t.storage()->is_inference() || InferenceMode::is_enabled(), Runtime,
      "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference "
      "mode in computation tracked by autograd. To work around this, you can make a clone to get a normal "
      "tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.\nhint: "
      "x.clone() outside inference_mode is a normal tensor");
  version_ = t.version();
  if (is_output) output_nr_ = t.impl()->autograd() ? t.impl()->autograd()->output_nr : 0;
  if (__builtin_expect(saved_tensor_hooks != nullptr, 0)) {
    pack_with_hooks(*saved_tensor_hooks, t);
    return;
  }
  data_ = is_output ? alias(t) : t;
  nonleaf_input_ = !is_output && t.impl()->autograd() && t.impl()->autograd()->grad_fn;
}

void SavedTensor::pack_with_hooks(SavedTensorHooks& hooks, const Tensor& t) {
  auto hooked = std::make_shared<Hooked>();
  // The hook sees an output without its autograd state (so a hook that keeps it makes no cycle through this
  // node); an input as it is, its gradient edge kept to re-attach the unpacked tensor under create_graph.
  if (!is_output_ && t.requires_grad()) hooked->history = gradient_edge(t);
  {
    GradModeGuard off(false);  // the hook's own ops record nothing (and save nothing through it)
    hooked->packed = hooks.pack(is_output_ ? alias(t) : t);
  }
  TANDEM_CHECK(
      t.version() == version_, Runtime,
      "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook "
      "cannot be modified by in-place operations as this can lead to unexpected side-effects. Please "
      "open an issue if you need to perform in-place operations on the input to a pack hook.\nhint: "
      "let the pack hook copy the tensor (t.clone()) and change the copy");
  hooked_ = std::move(hooked);
}

Tensor SavedTensor::unpack_hooked(const Node& owner) const {
  Tensor t = hooked_->packed->unpack();
  // As PyTorch, no version check: the hooks decide what is stored (a copy may rightly outlive later writes).
  if (!GradMode::is_enabled()) return t;
  // Recording a graph of the backward pass: the unpacked tensor leads where the saved one did.
  Tensor r = alias(t);
  if (is_output_) {
    AutogradMeta& m = r.impl()->ensure_autograd();
    m.requires_grad = true;
    m.grad_fn = std::const_pointer_cast<Node>(owner.shared_from_this());
    m.output_nr = output_nr_;
  } else if (hooked_->history.fn) {
    AutogradMeta& m = r.impl()->ensure_autograd();
    m.requires_grad = true;
    m.grad_fn = hooked_->history.fn;
    m.output_nr = hooked_->history.input_nr;
  }
  return r;
}

Tensor SavedTensor::unpack(const Node& owner) const {
  TANDEM_CHECK(
      !released_, Runtime,
      "Trying to backward through the graph a second time (or directly access saved tensors after they "
      "have already been freed). Saved intermediate values of the graph are freed when you call "
      ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
      "graph a second time or if you need to access saved tensors after calling backward.\nhint: pass "
      "retain_graph=True to the first backward()/autograd.grad() call, or run the forward pass again "
      "before each backward");
  if (hooked_) return unpack_hooked(owner);
  if (!data_.defined()) return data_;
  if (nonleaf_input_) {
    const AutogradMeta* m = data_.impl()->autograd();
    TANDEM_CHECK(m && m->grad_fn, Runtime,
                 "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is "
                 "not supported, please use out-of-place `.detach()` instead",
                 "\nhint: ", owner.name(),
                 " saved this tensor before detach_() cut it from the graph: "
                 "detach a copy (t.detach()) and keep t as it is until backward");
  }
  if (data_.version() != version_) {
    // PyTorch names the op without its "Backward0" suffix: the saving node for outputs, the tensor's
    // current grad_fn for inputs.
    // (its other numbered nodes keep the number: ClampBackward1 is "Clamp1"; CopyBackwards is not numbered)
    auto op_name = [](const Node& n) {
      std::string s = n.name();
      const size_t pos = s.rfind("Backward");
      if (pos == std::string::npos) return s;
      const std::string number = s.substr(pos + 8);
      if (number.empty() || number == "0") return s.substr(0, pos);
      const bool digits = number.find_first_not_of("0123456789") == std::string::npos;
      return digits ? s.substr(0, pos) + number : s;
    };
    std::string which;
    if (is_output_) {
      which = ", which is output " + std::to_string(output_nr_) + " of " + op_name(owner) + ",";
    } else if (auto* m = data_.impl()->autograd(); m && m->grad_fn) {
      which = ", which is output " + std::to_string(m->output_nr) + " of " + op_name(*m->grad_fn) + ",";
    }
    TANDEM_THROW(Runtime,
                 "one of the variables needed for gradient computation has been modified by an inplace "
                 "operation: [",
                 legacy_type_name(data_), " ", data_.shape_str(), "]", which, " is at version ",
                 data_.version(), "; expected version ", version_, " instead. Hint: ",
                 AnomalyMode::is_enabled()
                     ? "the backtrace further above shows the operation that failed to compute its gradient. "
                       "The variable in question was changed in there or anywhere later. Good luck!"
                     : "enable anomaly detection to find the operation that failed to compute its gradient, "
                       "with torch.autograd.set_detect_anomaly(True, check_nan=False).",
                 "\nhint: ", owner.name(),
                 " needs this tensor's value from before the in-place change; use the out-of-place op (e.g. "
                 "y = y + 1 instead of y += 1) or .clone() the tensor before modifying it");
  }
  if (!is_output_ || !GradMode::is_enabled()) return data_;
  // Recording a graph of the backward pass: the output must lead back to its node again.
  Tensor t = alias(data_);
  AutogradMeta& m = t.impl()->ensure_autograd();
  m.requires_grad = true;
  m.grad_fn = std::const_pointer_cast<Node>(owner.shared_from_this());
  m.output_nr = output_nr_;
  return t;
}

AccumulateGrad::AccumulateGrad(Tensor v) : variable(std::move(v)) {
  sequence_nr = UINT64_MAX;  // run as soon as ready, so .grad is filled early (as PyTorch does)
  outputs.push_back({variable.sizes(), variable.dtype(), variable.device()});
}

Tensor run_leaf_hooks(const Tensor& leaf, Tensor grad) {
  AutogradMeta* m = leaf.impl()->autograd();
  if (!m) return grad;
  for (size_t i = 0; i < m->hooks.size(); ++i) {
    Tensor r = m->hooks[i].second(grad);
    if (r.defined()) grad = std::move(r);
  }
  return grad;
}

void accumulate_into(Tensor& slot, const Tensor& grad) {
  if (!slot.defined()) {
    // Keep the graph only when it is being recorded (create_graph); never alias memory the caller holds.
    if (GradMode::is_enabled())
      slot = grad;
    else
      slot = grad.impl()->use_count() == 1 && grad.storage()->use_count() == 1 && grad.is_contiguous() &&
                     !grad.impl()->autograd()
                 ? grad
                 : clone(grad);
    return;
  }
  if (GradMode::is_enabled())
    slot = add(slot, grad);
  else
    add_(slot, grad);
}

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor>&& grads) {
  Tensor g = std::move(grads[0]);  // the leaf's hooks already ran (the engine runs them as tensor pre-hooks)
  // A leaf whose requires_grad was turned off after the graph used it (requires_grad_(False), detach_()) gets
  // nothing, as in PyTorch.
  if (!variable.requires_grad()) return {};
  AutogradMeta& m = variable.impl()->ensure_autograd();
  if (!m.grad) m.grad = std::make_shared<Tensor>();
  grads.clear();
  // PyTorch's layout contract: a first gradient stored without a graph takes the strides of a leaf laid out
  // densely in another order than row-major (a channels_last weight gets a channels_last grad).
  const DimVector layout =
      m.grad->defined() || GradMode::is_enabled() || !is_non_overlapping_and_dense(variable)
          ? DimVector{}
          : preserved_strides(variable);
  if (!m.grad->defined() && (GradMode::is_enabled() || g.sizes() != variable.sizes())) {
    // Under create_graph, PyTorch's AccumulateGrad stores a differentiable copy laid out as the leaf (its
    // clone_obey_contract, grad_fn CopyBackwards), never the incoming gradient itself, which may be a view (a
    // matmul's transposed gradient): optimizers call .view() and .detach_() on it. So it does for a leaf
    // whose shape changed since the graph used it (t_() or unsqueeze_() under no_grad, a .data of another
    // shape): the gradient is copied into the leaf's current shape, broadcast or refused with copy_'s size
    // error.
    Tensor out = is_non_overlapping_and_dense(variable)
                     ? empty_laid_out(variable.sizes(), variable.strides(), g.dtype(), g.device())
                     : empty(variable.sizes(), g.dtype(), g.device());
    copy_(out, g);
    *m.grad = out;
  } else if (layout.empty()) {
    accumulate_into(*m.grad, g);
  } else {
    *m.grad = empty_laid_out(variable.sizes(), layout, g.dtype(), g.device());
    copy_elements(*m.grad, g);
  }
  for (const auto& hook : post_hooks) hook.second(variable);
  return {};
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  AutogradMeta& m = leaf.impl()->ensure_autograd();
  if (auto acc = m.grad_accumulator.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(leaf);
  m.grad_accumulator = acc;
  return acc;
}

void set_data(const Tensor& self, const Tensor& src) {
  self.impl()->set_storage(src.storage(), src.dtype());
  self.impl()->set_geometry(src.storage_offset(), src.sizes(), src.strides());
  // The leaf's AccumulateGrad fits incoming gradients to the metadata it recorded (engine.cpp); it follows
  // new data of another dtype or device, so the node, and the post-accumulate hooks on it, stay. A new shape
  // alone leaves the metadata, as PyTorch's: the gradient of the old shape reaches AccumulateGrad, which
  // copies it into the leaf's new shape (or refuses it with copy_'s size error).
  if (AutogradMeta* m = self.impl()->autograd())
    if (std::shared_ptr<Node> acc = m->grad_accumulator.lock())
      if (OutputMeta& meta = acc->outputs[0]; meta.dtype != src.dtype() || meta.device != src.device())
        meta = {src.sizes(), src.dtype(), src.device()};
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return {};
  AutogradMeta* m = t.impl()->autograd();
  if (!m || !m->requires_grad) return {};
  if (m->view_base) refresh_view_history(t);
  if (m->grad_fn) return {m->grad_fn, m->output_nr};
  return {grad_accumulator(t), 0};
}

void move_retained_grad(AutogradMeta& m, const std::shared_ptr<Node>& node, uint32_t output_nr) {
  if (!m.retains_grad || !m.grad_fn || m.grad_fn == node) return;
  auto& old = m.grad_fn->retained;
  for (auto it = old.begin(); it != old.end(); ++it)
    if (it->first == m.output_nr && it->second == m.grad) {
      old.erase(it);
      break;
    }
  node->retained.emplace_back(output_nr, m.grad);
}

void set_history(const std::shared_ptr<Node>& node, std::initializer_list<const Tensor*> inputs,
                 std::initializer_list<const Tensor*> outputs) {
  set_history(node, std::vector<const Tensor*>(inputs), outputs);
}

void set_history(const std::shared_ptr<Node>& node, const std::vector<const Tensor*>& inputs,
                 std::initializer_list<const Tensor*> outputs) {
  bool complex_involved = false;
  for (const Tensor* in : inputs) complex_involved |= in && in->defined() && is_complex(in->dtype());
  for (const Tensor* out : outputs) complex_involved |= is_complex(out->dtype());
  if (__builtin_expect(complex_involved, 0)) check_complex_formula(*node);
  node->next_edges.reserve(inputs.size());
  for (const Tensor* in : inputs) node->next_edges.push_back(in ? gradient_edge(*in) : Edge{});
  uint32_t nr = 0;
  node->outputs.reserve(outputs.size());
  for (const Tensor* out : outputs) {
    node->outputs.push_back({out->sizes(), out->dtype(), out->device()});
    if (is_differentiable(out->dtype())) {
      AutogradMeta& m = out->impl()->ensure_autograd();
      m.requires_grad = true;
      move_retained_grad(m, node, nr);
      m.grad_fn = node;
      m.output_nr = nr;
    }
    ++nr;
  }
}

namespace {
// Guards every AutogradMeta::tracked_views (views may die on any thread). A spin lock: each guarded section
// is a few instructions, and a pthread mutex's lock/unlock pair was a tenth of the cost of t[0] (tracked
// views).
class SpinLock {
 public:
  void lock() {
    while (flag_.test_and_set(std::memory_order_acquire)) std::this_thread::yield();
  }
  void unlock() { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};
SpinLock tracked_views_lock;

size_t tracked_view_count(const Tensor& base) {
  const AutogradMeta* bm = base.impl()->autograd();
  if (!bm) return 0;
  std::lock_guard<SpinLock> lock(tracked_views_lock);
  return bm->tracked_views.size();
}
}  // namespace

void check_no_grad_view_write(const Tensor& x, bool value_requires_grad) {
  const TensorImpl* impl = x.impl();
  const ViewCreation creation = impl->view_creation();
  if (creation == ViewCreation::Default || creation == ViewCreation::InCustomFunction ||
      creation == ViewCreation::MultiOutput || !GradMode::is_enabled())
    return;  // (a view of a custom Function's view output is check_inplace's case)
  // A view that has history of its own (a custom Function's output, made in its no_grad forward) is
  // check_inplace's case, with PyTorch's message for it.
  if (impl->autograd() && impl->autograd()->requires_grad) return;
  if (!value_requires_grad) {
    const AutogradMeta* root = impl->view_base() ? impl->view_base()->autograd() : nullptr;
    if (!root || !root->requires_grad) return;
  }
  const char* mode = creation == ViewCreation::InferenceMode ? "inference" : "no_grad";
  const char* block = creation == ViewCreation::InferenceMode ? "inference_mode" : "no_grad";
  const std::string what = creation == ViewCreation::FromNoGradView
                               ? std::string("Output 0 of ") + impl->view_op() +
                                     " is a view of a view which was created in no_grad mode"
                               : std::string("A view was created in ") + mode + " mode";
  TANDEM_THROW(
      Runtime, what, " and is being modified inplace ",
      creation == ViewCreation::InferenceMode ? "in normal mode" : "with grad mode enabled",
      ". Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code "
      "by moving both the view and the inplace either both inside the ",
      block,
      " block (if you don't want the inplace to be tracked) or both outside (if you want the inplace to "
      "be tracked).\nhint: make the view outside the ",
      block, " block, or write into a clone() of it");
}

namespace {
[[noreturn]] void throw_custom_function_view_write(uint32_t output_nr, const std::string& made_by) {
  TANDEM_THROW(Runtime, "Output ", output_nr, " of ", made_by,
               " is a view and is being modified inplace. This view was created inside a custom Function (or "
               "because an input was returned as-is) and the autograd logic to handle view+inplace would "
               "override the custom backward associated with the custom Function, leading to incorrect "
               "gradients. This behavior is forbidden. You can fix this by cloning the output of the custom "
               "Function.\nhint: return x.clone() (not x or a view of it) from forward, or write into "
               "out.clone()");
}
}  // namespace

namespace {
constexpr const char* kMultiOutputViewWrite =
    " is a view and is being modified inplace. This view is the output of a function that returns multiple "
    "views. Such functions do not allow the output views to be modified inplace. You should replace the "
    "inplace "
    "operation by an out-of-place one.\nhint: write into a clone() of the piece, or index the base instead "
    "(x[:, :2].add_(1) rather than x.split(2, 1)[0].add_(1))";
}  // namespace

void check_inplace(const Tensor& self) {
  if (!GradMode::is_enabled()) return;
  check_no_grad_view_write(self, true);
  AutogradMeta* m = self.impl()->autograd();
  if (!m || !m->requires_grad) {
    // A value that requires grad is written into a plain tensor. If other tensors share its memory (it is a
    // view, or has views), they would see the values without the history: refuse rather than lose gradients.
    // The tracked views of a plain base (track_view_write) and the base itself are the exception: the write
    // gives all of them their history (rebase_history). So is `.data` (a counter of its own): as in PyTorch,
    // the alias takes the history and the tensor it came from only sees the values (an EMA update written
    // through p.data keeps p a leaf).
    if (self.impl()->has_own_version()) return;
    const size_t sharers = 1 + tracked_view_count(m && m->view_base ? Tensor(m->view_base) : self);
    TANDEM_CHECK(
        self.storage()->use_count() == sharers, NotImplemented,
        "an in-place write of a tensor that requires grad into a tensor that shares memory with others "
        "(a view or a viewed tensor) is not supported by tandem's autograd\nhint: build the result out "
        "of place (e.g. with tandem.where or tandem.cat), or clone() the target first");
    return;
  }
  // (A leaf that is itself a view, made requires_grad after it was taken, is "a view of a leaf" in PyTorch's
  // words.)
  // A view of an output of unbind/split/chunk (PyTorch names the view's own op, as output 0), before the leaf
  // check, as PyTorch's view handling comes first.
  TANDEM_CHECK(self.impl()->view_creation() != ViewCreation::MultiOutput, Runtime, "Output 0 of ",
               self.impl()->view_op(), kMultiOutputViewWrite);
  TANDEM_CHECK(m->grad_fn, Runtime, self.impl()->view_base() ? "a view of a" : "a",
               " leaf Variable that requires grad is being used in an in-place operation.\nhint: wrap the "
               "update in `with tandem.no_grad():` (as optimizers do), or use the out-of-place op");
  TANDEM_CHECK(!m->grad_fn->multi_output_view, Runtime, "Output ", m->grad_fn->multi_output_index, " of ",
               m->grad_fn->multi_output_view, kMultiOutputViewWrite);
  if (m->grad_fn->output_is_custom_view(m->output_nr)) {
    std::string function = m->grad_fn->name();  // the Function's class name + "Backward"
    if (function.size() > 8 && function.compare(function.size() - 8, 8, "Backward") == 0)
      function.resize(function.size() - 8);
    throw_custom_function_view_write(m->output_nr, function);
  }
  // A view of such an output (or of a view of one): PyTorch names the view's own op ("Output 0 of View").
  if (self.impl()->view_creation() == ViewCreation::InCustomFunction)
    throw_custom_function_view_write(0, self.impl()->view_op());
  TANDEM_CHECK(!m->view_of_leaf, Runtime,
               "a view of a leaf Variable that requires grad is being used in an in-place operation.\nhint: "
               "wrap the update in `with tandem.no_grad():`, or use the out-of-place op");
}

namespace {

// The gradient of a view's region inside its (contiguous) base: a view of a contiguous copy of `grad`.
Tensor region_of(const Tensor& base_shaped, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  return make_view(base_shaped, sizes, strides, base_shaped.storage_offset() + offset);
}

// A contiguous base-shaped tensor read in the view's dtype, for views whose dtype differs from their base's
// (.real/.imag/view_as_real of a complex tensor, view_as_complex of a real one): the same memory as real
// pairs or as complex numbers. Sizes, strides and offsets of such a view count elements of its own dtype.
Tensor in_view_dtype(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t;
  if (is_complex(t.dtype())) return view_as_real(t);
  return view_as_complex(reshape(t, DimVector{t.numel() / 2, 2}));
}

// The view's offset from its base's start, in elements of the view's dtype.
int64_t offset_in_base(const Tensor& view, const Tensor& base) {
  const auto base_bytes = static_cast<int64_t>(element_size(base.dtype())) * base.storage_offset();
  return view.storage_offset() - base_bytes / static_cast<int64_t>(element_size(view.dtype()));
}

// After an in-place write into a view V of base B (PyTorch's CopySlices): B's new value is its old value
// outside V's region and the written result inside it. Gradients: the old B gets the gradient with the
// region zeroed, the result gets the region. Computed with raw ops (no graph of this backward is recorded).
struct CopySlices final : Node {
  std::string name() const override { return "torch::autograd::CopySlices"; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    GradModeGuard off(false);
    // base-shaped and laid out as the base (dense, maybe permuted), so the view's geometry finds its region
    Tensor g = empty_laid_out(grads[0].sizes(), base_strides, grads[0].dtype(), grads[0].device());
    copy_(g, grads[0]);
    Tensor g_view = in_view_dtype(g, view_dtype);
    std::vector<Tensor> r(2);
    if (needs_input_grad(1)) r[1] = clone(region_of(g_view, sizes, strides, offset));
    if (needs_input_grad(0)) {
      fill_(region_of(g_view, sizes, strides, offset), Scalar(0.0));
      r[0] = g;
    }
    return r;
  }
  DimVector base_strides, sizes, strides;
  int64_t offset = 0;
  DType view_dtype = DType::Float32;
};

// The view's new history: a view of its base's new value.
struct AsStridedBackward final : Node {
  std::string name() const override { return "AsStridedBackward0"; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    GradModeGuard off(false);
    Tensor z = fill_(empty_laid_out(base_sizes, base_strides, base_dtype, grads[0].device()), Scalar(0.0));
    copy_(region_of(in_view_dtype(z, grads[0].dtype()), sizes, strides, offset), grads[0]);
    return {z};
  }
  DimVector base_sizes, base_strides, sizes, strides;
  int64_t offset = 0;
  DType base_dtype = DType::Float32;
};

}  // namespace

void track_view_write(const Tensor& base, const Tensor& view) {
  if (view.is_same(base)) return;
  // A view of a tracked view is tracked against the same base (out = zeros(4, 4)[:, :3]; out[:, 0] += a):
  // PyTorch's views all point at the tensor that owns the memory.
  const AutogradMeta* bm = base.impl()->autograd();
  if (bm && bm->requires_grad) return;  // its views are recorded as ops
  // (A reference, not a Tensor: x[i] is among the hottest calls, and each copy is two atomic operations.)
  const IntrusivePtr<TensorImpl>& root = bm && bm->view_base ? bm->view_base : base.impl_ptr();
  // CopySlices needs a dense base; otherwise check_inplace refuses the write before it happens.
  if (!root->is_contiguous() && !non_overlapping_and_dense(Tensor(root))) return;
  AutogradMeta& vm = view.impl()->ensure_autograd();
  if (vm.view_base) return;
  vm.view_base = root;
  vm.tracked_self = view.impl();
  AutogradMeta& rm = root->ensure_autograd();
  std::lock_guard<SpinLock> lock(tracked_views_lock);
  vm.tracked_index = rm.tracked_views.size();
  rm.tracked_views.push_back(&vm);
}

namespace {
// A base whose views' gradients CopySlices and AsStridedBackward can place: dense (every element once, maybe
// in a permuted order: x.t().clone()), laid out again as the base for its gradient. A view of another dtype
// (.real, view_as_complex) needs the row-major layout its reinterpretation assumes.
bool dense_base(const Tensor& base, DType view_dtype) {
  if (view_dtype != base.dtype())
    return base.is_contiguous() && base.strides() == contiguous_strides(base.sizes());
  return base.is_contiguous() || non_overlapping_and_dense(base);
}

// The view's history becomes "a region of its base's current value".
void set_view_history_from_base(const Tensor& view, const Tensor& base) {
  auto as_strided = std::make_shared<AsStridedBackward>();
  as_strided->base_sizes = base.sizes();
  as_strided->base_strides = base.strides();
  as_strided->sizes = view.sizes();
  as_strided->strides = view.strides();
  as_strided->offset = offset_in_base(view, base);
  as_strided->base_dtype = base.dtype();
  set_history(as_strided, {&base}, {&view});
  view.impl()->autograd()->view_version = view.version();
}
}  // namespace

namespace {
// After a write with history into a plain base or one of its tracked views: every other tracked view becomes
// a region of the base's new value (requires_grad, AsStridedBackward), as in PyTorch.
void give_tracked_views_history(const Tensor& base, const Tensor& written) {
  const AutogradMeta* bm = base.impl()->autograd();
  if (!bm) return;
  std::vector<Tensor> views;
  {
    std::lock_guard<SpinLock> lock(tracked_views_lock);
    for (const AutogradMeta* vm : bm->tracked_views)
      if (vm->tracked_self != written.impl()) views.emplace_back(IntrusivePtr<TensorImpl>(vm->tracked_self));
  }
  for (const Tensor& view : views)
    if (dense_base(base, view.dtype())) set_view_history_from_base(view, base);
}
}  // namespace

void rebase_view(const Tensor& view, const Tensor& result) {
  const Tensor base(view.impl()->autograd()->view_base);
  TANDEM_CHECK(dense_base(base, view.dtype()), NotImplemented,
               "in-place operation on a view of a non-contiguous tensor that requires grad is not supported\n"
               "hint: call .contiguous() on the tensor before taking the view, or use the out-of-place op");
  auto copy_slices = std::make_shared<CopySlices>();
  copy_slices->base_strides = base.strides();
  copy_slices->sizes = view.sizes();
  copy_slices->strides = view.strides();
  copy_slices->offset = offset_in_base(view, base);
  copy_slices->view_dtype = view.dtype();
  set_history(copy_slices, {&base, &result}, {&base});
  set_view_history_from_base(view, base);
  give_tracked_views_history(base, view);
}

void refresh_view_history(const Tensor& t) {
  AutogradMeta* m = t.impl()->autograd();
  if (!m || !m->view_base || !m->grad_fn || m->view_version == t.version()) return;
  // Written since its history was recorded (through the base or another view of it, e.g. b = a[1];
  // a.mul_(2)): its old grad_fn describes the old values. As PyTorch does, rebuild it from the base's current
  // history. (A base that is not dense cannot be described by AsStridedBackward; its views keep theirs.)
  const Tensor base(m->view_base);
  if (dense_base(base, t.dtype())) set_view_history_from_base(t, base);
}

Tensor rebase_history(const Tensor& self, const Tensor& result) {
  {
    GradModeGuard off(false);
    copy_(self, result);
  }
  AutogradMeta* sm = self.impl()->autograd();
  if (sm && sm->view_base) {
    rebase_view(self, result);
    return self;
  }
  AutogradMeta* rm = result.impl()->autograd();
  if (!rm || !rm->grad_fn) return self;
  AutogradMeta& m = self.impl()->ensure_autograd();
  m.requires_grad = true;
  move_retained_grad(m, rm->grad_fn, rm->output_nr);
  m.grad_fn = rm->grad_fn;
  m.output_nr = rm->output_nr;
  give_tracked_views_history(self, self);
  return self;
}

}  // namespace autograd

AutogradMeta::~AutogradMeta() {
  if (tracked_self) {  // a tracked view leaves its base's list (view_base keeps the base alive until now)
    std::lock_guard<autograd::SpinLock> lock(autograd::tracked_views_lock);
    std::vector<AutogradMeta*>& views = view_base->autograd()->tracked_views;
    views[tracked_index] = views.back();
    views[tracked_index]->tracked_index = tracked_index;
    views.pop_back();
  }
  autograd::release_node(std::move(grad_fn));
}

}  // namespace tandem
