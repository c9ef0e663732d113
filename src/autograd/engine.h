// The backward engine: runs the graph from some roots in dependency order (iteratively, no recursion),
// accumulating gradients per node input, releasing saved tensors as it goes unless retain_graph.
#pragma once
#include <optional>
#include <vector>

#include "autograd/node.h"

namespace tandem::autograd {

// tensor.backward() / tandem.autograd.backward(): gradients of `outputs` (with `grad_outputs`, undefined
// entries meaning "ones" for scalar outputs) accumulated into the .grad of the leaves (or of `inputs`).
void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
              std::optional<bool> retain_graph, bool create_graph, const std::vector<Tensor>& inputs = {});

// tandem.autograd.grad(): the gradients of `outputs` with respect to `inputs`, nothing accumulated.
// An entry is undefined when the input was unused (and allow_unused is true).
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, std::optional<bool> retain_graph,
                         bool create_graph, bool allow_unused);

// The backward pass running on this thread (register_multi_grad_hook's questions): its id (-1 outside one),
// and whether `node` runs in it (its hooks will see a gradient).
int64_t current_graph_task_id();
bool will_engine_execute_node(const Node& node);

}  // namespace tandem::autograd
