// Gradients of the indexing and joining ops. Each backward is written with the public scatter/index ops
// that are themselves recorded (index <-> index_put, gather <-> scatter_add, index_select <-> index_add),
// so gradients of gradients work. Those scatter ops have no complex kernels: a complex gradient goes through
// them as its real and imaginary parts (on_parts).
#include "autograd/formulas.h"
#include "autograd/sum_to.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/indexing.h"
#include "ops/join.h"
#include "ops/view.h"

namespace tandem::autograd {
namespace {
using Grads = std::vector<Tensor>;

Tensor zeros_of(IntArrayRef sizes, const Tensor& like) {
  return full(sizes, Scalar(0.0), like.dtype(), like.device());
}
Tensor zero_scalar(const Tensor& like) { return zeros_of(DimVector{}, like); }

void save_all(FormulaNode& n, const std::vector<Tensor>& ts) {
  for (const Tensor& t : ts) n.saved.emplace_back(t, false);
}
std::vector<Tensor> unpack_all(const FormulaNode& n, size_t from = 0) {
  std::vector<Tensor> r;
  for (size_t i = from; i < n.saved.size(); ++i) r.push_back(n.saved_tensor(i));
  return r;
}

// f(g) for a map f that is linear over the reals: f(re g) + i f(im g) when g is complex.
template <typename F>
Tensor on_parts(const Tensor& g, F f) {
  if (!is_complex(g.dtype())) return f(g);
  return make_complex(f(real(g)), f(imag(g)));
}

Grads index_backward(FormulaNode& n, const Tensor& g) {
  const std::vector<Tensor> idx = unpack_all(n);
  return {on_parts(g, [&](const Tensor& p) { return index_put(zeros_of(n.sizes, p), idx, p, true); })};
}

// values broadcast to the indexed shape after dropping leading size-1 dims (see index_put_): the gradient
// is summed back to that shape, then given values' own shape.
Grads index_put_backward(FormulaNode& n, const Tensor& g) {
  std::vector<Tensor> idx = unpack_all(n);
  Grads r(2);
  if (n.needs_input_grad(0))
    r[0] = n.variant ? g
                     : on_parts(g, [&](const Tensor& p) { return index_put(p, idx, zero_scalar(p), false); });
  if (n.needs_input_grad(1)) {
    Tensor gv = index(g, idx);
    size_t lead = 0;
    while (static_cast<int64_t>(n.sizes.size() - lead) > gv.dim() && n.sizes[lead] == 1) ++lead;
    DimVector kept;
    for (size_t i = lead; i < n.sizes.size(); ++i) kept.push_back(n.sizes[i]);
    r[1] = reshape(sum_to(gv, kept), n.sizes);
  }
  return r;
}

Grads cat_backward(FormulaNode& n, const Tensor& g) {
  Grads r(n.sizes.size());
  int64_t offset = 0;
  for (size_t i = 0; i < n.sizes.size(); ++i) {
    if (n.sizes[i] < 0) {  // a skipped 1-D empty input: an empty gradient, as PyTorch
      if (n.needs_input_grad(i)) r[i] = zeros_of(DimVector{0}, g);
      continue;
    }
    if (n.needs_input_grad(i)) r[i] = slice(g, n.ints[0], offset, offset + n.sizes[i], 1);
    offset += n.sizes[i];
  }
  return r;
}

Grads stack_backward(FormulaNode& n, const Tensor& g) {
  Grads r(static_cast<size_t>(n.ints[1]));
  for (size_t i = 0; i < r.size(); ++i)
    if (n.needs_input_grad(i)) r[i] = select(g, n.ints[0], static_cast<int64_t>(i));
  return r;
}

Grads gather_backward(FormulaNode& n, const Tensor& g) {
  const Tensor index = n.saved_tensor(0);
  return {
      on_parts(g, [&](const Tensor& p) { return scatter_add(zeros_of(n.sizes, p), n.ints[0], index, p); })};
}

Grads scatter_backward(FormulaNode& n, const Tensor& g) {
  Tensor index = n.saved_tensor(0);
  Grads r(2);
  if (n.needs_input_grad(0))
    r[0] = n.variant
               ? g
               : on_parts(g, [&](const Tensor& p) { return scatter(p, n.ints[0], index, Scalar(0.0)); });
  if (n.needs_input_grad(1)) r[1] = gather(g, n.ints[0], index);
  return r;
}

Grads index_select_backward(FormulaNode& n, const Tensor& g) {
  const Tensor index = n.saved_tensor(0);
  return {on_parts(g, [&](const Tensor& p) { return index_add(zeros_of(n.sizes, p), n.ints[0], index, p); })};
}

// source's gradient: the picked gradient times conj(alpha) (PyTorch's convention for a complex alpha).
Grads index_add_backward(FormulaNode& n, const Tensor& g) {
  Grads r(2);
  if (n.needs_input_grad(0)) r[0] = g;
  if (n.needs_input_grad(1)) {
    const Scalar alpha = n.scalar.is_complex()
                             ? Scalar(complex<double>(n.scalar.to_complex().re, -n.scalar.to_complex().im))
                             : n.scalar;
    r[1] = reshape(mul(index_select(g, n.ints[0], n.saved_tensor(0)), alpha), n.sizes);
  }
  return r;
}

Grads index_copy_backward(FormulaNode& n, const Tensor& g) {
  Tensor index = n.saved_tensor(0);
  Grads r(2);
  if (n.needs_input_grad(0))
    r[0] = on_parts(g, [&](const Tensor& p) { return index_fill(p, n.ints[0], index, Scalar(0.0)); });
  if (n.needs_input_grad(1)) {
    Tensor picked = index_select(g, n.ints[0], index);
    r[1] = n.variant ? sum(picked) : reshape(picked, n.sizes);  // variant: the fill value of index_fill
  }
  return r;
}

Grads take_backward(FormulaNode& n, const Tensor& g) {
  const Tensor index = n.saved_tensor(0);
  Tensor flat = on_parts(g, [&](const Tensor& p) {
    return index_put(zeros_of(DimVector{compute_numel(n.sizes)}, p), {index}, p, true);
  });
  return {reshape(flat, n.sizes)};
}

Grads masked_fill_backward(FormulaNode& n, const Tensor& g) {
  Tensor mask = n.saved_tensor(0);
  Grads r(2);
  if (n.needs_input_grad(0))
    r[0] = on_parts(g, [&](const Tensor& p) { return where(mask, zero_scalar(p), p); });
  if (n.needs_input_grad(1))
    r[1] = sum(on_parts(g, [&](const Tensor& p) { return where(mask, p, zero_scalar(p)); }));
  return r;
}

Grads masked_select_backward(FormulaNode& n, const Tensor& g) {
  Tensor mask = expand(n.saved_tensor(0), n.sizes);
  return {on_parts(g, [&](const Tensor& p) { return index_put(zeros_of(n.sizes, p), {mask}, p, true); })};
}

Grads flip_backward(FormulaNode& n, const Tensor& g) { return {flip(g, n.ints)}; }

}  // namespace

bool any_requires_grad(const std::vector<Tensor>& tensors) {
  for (const Tensor& t : tensors)
    if (requires_grad_fast(t)) return GradMode::is_enabled();
  return false;
}

Tensor record_index(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& out) {
  auto node = make_node("IndexBackward0", &index_backward);
  node->sizes = x.sizes();
  save_all(*node, indices);
  return record(node, {&x}, out);
}

Tensor record_index_put(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values,
                        bool accumulate, const Tensor& out) {
  auto node = make_node("IndexPutBackward0", &index_put_backward);
  node->sizes = values.sizes();
  node->variant = accumulate;
  save_all(*node, indices);
  set_history(node, {&x, &values}, {&out});
  return out;
}

Tensor record_cat(const std::vector<Tensor>& tensors, int64_t dim, const Tensor& out) {
  auto node = make_node("CatBackward0", &cat_backward);
  std::vector<const Tensor*> inputs;
  for (const Tensor& t : tensors) {
    inputs.push_back(&t);
    const bool skipped = t.dim() == 1 && t.sizes()[0] == 0;
    node->sizes.push_back(skipped ? -1 : t.sizes()[wrap_dim(dim, t.dim())]);
  }
  // When every input was skipped, the output is an empty 1-D tensor whatever dim was.
  node->ints = DimVector{out.dim() > 1 || out.numel() ? wrap_dim(dim, out.dim()) : 0};
  set_history(node, inputs, {&out});
  return out;
}

Tensor record_stack(const std::vector<Tensor>& tensors, int64_t dim, const Tensor& out) {
  auto node = make_node("StackBackward0", &stack_backward);
  std::vector<const Tensor*> inputs;
  for (const Tensor& t : tensors) inputs.push_back(&t);
  node->ints = DimVector{wrap_dim(dim, out.dim()), static_cast<int64_t>(tensors.size())};
  set_history(node, inputs, {&out});
  return out;
}

Tensor record_gather(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) {
  auto node = make_node("GatherBackward0", &gather_backward);
  node->sizes = x.sizes();
  node->ints = DimVector{dim};
  node->saved.emplace_back(index, false);
  return record(node, {&x}, out);
}

Tensor record_scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor* src, bool accumulate,
                      const Tensor& out) {
  auto node = make_node(accumulate ? "ScatterAddBackward0"
                        : src      ? "ScatterBackward0"
                                   : "ScatterBackward1",
                        &scatter_backward);
  node->ints = DimVector{dim};
  node->variant = accumulate;
  node->saved.emplace_back(index, false);
  set_history(node, {&x, src}, {&out});
  return out;
}

