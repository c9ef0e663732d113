#include "autograd/engine.h"

#include <algorithm>
#include <atomic>
#include <queue>
#include <unordered_map>

#include "autograd/anomaly_mode.h"
#include "autograd/sum_to.h"
#include "core/error.h"
#include "core/profiler.h"
#include "core/warning.h"
#include "ops/autocast.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"

namespace tandem::autograd {
namespace {

// Per-node state of one backward pass.
struct Task {
  int dependencies = 0;       // edges from not-yet-run nodes into this one
  std::vector<Tensor> grads;  // one slot per output of the node, summed as gradients arrive
  bool needed = true;         // runs: leads to something we want a gradient for
  bool wanted = true;         // receives gradients: needed, or a target itself
  std::vector<int> captures;  // (for targets) result index per output_nr, -1 if none
};

struct Target {
  Node* node;
  uint32_t output_nr;
};

// Makes `g` fit the output it is sent to: sum over broadcast dims, then the dtype and device of the output.
Tensor fit_gradient(const Node& from, size_t index, Tensor g, const OutputMeta& meta) {
  if (g.sizes() != meta.sizes) {
    TANDEM_CHECK(is_expandable_to(meta.sizes, g.sizes()), Runtime, "Function ", from.name(),
                 " returned an invalid gradient at index ", index, " - got ", g.shape_str(),
                 " but expected shape compatible with ", shape_to_string(meta.sizes),
                 "\nhint: a custom gradient or hook must return a tensor of the input's shape");
    g = sum_to(g, meta.sizes);
  }
  if (g.dtype() != meta.dtype || g.device() != meta.device) {
    // A real input that took part in a complex computation gets the real part of its gradient (PyTorch's
    // handle_r_to_c): the imaginary part is the slope of the output along a direction the input cannot move.
    if (is_complex(g.dtype()) && !is_complex(meta.dtype)) g = real(g);
    g = to_device(g, meta.device, meta.dtype, false);
  }
  return g;
}

void add_to_slot(Tensor& slot, Tensor g) {
  if (!slot.defined())
    slot = std::move(g);
  else
    slot = add(slot, g);
}

Tensor implicit_grad(const Tensor& out) {
  TANDEM_CHECK(out.numel() == 1, Runtime,
               "grad can be implicitly created only for scalar outputs\nhint: pass gradient= with the shape ",
               out.shape_str(), " (e.g. tandem.ones_like(out)), or reduce first with .sum() or .mean()");
  TANDEM_CHECK(!is_complex(out.dtype()), Runtime,
               "grad can be implicitly created only for real scalar outputs but got torch.",
               dtype_name(out.dtype()),
               "\nhint: differentiate a real function of it, e.g. out.abs() or out.real, or pass gradient=");
  return full(out.sizes(), Scalar(1.0), out.dtype(), out.device());
}

struct RunResult {
  std::vector<Tensor> captured;
};

// The backward pass running on this thread, for register_multi_grad_hook (a hook may start a nested one).
struct CurrentTask {
  int64_t id = -1;
  const std::unordered_map<Node*, Task>* tasks = nullptr;
  bool accumulates_leaves = true;  // false in autograd.grad()
};
thread_local CurrentTask current_task;
thread_local int64_t next_task_id = 0;

class CurrentTaskGuard {
 public:
  CurrentTaskGuard(const std::unordered_map<Node*, Task>& tasks, bool accumulates_leaves)
      : saved_(current_task) {
    current_task = {next_task_id++, &tasks, accumulates_leaves};
  }
  ~CurrentTaskGuard() { current_task = saved_; }
  CurrentTaskGuard(const CurrentTaskGuard&) = delete;
  CurrentTaskGuard& operator=(const CurrentTaskGuard&) = delete;

