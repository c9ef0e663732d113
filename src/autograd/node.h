// The graph: a Node per recorded op, holding the edges to the nodes of its differentiable inputs and the
// tensors its formula needs (SavedTensor, version-checked). Leaves end in an AccumulateGrad node.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autograd/grad_mode.h"
#include "core/tensor.h"

namespace tandem::autograd {

struct Node;

// Where a gradient goes: input `input_nr` of `fn` (fn is null for inputs that do not require grad).
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
};

// Shape, dtype and device of one output, kept so the engine can check, reduce (broadcast) and cast the
// gradients that arrive for it, and zero-fill a missing one.
struct OutputMeta {
  DimVector sizes;
  DType dtype;
  Device device;
};

// What a saved-tensors pack hook made of a saved tensor (tandem.autograd.graph.saved_tensors_hooks): the node
// keeps it instead of the tensor and asks it for a tensor again in backward (the unpack hook).
struct PackedTensor {
  virtual ~PackedTensor() = default;
  virtual Tensor unpack() const = 0;
};

// A pack/unpack pair of saved-tensors hooks (the binding implements it for Python callables).
struct SavedTensorHooks {
  virtual ~SavedTensorHooks() = default;
  virtual std::shared_ptr<PackedTensor> pack(const Tensor& t) = 0;
};

// The innermost pair of hooks active on this thread, or null (then tensors are saved as they are). The
// binding keeps the stack of pairs and sets the innermost one here.
SavedTensorHooks* current_saved_tensor_hooks();
void set_current_saved_tensor_hooks(SavedTensorHooks* hooks);

// A tensor saved for backward. Saving one of the node's own outputs keeps only an alias without autograd
// state (the output holds the node, so holding the output back would be a cycle); unpacking re-attaches
// the node when a graph of the backward pass is being recorded (create_graph). While saved-tensors hooks are
// active the tensor goes through their pack hook instead, and back through the unpack hook.
class SavedTensor {
 public:
  SavedTensor() = default;
  SavedTensor(const Tensor& t, bool is_output);
  // `owner` is the node this tensor is saved in (used for outputs and for error messages).
  Tensor unpack(const Node& owner) const;
  void release() {
    data_ = Tensor();
    hooked_.reset();
    released_ = true;
  }

 private:
  // A tensor saved through hooks: what the pack hook returned, and where the saved input's gradient goes (for
  // re-attaching the unpacked tensor when a graph of the backward pass is recorded).
  struct Hooked;
  void pack_with_hooks(SavedTensorHooks& hooks, const Tensor& t);
  Tensor unpack_hooked(const Node& owner) const;

  Tensor data_;
  std::shared_ptr<const Hooked> hooked_;
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool released_ = false;
  // An input with history when saved: PyTorch refuses to unpack it once detach_() took that history away.
  bool nonleaf_input_ = false;
};

// Hooks on a node itself (grad_fn.register_prehook / register_hook), run by the engine around the node's
// apply: a pre-hook may replace the gradients that arrived for the node's outputs (undefined: none arrived),
// a post-hook the gradients computed for its inputs (it also sees those that arrived).
struct NodeHooks {
  using Pre = std::function<void(std::vector<Tensor>& grad_outputs)>;
  using Post = std::function<void(std::vector<Tensor>& grad_inputs, const std::vector<Tensor>& grad_outputs)>;
  std::vector<std::pair<int, Pre>> pre;
  std::vector<std::pair<int, Post>> post;
};

// What a language binding attaches to a node (Python: the grad_fn.metadata dict); destroyed with the node.
struct NodeBindingState {
  virtual ~NodeBindingState() = default;
};

struct Node : std::enable_shared_from_this<Node> {
  Node();
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // PyTorch's name for the node, e.g. "AddBackward0".
  virtual std::string name() const = 0;
  // grads: one per output (zero-filled where none arrived). Returns one gradient per next edge; an
  // undefined Tensor means "no gradient" for that input.
  virtual std::vector<Tensor> apply(std::vector<Tensor>&& grads) = 0;
  // True for a node whose apply() zero-fills itself and needs to know which outputs got no gradient (the
  // several-output linear algebra formulas: PyTorch's `if (gV.defined())`, where 0 / 0 would be NaN).
  virtual bool fills_missing_gradients() const { return false; }
  // True for an output of a custom Function that shares memory with one of its inputs (a view made in
  // forward, or an input returned as is): an in-place write into it is refused, as it would bypass the
  // Function's backward (PyTorch's rule).
  virtual bool output_is_custom_view(uint32_t /*output_nr*/) const { return false; }
  // Drops saved tensors after the backward pass used them (unless retain_graph).
  virtual void release_saved() {}

  // True when input i of the forward op requires grad (formulas skip the others).
  bool needs_input_grad(size_t i) const { return i < next_edges.size() && next_edges[i].fn; }

  std::vector<Edge> next_edges;
  std::vector<OutputMeta> outputs;
  // Hooks of non-leaf outputs registered with register_hook: (output_nr, id, fn), run in order.
  struct PreHook {
    uint32_t output_nr;
    int id;
    TensorHook fn;
  };
  std::vector<PreHook> pre_hooks;
  // retain_grad() slots: the gradient of output_nr is stored (accumulated) into *slot.
  std::vector<std::pair<uint32_t, std::shared_ptr<Tensor>>> retained;
  uint64_t sequence_nr;  // creation order: the engine runs later nodes first among ready ones
  // Where the forward pass created this node; recorded only in anomaly mode (see anomaly_mode.h).
  std::unique_ptr<const std::string> forward_trace;
  // Null unless hooks were registered on the node itself / the binding attached state to it.
  std::unique_ptr<NodeHooks> hooks;
  std::unique_ptr<NodeBindingState> binding_state;
  // For the view node of one output of a function returning several views (split, chunk, unbind): PyTorch's
  // name of that function ("Split", "SplitWithSizes", "Unbind") and the output's position. In-place writes
  // into such an output are refused (check_inplace), as PyTorch refuses them: one output's write would have
  // to rebase the history of its siblings.
  const char* multi_output_view = nullptr;
  int64_t multi_output_index = 0;
};

