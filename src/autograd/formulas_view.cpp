// Gradients of the view ops. Shape-only views reshape the gradient back; slice/select place it into zeros
// through slice_backward/select_backward, which are recorded ops themselves so higher orders work.
#include <algorithm>

#include "autograd/formulas.h"
#include "ops/copy.h"
#include "ops/view.h"

namespace tandem::autograd {
namespace {
using Grads = std::vector<Tensor>;
}  // namespace

Tensor record_view(const std::shared_ptr<FormulaNode>& node, const Tensor& x, const Tensor& out) {
  record(node, {&x}, out);
  AutogradMeta& m = out.impl()->ensure_autograd();
  const AutogradMeta* xm = x.impl()->autograd();
  m.view_of_leaf = xm->view_of_leaf || !xm->grad_fn;
  m.view_base = xm->view_base ? xm->view_base : x.impl_ptr();
  m.view_version = out.version();
  return out;
}

Tensor record_reshape_view(const char* name, const Tensor& x, const Tensor& out) {
  auto node = make_node(name, [](FormulaNode& n, const Tensor& g) { return Grads{reshape(g, n.sizes)}; });
  node->sizes = x.sizes();
  return record_view(node, x, out);
}

Tensor record_permute(const Tensor& x, IntArrayRef dims, const Tensor& out) {
  auto node = make_node("PermuteBackward0", [](FormulaNode& n, const Tensor& g) {
    DimVector inverse(n.ints.size());
    for (size_t i = 0; i < n.ints.size(); ++i) inverse[n.ints[i]] = static_cast<int64_t>(i);
    return Grads{permute(g, inverse)};
  });
  for (int64_t d : dims) node->ints.push_back(wrap_dim(d, x.dim()));
  return record_view(node, x, out);
}

Tensor record_transpose(const Tensor& x, int64_t d0, int64_t d1, const Tensor& out, const char* name) {
  auto node = make_node(name, [](FormulaNode& n, const Tensor& g) {
    return Grads{transpose(g, n.ints[0], n.ints[1])};
  });
  node->ints = DimVector{d0, d1};
  return record_view(node, x, out);
}

Tensor record_alias(const char* name, const Tensor& x, const Tensor& out) {
  return record_view(make_node(name, [](FormulaNode& n, const Tensor& g) { return Grads{g}; }), x, out);
}

Tensor record_expand(const Tensor& x, const Tensor& out) {
  // The engine sums the gradient over the broadcast dims when it does not match x's shape.
  return record_view(make_node("ExpandBackward0", [](FormulaNode& n, const Tensor& g) { return Grads{g}; }),
                     x, out);
}

Tensor record_slice(const Tensor& x, int64_t dim, int64_t start, int64_t stop, int64_t step,
                    const Tensor& out) {
  auto node = make_node("SliceBackward0", [](FormulaNode& n, const Tensor& g) {
    return Grads{slice_backward(g, n.sizes, n.ints[0], n.ints[1], n.ints[2], n.ints[3])};
  });
  node->sizes = x.sizes();
  node->ints = DimVector{dim, start, stop, step};
  return record_view(node, x, out);
}

Tensor record_select(const Tensor& x, int64_t dim, int64_t index, const Tensor& out) {
  auto node = make_node("SelectBackward0", [](FormulaNode& n, const Tensor& g) {
    return Grads{select_backward(g, n.sizes, n.ints[0], n.ints[1])};
  });
  node->sizes = x.sizes();
  node->ints = DimVector{dim, index};
  return record_view(node, x, out);
}

Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t start, int64_t stop,
                      int64_t step) {
  Tensor out = without_grad([&] {
    Tensor z = full(sizes, Scalar(0.0), grad.dtype(), grad.device());
    copy_(slice(z, dim, start, stop, step), grad);
    return z;
  });
  if (!should_record(grad)) return out;
  auto node = make_node("SliceBackwardBackward0", [](FormulaNode& n, const Tensor& g) {
    return Grads{slice(g, n.ints[0], n.ints[1], n.ints[2], n.ints[3])};
  });
  node->ints = DimVector{dim, start, stop, step};
  return record(node, {&grad}, out);
}

Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index) {
  Tensor out = without_grad([&] {
    Tensor z = full(sizes, Scalar(0.0), grad.dtype(), grad.device());
    copy_(select(z, dim, index), grad);
    return z;
  });
  if (!should_record(grad)) return out;
  auto node = make_node("SelectBackwardBackward0", [](FormulaNode& n, const Tensor& g) {
    return Grads{select(g, n.ints[0], n.ints[1])};
  });
  node->ints = DimVector{dim, index};
  return record(node, {&grad}, out);
}

}  // namespace tandem::autograd