 private:
  CurrentTask saved_;
};

// The node's own pre-hooks (grad_fn.register_prehook), on the gradients that arrived (undefined: none did).
// (Run from a copy of the list: a hook may remove itself.)
void run_node_pre_hooks(Node& node, std::vector<Tensor>& grads) {
  const auto hooks = node.hooks->pre;
  for (const auto& [id, hook] : hooks) hook(grads);
}

// The node's post-hooks (grad_fn.register_hook): may replace the gradients it computed for its inputs.
void run_node_post_hooks(Node& node, std::vector<Tensor>& input_grads, const std::vector<Tensor>& arrived) {
  input_grads.resize(node.next_edges.size());
  const auto hooks = node.hooks->post;
  for (const auto& [id, hook] : hooks) hook(input_grads, arrived);
}

// backward(create_graph=True) stores gradients that have a graph leading back to the leaves they belong to:
// PyTorch's once-per-process warning (its users filter it by this text).
void warn_create_graph_cycle_once() {
  static std::atomic<bool> warned{false};
  if (warned.exchange(true)) return;
  warn(
      "Using backward() with create_graph=True will create a reference cycle between the parameter and its "
      "gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to "
      "avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters "
      "to "
      "None after use to break the cycle and avoid the leak.");
}

// The core loop. `targets` (may be empty) are outputs of nodes whose incoming gradient is returned; when
// `only_targets` is set, only nodes leading to targets run and AccumulateGrad nodes never run (grad()).
RunResult run(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs, bool keep_graph,
              bool create_graph, const std::vector<Target>& targets, bool only_targets,
              bool accumulate_leaves) {
  TANDEM_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), Runtime, "got ", outputs.size(),
               " tensors and ", grad_outputs.size(),
               " gradients\nhint: pass one gradient (or None) per tensor");
  std::vector<Edge> roots;
  std::vector<Tensor> root_grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    Edge e = gradient_edge(out);
    TANDEM_CHECK(
        e.fn, Runtime, "element ", i,
        " of tensors does not require grad and does not have a grad_fn\nhint: the result was computed "
        "from tensors without requires_grad=True (or under no_grad()); set requires_grad on the inputs");
    Tensor g = i < grad_outputs.size() && grad_outputs[i].defined() ? grad_outputs[i] : implicit_grad(out);
    TANDEM_CHECK(g.sizes() == out.sizes(), Runtime, "Mismatch in shape: grad_output[", i,
                 "] has a shape of tandem.Size(", g.shape_str(), ") and output[", i,
                 "] has a shape of tandem.Size(", out.shape_str(), ").");
    TANDEM_CHECK(is_complex(g.dtype()) == is_complex(out.dtype()), Runtime,
                 "For complex Tensors, both grad_output and output are required to have the same dtype. "
                 "Mismatch in dtype: grad_output[",
                 i, "] has a dtype of torch.", dtype_name(g.dtype()), " and output[", i,
                 "] has a dtype of torch.", dtype_name(out.dtype()), ".\nhint: pass a gradient of dtype ",
                 dtype_name(out.dtype()));
    roots.push_back(std::move(e));
    root_grads.push_back(std::move(g));
  }

  if (create_graph && accumulate_leaves) warn_create_graph_cycle_once();
  GradModeGuard mode(create_graph);
  autocast::SuspendGuard no_autocast;  // backward ops run in the dtypes autocast chose for the forward

  // Discover the graph (iterative DFS) and count dependencies.
  std::unordered_map<Node*, Task> tasks;
  std::vector<Node*> stack, order;
  for (const Edge& r : roots) {
    if (tasks.emplace(r.fn.get(), Task{}).second) stack.push_back(r.fn.get());
  }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    order.push_back(n);
    for (const Edge& e : n->next_edges) {
      if (!e.fn) continue;
      auto [it, fresh] = tasks.try_emplace(e.fn.get());
      it->second.dependencies++;
      if (fresh) stack.push_back(e.fn.get());
    }
  }
  for (size_t i = 0; i < targets.size(); ++i) {
    auto it = tasks.find(targets[i].node);
    if (it == tasks.end()) continue;
    auto& caps = it->second.captures;
    if (caps.empty()) caps.assign(targets[i].node->outputs.size(), -1);
    caps[targets[i].output_nr] = static_cast<int>(i);
  }
  if (only_targets) {
    // needed = is a target or reaches one; decided in reverse topological order (Kahn's order, reversed).
    std::unordered_map<Node*, int> deps;
    for (auto& [n, t] : tasks) deps[n] = t.dependencies;
    std::vector<Node*> topo;
    for (const Edge& r : roots)
      if (deps[r.fn.get()] == 0 &&
          (topo.empty() || std::find(topo.begin(), topo.end(), r.fn.get()) == topo.end()))
        topo.push_back(r.fn.get());
    for (size_t i = 0; i < topo.size(); ++i)
      for (const Edge& e : topo[i]->next_edges)
        if (e.fn && --deps[e.fn.get()] == 0) topo.push_back(e.fn.get());
    for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
      Task& t = tasks[*it];
      t.needed = accumulate_leaves && !t.captures.empty() && dynamic_cast<AccumulateGrad*>(*it);
      for (const Edge& e : (*it)->next_edges)
        if (e.fn && tasks[e.fn.get()].wanted) t.needed = true;
      t.wanted = t.needed || !t.captures.empty();
    }
  }

  for (size_t i = 0; i < roots.size(); ++i) {
    Task& t = tasks[roots[i].fn.get()];
    if (t.grads.empty()) t.grads.resize(roots[i].fn->outputs.size());
    add_to_slot(t.grads[roots[i].input_nr], root_grads[i]);
  }

  CurrentTaskGuard in_task(tasks, accumulate_leaves);
  auto later_first = [](Node* a, Node* b) { return a->sequence_nr < b->sequence_nr; };
  std::priority_queue<Node*, std::vector<Node*>, decltype(later_first)> ready(later_first);
  for (const Edge& r : roots) {
    Task& t = tasks[r.fn.get()];
    if (t.dependencies == 0) {
      t.dependencies = -1;  // queued once even if it is several roots
      ready.push(r.fn.get());
    }
  }

  RunResult result;
  result.captured.resize(targets.size());
  while (!ready.empty()) {
    Node* node = ready.top();
    ready.pop();
    Task& task = tasks[node];
    std::vector<Tensor> grads = std::move(task.grads);
    grads.resize(node->outputs.size());
    bool any = false;
    for (const Tensor& g : grads) any |= g.defined();

    if (any) {
      for (auto& h : node->pre_hooks) {
        if (!grads[h.output_nr].defined()) continue;
        Tensor r = h.fn(grads[h.output_nr]);
        if (r.defined()) grads[h.output_nr] = std::move(r);
      }
      for (auto& [nr, slot] : node->retained) {
        if (grads[nr].defined()) {
          GradModeGuard off(false);
          accumulate_into(*slot, grads[nr]);
        }
      }
      // A leaf's own hooks are its accumulator's tensor pre-hooks (as in PyTorch): before captures (grad()
      // returns the hooked gradient) and before the node's own pre-hooks.
      if (auto* acc = dynamic_cast<AccumulateGrad*>(node))
        grads[0] = run_leaf_hooks(acc->variable, std::move(grads[0]));
      for (size_t k = 0; k < task.captures.size(); ++k)
        if (task.captures[k] >= 0) result.captured[task.captures[k]] = grads[k];
      bool run_node = task.needed;
      std::vector<Tensor> input_grads;
      if (run_node) {
        const bool node_hooks = node->hooks != nullptr;
        bool none_arrived = false;
        if (node_hooks) {
          run_node_pre_hooks(*node, grads);
          none_arrived =
              std::none_of(grads.begin(), grads.end(), [](const Tensor& g) { return g.defined(); });
        }
        std::vector<Tensor> arrived;  // post-hooks see the gradients as they arrived (before zero-filling)
        if (node_hooks && !node->hooks->post.empty()) arrived = grads;
        for (size_t k = 0; k < grads.size() && !node->fills_missing_gradients(); ++k) {
          if (!grads[k].defined())
            grads[k] =
                full(node->outputs[k].sizes, Scalar(0.0), node->outputs[k].dtype, node->outputs[k].device);
        }
        // PyTorch's two events per node: the engine's evaluate_function around the node's own.
        profiler::Range evaluate, apply;
        if (profiler::recording()) [[unlikely]] {
          std::string name = node->name();
          evaluate.set(profiler::begin_event("autograd::engine::evaluate_function: " + name,
                                             profiler::EventKind::BackwardNode, Device()));
          apply.set(profiler::begin_event(std::move(name), profiler::EventKind::BackwardNode, Device()));
        }
        // A pre-hook that replaced every gradient by None leaves nothing to propagate (PyTorch's nodes return
        // no gradient when none arrived); otherwise missing ones were zero-filled above.
        if (none_arrived)
          input_grads.assign(node->next_edges.size(), Tensor());
        else if (__builtin_expect(AnomalyMode::is_enabled(), 0))
          input_grads = apply_with_anomaly_checks(*node, std::move(grads));
        else
          input_grads = node->apply(std::move(grads));
        if (node_hooks && !node->hooks->post.empty()) run_node_post_hooks(*node, input_grads, arrived);
        if (!keep_graph) node->release_saved();
      }
      for (size_t k = 0; k < input_grads.size() && k < node->next_edges.size(); ++k) {
        const Edge& e = node->next_edges[k];
        if (!e.fn || !input_grads[k].defined()) continue;
        Task& next = tasks[e.fn.get()];
        if (!next.wanted) continue;
        if (next.grads.empty()) next.grads.resize(e.fn->outputs.size());
        add_to_slot(next.grads[e.input_nr],
                    fit_gradient(*node, k, std::move(input_grads[k]), e.fn->outputs[e.input_nr]));
      }
    }
    for (const Edge& e : node->next_edges) {
      if (!e.fn) continue;
      Task& next = tasks[e.fn.get()];
      if (--next.dependencies == 0) ready.push(e.fn.get());
    }
  }
  return result;
}

}  // namespace