// The node that adds a leaf's gradient into its .grad (the engine runs the leaf's hooks before it).
struct AccumulateGrad final : Node {
  explicit AccumulateGrad(Tensor variable);
  std::string name() const override { return "torch::autograd::AccumulateGrad"; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override;
  Tensor variable;
  // Run after each accumulation into .grad, with the leaf (the DDP reducer marks its parameter ready here).
  // Whoever adds one keeps this node alive (a leaf holds its accumulator weakly) and removes it by id.
  std::vector<std::pair<int64_t, std::function<void(const Tensor&)>>> post_hooks;
};

// Runs a leaf's hooks on `grad` (each may replace it).
Tensor run_leaf_hooks(const Tensor& leaf, Tensor grad);
// Adds `grad` into *slot (stores a detached/owned copy the first time), as .grad accumulation does.
void accumulate_into(Tensor& slot, const Tensor& grad);

// The (shared) AccumulateGrad of a leaf that requires grad.
std::shared_ptr<Node> grad_accumulator(const Tensor& leaf);
// `self.data = src` (PyTorch's set_data): self now views src's memory, dtype and geometry, keeping its
// identity and autograd state. A leaf moved to another device or dtype gets its gradients there from then on,
// also through a graph recorded before the move.
void set_data(const Tensor& self, const Tensor& src);
// Where the gradient of `t` goes: its grad_fn, its AccumulateGrad, or nowhere (fn null).
Edge gradient_edge(const Tensor& t);

// ---- recording (used by op front ends) ----

// The dtypes that carry gradients: floating and complex (integer and bool results get no grad_fn).
inline bool is_differentiable(DType d) { return is_floating(d) || is_complex(d); }

// The hot-path test: true only when grad mode is on and some input requires grad.
inline bool requires_grad_fast(const Tensor& t) {
  const AutogradMeta* m = t.defined() ? t.impl()->autograd() : nullptr;
  return m && m->requires_grad;
}
inline bool requires_grad_fast(const Tensor* t) { return t && requires_grad_fast(*t); }
template <typename... Ts>
inline bool should_record(const Ts&... ts) {
  return __builtin_expect((requires_grad_fast(ts) || ...), 0) && GradMode::is_enabled();
}

// Raises NotImplementedError unless `node`'s formula is known to hold for complex tensors
// (complex_formulas.cpp); set_history calls it when a complex tensor enters or leaves the node.
void check_complex_formula(const Node& node);

// Attaches `node` as the grad_fn of `outputs` (outputs of other dtypes than floating/complex are left alone),
// with one next edge per entry of `inputs` (undefined tensors and tensors that do not require grad get a null
// edge).
void set_history(const std::shared_ptr<Node>& node, std::initializer_list<const Tensor*> inputs,
                 std::initializer_list<const Tensor*> outputs);
// The same for a list of inputs whose length is known only at run time (cat, stack).
void set_history(const std::shared_ptr<Node>& node, const std::vector<const Tensor*>& inputs,
                 std::initializer_list<const Tensor*> outputs);
inline Tensor record(const std::shared_ptr<Node>& node, std::initializer_list<const Tensor*> inputs,
                     const Tensor& out) {
  set_history(node, inputs, {&out});
  return out;
}

// "a leaf Variable that requires grad is being used in an in-place operation." when it applies.
void check_inplace(const Tensor& self);
// PyTorch's refusal of an in-place write through a view made while autograd was off (under no_grad or
// inference_mode, or later from such a view: ops/view.h's view_made_by), with grad mode on, when the write
// would have to be recorded: the view's base requires grad, or the value written does
// (`value_requires_grad`). Called before every in-place write (check_writeable) and by check_inplace.
void check_no_grad_view_write(const Tensor& x, bool value_requires_grad);
// After an in-place op computed `result` (with history) for `self`: self takes result's values and history.
// When self is a recorded view, its base's history is re-based instead (see rebase_view).
Tensor rebase_history(const Tensor& self, const Tensor& result);
// Before a tensor's grad_fn is replaced by output `output_nr` of `node` (an in-place write, a view's history
// rebuilt from its base): a retain_grad() moves along, as PyTorch's does, so .grad is the gradient of the
// tensor's value after the write.
void move_retained_grad(AutogradMeta& m, const std::shared_ptr<Node>& node, uint32_t output_nr);
// Before writing a value that requires grad into `view`, a plain view of the plain tensor `base` (setitem
// with basic indices): marks it as a recorded view so the write gives `base` PyTorch's CopySlices history.
void track_view_write(const Tensor& base, const Tensor& view);
// `view` (a recorded view, already holding `result`'s values) and its base get PyTorch's CopySlices history:
// the base's old value outside the view's region, `result` (may be undefined: no gradient) inside it.
void rebase_view(const Tensor& view, const Tensor& result);
// A recorded view whose memory was written since its grad_fn was set (through its base or another view) gets
// a grad_fn that reads its base's current history (PyTorch's view replay). gradient_edge calls it.
void refresh_view_history(const Tensor& t);

// Nodes alive in the process: lets tests check that graphs are freed (no reference cycles).
int64_t live_node_count();

// PyTorch's legacy type string for messages: "torch.FloatTensor", "torch.cuda.DoubleTensor".
std::string legacy_type_name(const Tensor& t);

}  // namespace tandem::autograd
