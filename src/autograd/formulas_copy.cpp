// Gradients of copies and conversions: the gradient flows back unchanged; the engine converts it to the
// input's dtype and moves it to the input's device (each node output remembers both).
#include "autograd/formulas.h"
#include "ops/copy.h"
#include "ops/view.h"

namespace tandem::autograd {
namespace {
using Grads = std::vector<Tensor>;
Grads pass_through(FormulaNode& n, const Tensor& g) { return {g}; }
}  // namespace

Tensor record_copy(const char* name, const Tensor& x, const Tensor& out) {
  if (!is_differentiable(out.dtype())) return out;
  return record(make_node(name, &pass_through), {&x}, out);
}

void record_copy_(const Tensor& self, const Tensor& src) {
  if (AutogradMeta* m = self.impl()->autograd(); m && m->view_base) {
    // Into a view: the written value, with src's history, becomes the region of the view's base.
    Tensor result = to_device(expand(src, self.sizes()), self.device(), self.dtype(), true);
    rebase_view(self, result);
    return;
  }
  // self's old values are overwritten: no gradient for them; src gets the gradient (summed over broadcast).
  auto node = make_node("torch::autograd::CopyBackwards", [](FormulaNode& n, const Tensor& g) {
    Grads r(2);
    if (n.needs_input_grad(0)) r[0] = full(g.sizes(), Scalar(0.0), g.dtype(), g.device());
    if (n.needs_input_grad(1)) r[1] = g;
    return r;
  });
  set_history(node, {&self, &src}, {&self});
}

void record_fill_(const Tensor& self, const char* node_name) {
  if (AutogradMeta* m = self.impl()->autograd(); m && m->view_base) {
    rebase_view(self, Tensor());  // the region's new value is a constant
    return;
  }
  auto node = make_node(node_name, [](FormulaNode& n, const Tensor& g) {
    return Grads{full(g.sizes(), Scalar(0.0), g.dtype(), g.device())};
  });
  set_history(node, {&self}, {&self});
}

}  // namespace tandem::autograd
