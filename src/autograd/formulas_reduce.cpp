// Gradients of the reductions, scans and sorts. Reduced dims are stored wrapped and sorted in `ints`
// (every dim for a full reduction), keepdim in `variant`, the input's shape in `sizes`; `restore` puts the
// reduced dims back into the incoming gradient so it broadcasts against the input.
#include <algorithm>
#include <cmath>

#include "autograd/formulas.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/indexing.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace tandem::autograd {
namespace {
using Grads = std::vector<Tensor>;

DimVector reduced_dims(const Tensor& x, const OptDims& dims) {
  DimVector r;
  if (x.dim() == 0) return r;
  if (!dims || dims->empty()) {
    for (int64_t d = 0; d < x.dim(); ++d) r.push_back(d);
    return r;
  }
  for (int64_t d : *dims) r.push_back(wrap_dim(d, x.dim()));
  std::sort(r.begin(), r.end());
  return r;
}

std::shared_ptr<FormulaNode> reduce_node(const char* name, FormulaNode::Formula f, const Tensor& x,
                                         DimVector dims, bool keepdim) {
  auto node = make_node(name, f);
  node->sizes = x.sizes();
  node->ints = std::move(dims);
  node->variant = keepdim;
  return node;
}

// A reduced tensor (gradient or output) with its reduced dims back as size 1.
Tensor restore(const FormulaNode& n, const Tensor& t) {
  if (n.variant) return t;
  Tensor r = t;
  for (int64_t d : n.ints) r = unsqueeze(r, d);
  return r;
}
OptDims dims_of(const FormulaNode& n) { return n.ints.empty() ? OptDims{} : OptDims{n.ints}; }
Tensor zero_like_scalar(const Tensor& t) { return full(DimVector{}, Scalar(0.0), t.dtype(), t.device()); }

Grads sum_backward(FormulaNode& n, const Tensor& g) { return {expand(restore(n, g), n.sizes)}; }
Grads mean_backward(FormulaNode& n, const Tensor& g) {
  return {div(expand(restore(n, g), n.sizes), n.scalar)};
}

// prod: out / x where x has no zero in its slice; at the single zero of a slice, the product of the
// others; 0 everywhere when a slice has two zeros or more.
Grads prod_backward(FormulaNode& n, const Tensor& g) {
  Tensor x = n.saved_tensor(0), out = n.saved_tensor(1);
  Tensor zero = eq(x, Scalar(0.0));
  Tensor x1 = where(zero, full(DimVector{}, Scalar(1.0), x.dtype(), x.device()), x);
  std::optional<int64_t> dim;
  if (n.ints.size() == 1) dim = n.ints[0];
  Tensor zeros = dim ? sum(zero, DimVector{*dim}, true) : sum(zero);
  Tensor others = dim ? prod(x1, *dim, true) : prod(x1);
  Tensor none_zero = div(restore(n, out), x1);
  Tensor zs = zero_like_scalar(x);
  Tensor local = where(eq(zeros, Scalar(int64_t{0})), none_zero,
                       where(logical_and(eq(zeros, Scalar(int64_t{1})), zero), others, zs));
  return {mul(restore(n, g), conj(local))};  // conj: PyTorch's convention for complex x (a no-op on real)
}

// amax/amin and max()/min(): the gradient is split evenly among the elements equal to the result. For a
// NaN result, max()/min() send it to the NaNs while amax/amin (x == NaN matches nothing) give NaN, both as
// PyTorch.
Grads split_among(FormulaNode& n, const Tensor& g, bool to_nans) {
  Tensor x = n.saved_tensor(0), out = restore(n, n.saved_tensor(1));
  Tensor mask = eq(x, out);
  if (to_nans) mask = logical_or(mask, logical_and(isnan(x), isnan(out)));
  Tensor count = sum(mask, dims_of(n), true);
  return {div(mul(restore(n, g), mask), count)};
}
Grads amax_backward(FormulaNode& n, const Tensor& g) { return split_among(n, g, false); }
Grads max_all_backward(FormulaNode& n, const Tensor& g) { return split_among(n, g, true); }

// max(dim)/min(dim)/sort/topk: the gradient goes to the positions the indices name.
Grads select_values_backward(FormulaNode& n, const Tensor& g) {
  Tensor idx = n.saved_tensor(0);
  Tensor zeros = full(n.sizes, Scalar(0.0), g.dtype(), g.device());
  int64_t dim = n.ints.empty() ? 0 : n.ints[0];
  return {scatter(zeros, dim, restore(n, idx), restore(n, g))};
}

Tensor centered(const FormulaNode& n, const Tensor& x) { return sub(x, mean(x, dims_of(n), true)); }
Grads var_backward(FormulaNode& n, const Tensor& g) {
  Tensor x = n.saved_tensor(0);
  return {mul(mul(restore(n, g), centered(n, x)), Scalar(2.0 / n.scalar.to_double()))};
}
// Where the norm (or standard deviation) is 0, the gradient is 0 (PyTorch's subgradient choice).
Tensor unless_zero_norm(const Tensor& out, const Tensor& v) {
  return where(eq(out, Scalar(0.0)), zero_like_scalar(v), v);
}

Grads std_backward(FormulaNode& n, const Tensor& g) {
  Tensor x = n.saved_tensor(0), out = n.saved_tensor(1);
  return {mul(restore(n, unless_zero_norm(out, div(g, out))), div(centered(n, x), n.scalar))};
}
Grads norm_backward(FormulaNode& n, const Tensor& g) {
  Tensor x = n.saved_tensor(0), out = n.saved_tensor(1);
  double p = n.scalar.to_double();
  if (p == 0) return {Tensor()};  // piecewise constant: no gradient, as PyTorch (x.grad stays None)
  if (p == 1) return {mul(sign(x), restore(n, g))};
  if (std::isinf(p)) {
    Tensor mask = eq(abs(x), restore(n, out));
    Tensor count = sum(mask, dims_of(n), true);
    return {div(mul(mul(sign(x), mask), restore(n, g)), count)};
  }
  if (p == 2) return {mul(x, restore(n, unless_zero_norm(out, div(g, out))))};
  Tensor scale = unless_zero_norm(out, div(g, pow(out, Scalar(p - 1))));
  return {mul(mul(sign(x), pow(abs(x), Scalar(p - 1))), restore(n, scale))};
}

Grads logsumexp_backward(FormulaNode& n, const Tensor& g) {
  Tensor x = n.saved_tensor(0), out = n.saved_tensor(1);
  return {mul(restore(n, g), conj(exp(sub(x, restore(n, out)))))};  // conj: a no-op on real x
}

Grads softmax_backward(FormulaNode& n, const Tensor& g) {
  Tensor y = n.saved_tensor(0);
  return {mul(y, sub(g, sum(mul(g, y), DimVector{n.ints[0]}, true)))};
}
Grads log_softmax_backward(FormulaNode& n, const Tensor& g) {
  Tensor y = n.saved_tensor(0);
  return {sub(g, mul(exp(y), sum(g, DimVector{n.ints[0]}, true)))};
}

Grads cumsum_backward(FormulaNode& n, const Tensor& g) {
  if (g.dim() == 0) return {g};
  DimVector d{n.ints[0]};
  return {flip(cumsum(flip(g, d), n.ints[0]), d)};
}

}  // namespace

