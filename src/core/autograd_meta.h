// Per-tensor autograd state, allocated only for tensors that take part in autograd so that plain tensors
// stay lean. The autograd engine (src/autograd) fills in the graph fields.
#pragma once
#include <memory>

namespace tandem {

class Tensor;
struct Node;

struct AutogradMeta {
  bool requires_grad = false;
  bool retains_grad = false;
  std::unique_ptr<Tensor> grad;   // accumulated gradient of a leaf (or a tensor that retains grad)
  std::shared_ptr<Node> grad_fn;  // the node that produced this tensor; null for leaves
  uint32_t output_nr = 0;         // which output of grad_fn this tensor is
  ~AutogradMeta();
};

}  // namespace tandem