Tensor record_index_select(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& out) {
  auto node = make_node("IndexSelectBackward0", &index_select_backward);
  node->sizes = x.sizes();
  node->ints = DimVector{dim};
  node->saved.emplace_back(index, false);
  return record(node, {&x}, out);
}

Tensor record_index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                        const Scalar& alpha, const Tensor& out) {
  auto node = make_node("IndexAddBackward0", &index_add_backward);
  node->sizes = source.sizes();
  node->ints = DimVector{dim};
  node->scalar = alpha;
  node->saved.emplace_back(index, false);
  set_history(node, {&x, &source}, {&out});
  return out;
}

Tensor record_index_copy(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                         const Tensor& out) {
  auto node = make_node("IndexCopyBackward0", &index_copy_backward);
  node->sizes = source.sizes();
  node->ints = DimVector{dim};
  node->saved.emplace_back(index, false);
  set_history(node, {&x, &source}, {&out});
  return out;
}

Tensor record_index_fill(const Tensor& x, int64_t dim, const Tensor& index, const Tensor* value,
                         const Tensor& out) {
  auto node = make_node(value ? "IndexFillBackward1" : "IndexFillBackward0", &index_copy_backward);
  node->ints = DimVector{dim};
  node->variant = 1;
  node->saved.emplace_back(index, false);
  set_history(node, {&x, value}, {&out});
  return out;
}