Tensor record_sum(const Tensor& x, const OptDims& dims, bool keepdim, const Tensor& out) {
  const char* name = dims ? "SumBackward1" : "SumBackward0";
  return record(reduce_node(name, &sum_backward, x, reduced_dims(x, dims), keepdim), {&x}, out);
}

Tensor record_mean(const Tensor& x, const OptDims& dims, bool keepdim, const Tensor& out) {
  auto node = reduce_node(dims ? "MeanBackward1" : "MeanBackward0", &mean_backward, x, reduced_dims(x, dims),
                          keepdim);
  node->scalar =
      Scalar(out.numel() ? static_cast<double>(x.numel()) / static_cast<double>(out.numel()) : 1.0);
  return record(node, {&x}, out);
}

Tensor record_prod(const Tensor& x, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  auto node = reduce_node(dim ? "ProdBackward1" : "ProdBackward0", &prod_backward, x,
                          reduced_dims(x, dim ? OptDims{DimVector{*dim}} : OptDims{}), dim && keepdim);
  node->saved.emplace_back(x, false);
  node->saved.emplace_back(out, true);
  return record(node, {&x}, out);
}

Tensor record_extreme(const char* name, const Tensor& x, const OptDims& dims, bool keepdim,
                      const Tensor& out) {
  const bool all = name[0] == 'M';  // MaxBackward1 / MinBackward1
  auto node = reduce_node(name, all ? &max_all_backward : &amax_backward, x, reduced_dims(x, dims), keepdim);
  node->saved.emplace_back(x, false);
  node->saved.emplace_back(out, true);
  return record(node, {&x}, out);
}

void record_select_values(const char* name, const Tensor& x, int64_t dim, bool keepdim, const Tensor& values,
                          const Tensor& indices) {
  DimVector dims;
  if (x.dim()) dims.push_back(wrap_dim(dim, x.dim()));
  auto node = reduce_node(name, &select_values_backward, x, dims, keepdim);
  node->saved.emplace_back(indices, false);
  set_history(node, {&x}, {&values, &indices});
}

Tensor record_var(bool is_std, const Tensor& x, const OptDims& dims, double dof, bool keepdim,
                  const Tensor& out) {
  auto node = reduce_node(is_std ? "StdBackward0" : "VarBackward0", is_std ? &std_backward : &var_backward, x,
                          reduced_dims(x, dims), keepdim);
  node->scalar = Scalar(dof);
  node->saved.emplace_back(x, false);
  if (is_std) node->saved.emplace_back(out, true);
  return record(node, {&x}, out);
}

Tensor record_norm(const Tensor& x, double p, const OptDims& dims, bool keepdim, const Tensor& out) {
  auto node = reduce_node("LinalgVectorNormBackward0", &norm_backward, x, reduced_dims(x, dims), keepdim);
  node->scalar = Scalar(p);
  node->saved.emplace_back(x, false);
  node->saved.emplace_back(out, true);
  return record(node, {&x}, out);
}

Tensor record_logsumexp(const Tensor& x, const DimVector& dims, bool keepdim, const Tensor& out) {
  auto node = reduce_node("LogsumexpBackward0", &logsumexp_backward, x, reduced_dims(x, dims), keepdim);
  node->saved.emplace_back(x, false);
  node->saved.emplace_back(out, true);
  return record(node, {&x}, out);
}

Tensor record_softmax(bool log_space, const Tensor& x, int64_t dim, const Tensor& out) {
  auto node = make_node(log_space ? "LogSoftmaxBackward0" : "SoftmaxBackward0",
                        log_space ? &log_softmax_backward : &softmax_backward);
  node->ints = DimVector{x.dim() ? wrap_dim(dim, x.dim()) : 0};
  node->saved.emplace_back(out, true);
  return record(node, {&x}, out);
}

Tensor record_cumsum(const Tensor& x, int64_t dim, const Tensor& out) {
  auto node = make_node("CumsumBackward0", &cumsum_backward);
  node->ints = DimVector{x.dim() ? wrap_dim(dim, x.dim()) : 0};
  return record(node, {&x}, out);
}

}  // namespace tandem::autograd