int64_t current_graph_task_id() { return current_task.id; }

bool will_engine_execute_node(const Node& node) {
  TANDEM_CHECK(
      current_task.tasks, Runtime,
      "_will_engine_execute_node should only be called during the backward pass\nhint: call it from a "
      "hook that backward() or autograd.grad() runs");
  // As PyTorch: autograd.grad() reads a leaf's gradient without running its node, so "runs" has no answer.
  TANDEM_CHECK(
      current_task.accumulates_leaves || !dynamic_cast<const AccumulateGrad*>(&node), Runtime,
      "A leaf node was passed to _will_engine_execute_node but we are currently running "
      "autograd.grad(). This is currently not supported.\nhint: register the hook on tensors computed "
      "from the leaves, or call backward() instead of autograd.grad()");
  auto it = current_task.tasks->find(const_cast<Node*>(&node));
  return it != current_task.tasks->end() && it->second.wanted;
}

void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
              std::optional<bool> retain_graph, bool create_graph, const std::vector<Tensor>& inputs) {
  bool keep = retain_graph.value_or(create_graph);
  if (inputs.empty()) {
    run(outputs, grad_outputs, keep, create_graph, {}, false, true);
    return;
  }
  // backward(inputs=...): accumulate only into these tensors' .grad (leaves through their AccumulateGrad).
  std::vector<Target> targets;
  for (const Tensor& in : inputs) {
    Edge e = gradient_edge(in);
    // PyTorch retains the gradient of each input: its retain_grad error for one without grad.
    TANDEM_CHECK(e.fn, Runtime, "can't retain_grad on Tensor that has requires_grad=False");
    targets.push_back({e.fn.get(), e.input_nr});
  }
  RunResult r = run(outputs, grad_outputs, keep, create_graph, targets, true, true);
  for (size_t i = 0; i < inputs.size(); ++i) {
    AutogradMeta& m = inputs[i].impl()->ensure_autograd();
    if (!m.grad_fn || !r.captured[i].defined()) continue;  // leaves were accumulated by their node
    if (!m.grad) m.grad = std::make_shared<Tensor>();
    GradModeGuard mode(create_graph);
    accumulate_into(*m.grad, r.captured[i]);
  }
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, std::optional<bool> retain_graph,
                         bool create_graph, bool allow_unused) {
  std::vector<Target> targets;
  std::vector<std::shared_ptr<Node>> keep_alive;  // accumulators created here for the duration of the run
  for (const Tensor& in : inputs) {
    Edge e = gradient_edge(in);
    TANDEM_CHECK(e.fn, Runtime, "One of the differentiated Tensors does not require grad");
    targets.push_back({e.fn.get(), e.input_nr});
    keep_alive.push_back(std::move(e.fn));
  }
  RunResult r =
      run(outputs, grad_outputs, retain_graph.value_or(create_graph), create_graph, targets, true, false);
  for (size_t i = 0; i < inputs.size(); ++i) {
    TANDEM_CHECK(r.captured[i].defined() || allow_unused, Runtime, "The differentiated Tensor at index ", i,
                 " appears to not have been used in the graph. Set allow_unused=True if this is the desired "
                 "behavior.\nhint: input ",
                 i, " does not influence the outputs; pass allow_unused=True to get None for it");
  }
  return std::move(r.captured);
}

}  // namespace tandem::autograd