Tensor record_take(const Tensor& x, const Tensor& index, const Tensor& out) {
  auto node = make_node("TakeBackward0", &take_backward);
  node->sizes = x.sizes();
  node->saved.emplace_back(index, false);
  return record(node, {&x}, out);
}

Tensor record_masked_fill(const Tensor& x, const Tensor& mask, const Tensor* value, const Tensor& out) {
  auto node = make_node(value ? "MaskedFillBackward1" : "MaskedFillBackward0", &masked_fill_backward);
  node->saved.emplace_back(mask, false);
  set_history(node, {&x, value}, {&out});
  return out;
}

Tensor record_masked_select(const Tensor& x, const Tensor& mask, const Tensor& out) {
  auto node = make_node("MaskedSelectBackward0", &masked_select_backward);
  node->sizes = broadcast_shapes(x.sizes(), mask.sizes());
  if (node->sizes.empty()) node->sizes.push_back(1);  // as the forward: a 0-d pair selects like [1]
  node->saved.emplace_back(mask, false);
  return record(node, {&x}, out);
}

Tensor record_flip(const Tensor& x, IntArrayRef dims, const Tensor& out) {
  auto node = make_node("FlipBackward0", &flip_backward);
  node->ints = DimVector(dims);
  return record(node, {&x}, out);
}

}  // namespace tandem::autograd
