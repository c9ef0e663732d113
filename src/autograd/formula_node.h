// The node used by every op formula: a name, a plain function computing the input gradients from the
// incoming one, the saved tensors it reads and the few non-tensor arguments it needs. Adding an op's
// gradient is a function plus one `record(...)` call in its front end (see docs/autograd.md).
#pragma once
#include <array>
#include <vector>

#include "autograd/node.h"
#include "core/scalar.h"

namespace tandem::autograd {

struct FormulaNode final : Node {
  using Formula = std::vector<Tensor> (*)(FormulaNode& node, const Tensor& grad);
  FormulaNode(const char* name, Formula f) : name_(name), formula(f) {}

  std::string name() const override { return name_; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override { return formula(*this, grads[0]); }
  void release_saved() override {
    for (SavedTensor& s : saved) s.release();
  }
  // Saved tensor i, version-checked (and re-attached to this node when it is one of its outputs).
  Tensor saved_tensor(size_t i) const { return saved[i].unpack(*this); }

  const char* name_;
  Formula formula;
  std::vector<SavedTensor> saved;
  // PyTorch's names of the first saved values ("self", "other", "result"), which grad_fn._saved_self and its
  // kin read (python/src/autograd_node_types.cpp); null where the formula does not name them.
  std::array<const char*, 3> saved_names{};
  Scalar scalar;       // e.g. the scalar operand of a * 2, or addmm's beta
  Scalar scalar2;      // addmm's alpha
  double real = 0;     // a third number, e.g. elu's input_scale
  DimVector sizes;     // e.g. the input's shape
  DimVector ints;      // op arguments: dims, start/stop/step, index
  int8_t variant = 0;  // which operand was a scalar, etc.
};

// A fresh node for `formula`, named like PyTorch.
inline std::shared_ptr<FormulaNode> make_node(const char* name, FormulaNode::Formula formula) {
  return std::make_shared<FormulaNode>(name, formula);
}

// Runs `f` with grad mode off: the raw forward of an op that records its own node (returns f's result).
template <typename F>
auto without_grad(F&& f) {
  GradModeGuard off(false);
  return f();
}

}  // namespace tandem::autograd
