// Per-tensor autograd state, allocated only for tensors that take part in autograd so that plain tensors
// stay lean. The autograd engine (src/autograd) fills in the graph fields.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/intrusive_ptr.h"

namespace tandem {

class Tensor;
class TensorImpl;
namespace autograd {
struct Node;
}
using autograd::Node;

// A gradient hook: receives the gradient, returns a replacement (or an undefined Tensor to keep it).
using TensorHook = std::function<Tensor(const Tensor&)>;

struct AutogradMeta {
  bool requires_grad = false;
  bool retains_grad = false;
  bool view_of_leaf = false;  // a recorded view of a leaf that requires grad (in-place writes refused)
  // For a recorded view: the tensor that owns its memory (not a view). Its impl, not a Tensor: this header is
  // below tensor.h, and a shared_ptr<Tensor> cost an allocation per view.
  IntrusivePtr<TensorImpl> view_base;
  // For a recorded view: its memory's version when its grad_fn was set. An in-place write through the base or
  // another view changes the version, and the view's history is then rebuilt from the base's (view replay).
  uint32_t view_version = 0;
  // Basic-index views of a plain tensor are tracked (autograd::track_view_write): each such view keeps its
  // base in view_base, and the base lists the views' metas in tracked_views, so that a write with history
  // through one of them gives the base and every other one their history, as PyTorch's views get it. A
  // tracked view's meta knows its tensor (tracked_self) and its place in the list, and leaves the list when
  // it dies (the base outlives it: view_base). The lists are guarded by one lock in src/autograd/node.cpp.
  TensorImpl* tracked_self = nullptr;
  size_t tracked_index = 0;
  std::vector<AutogradMeta*> tracked_views;
  // Accumulated gradient of a leaf (or of a tensor that retains grad). Shared with the node that writes it
  // so that a retain_grad slot never needs a reference back to the tensor (no cycles).
  std::shared_ptr<Tensor> grad;
  std::shared_ptr<Node> grad_fn;                  // the node that produced this tensor; null for leaves
  std::weak_ptr<Node> grad_accumulator;           // a leaf's AccumulateGrad, shared by every use of the leaf
  std::vector<std::pair<int, TensorHook>> hooks;  // a leaf's hooks (id, fn), run before accumulation
  uint32_t output_nr = 0;                         // which output of grad_fn this tensor is
  ~AutogradMeta();  // defined in src/autograd: releases grad_fn without recursing down long chains
};

}  // namespace tandem
