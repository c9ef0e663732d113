// Gradients of as_strided and as_strided_scatter (PyTorch's AsStridedBackward0/1, AsStridedScatterBackward0).
// The geometries are stored flat in the node's ints: the input's sizes, strides and offset, then the
// output's.
#include "autograd/formulas.h"
#include "ops/as_strided.h"
#include "ops/copy.h"
#include "ops/view.h"

namespace tandem::autograd {
namespace {
using Grads = std::vector<Tensor>;

void push_geometry(DimVector& ints, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  for (int64_t s : sizes) ints.push_back(s);
  for (int64_t s : strides) ints.push_back(s);
  ints.push_back(offset);
}

// `g` laid out like a tensor with `strides` (dense, offset 0), so that storage offsets mean the same in both.
Tensor with_layout(const Tensor& g, const DimVector& strides) {
  if (g.is_contiguous() && g.strides() == contiguous_strides(g.sizes())) return g;
  if (strides == contiguous_strides(g.sizes())) return contiguous(g);
  Tensor flat = empty(DimVector{g.numel()}, g.dtype(), g.device());
  Tensor out = make_view(flat, g.sizes(), strides, 0);
  copy_(out, g);
  return out;
}
}  // namespace

Tensor record_as_strided(const Tensor& x, const Tensor& out, const char* name) {
  auto node = make_node(name, [](FormulaNode& n, const Tensor& g) {
    const int64_t xd = n.ints[0];
    const int64_t* p = n.ints.data() + 1;
    IntArrayRef x_sizes(p, xd), x_strides(p + xd, xd);
    const int64_t x_offset = p[2 * xd];
    const int64_t od = (static_cast<int64_t>(n.ints.size()) - 2 - 2 * xd - 1) / 2;
    const int64_t* q = p + 2 * xd + 1;
    return Grads{as_strided_backward(g, x_sizes, x_strides, x_offset, IntArrayRef(q, od),
                                     IntArrayRef(q + od, od), q[2 * od])};
  });
  node->ints.push_back(x.dim());
  push_geometry(node->ints, x.sizes(), x.strides(), x.storage_offset());
  push_geometry(node->ints, out.sizes(), out.strides(), out.storage_offset());
  return record_view(node, x, out);
}

Tensor record_as_strided_scatter(const Tensor& x, const Tensor& src, IntArrayRef sizes, IntArrayRef strides,
                                 int64_t offset, const Tensor& out) {
  auto node = make_node("AsStridedScatterBackward0", [](FormulaNode& n, const Tensor& g) {
    const int64_t d = (static_cast<int64_t>(n.ints.size()) - 1) / 2;
    IntArrayRef sizes(n.ints.data(), d), strides(n.ints.data() + d, d);
    const int64_t offset = n.ints[2 * d];
    Tensor laid_out = with_layout(g, n.sizes);
    Grads r(2);
    if (n.needs_input_grad(0))
      r[0] = as_strided_scatter(laid_out, full(sizes, Scalar(0.0), g.dtype(), g.device()), sizes, strides,
                                offset);
    if (n.needs_input_grad(1)) r[1] = clone(as_strided(laid_out, sizes, strides, offset));
    return r;
  });
  push_geometry(node->ints, sizes, strides, offset);
  node->sizes = out.strides();
  return record(node, {&x, &src}, out);
}

}  // namespace tandem::autograd
