// Gradient of Tensor.unfold, written with public ops so it runs on every device and differentiates again.
#include "autograd/formulas_unfold.h"

#include "autograd/formula_node.h"
#include "core/autograd_meta.h"
#include "ops/copy.h"
#include "ops/factories.h"
#include "ops/indexing.h"
#include "ops/reduce.h"
#include "ops/unfold.h"
#include "ops/view.h"

namespace tandem::autograd {

Tensor unfold_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t size, int64_t step) {
  if (sizes.empty()) return reshape(sum(grad), DimVector{});  // a 0-d input's one window
  // The element each window position reads: windows of arange(n), flattened to (count * size).
  Tensor positions =
      arange(Scalar(int64_t{0}), Scalar(sizes[dim]), Scalar(int64_t{1}), DType::Int64, grad.device());
  Tensor index = reshape(unfold(positions, 0, size, step), DimVector{-1});
  // (..., count, ..., size) -> (..., count * size, ...): each window's elements next to its position.
  DimVector order;
  const int64_t last = grad.dim() - 1;
  for (int64_t d = 0; d < last; ++d) {
    order.push_back(d);
    if (d == dim) order.push_back(last);
  }
  Tensor source = flatten(permute(grad, order), dim, dim + 1);
  return index_add(full(sizes, Scalar(0.0), grad.dtype(), grad.device()), dim, index, source);
}

Tensor record_unfold(const Tensor& x, int64_t dim, int64_t size, int64_t step, const Tensor& out) {
  auto node = make_node("UnfoldBackward0", [](FormulaNode& n, const Tensor& g) {
    return std::vector<Tensor>{unfold_backward(g, n.sizes, n.ints[0], n.ints[1], n.ints[2])};
  });
  node->sizes = x.sizes();
  node->ints = DimVector{dim, size, step};
  record(node, {&x}, out);
  // The view bookkeeping of formulas_view.cpp's record_view: an in-place write into the window view re-bases
  // the base's history.
  AutogradMeta& m = out.impl()->ensure_autograd();
  const AutogradMeta* xm = x.impl()->autograd();
  m.view_of_leaf = xm->view_of_leaf || !xm->grad_fn;
  m.view_base = xm->view_base ? xm->view_base : x.impl_ptr();
  m.view_version = out.version();
  return out;
}

}  // namespace tandem::autograd
