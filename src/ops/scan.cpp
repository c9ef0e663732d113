// cumprod, cummax/cummin and logcumsumexp as log-step (Hillis-Steele) scans over public ops: round k combines
// each element with the one 2^k before it, so a scan of n elements is ceil(log2 n) rounds of a few
// elementwise launches on slices. The combine steps are associative (wrapping integer products included), so
// integer results equal the sequential ones exactly. A dedicated scan kernel would do one pass instead of
// log2(n) (see bench/scan_bench.py); this composition gives every device the ops without new kernel slots.
// Their gradients (equal to PyTorch's, written with public ops so they run everywhere) live here too.
#include "ops/scan.h"

#include <limits>
#include <vector>

#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "ops/autocast.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factories.h"
#include "ops/indexing.h"
#include "ops/join.h"
#include "ops/view.h"

namespace tandem {

namespace {

using Parts = ScanParts;

bool is_half_like(DType d) { return d == DType::Float16 || d == DType::BFloat16; }
// 16-bit floats scan in float32 (PyTorch's CPU accumulates them in float too).
Tensor widen(const Tensor& x) { return is_half_like(x.dtype()) ? to_dtype(x, DType::Float32) : x; }
Tensor scalar_like(double v, const Tensor& x) { return full(DimVector{}, Scalar(v), x.dtype(), x.device()); }

}  // namespace

// After the round with shift s, position j holds the combination of positions (j - 2s, j].
ScanParts log_step_scan(const ScanParts& parts, int64_t d, const ScanCombine& combine) {
  const int64_t n = parts[0].sizes()[d];
  ScanParts cur = parts, next, spare;
  for (const Tensor& t : parts) next.push_back(empty(t.sizes(), t.dtype(), t.device()));
  if (n <= 1) {
    for (size_t k = 0; k < parts.size(); ++k) copy_(next[k], parts[k]);
    return next;
  }
  for (int64_t s = 1; s < n; s *= 2) {
    ScanParts earlier, later, out;
    for (size_t k = 0; k < cur.size(); ++k) {
      copy_(narrow(next[k], d, 0, s), narrow(cur[k], d, 0, s));
      earlier.push_back(narrow(cur[k], d, 0, n - s));
      later.push_back(narrow(cur[k], d, s, n - s));
      out.push_back(narrow(next[k], d, s, n - s));
    }
    combine(earlier, later, out);
    // The first round read the caller's tensors; from then on two buffers alternate.
    if (spare.empty()) {
      for (const Tensor& t : next) spare.push_back(empty(t.sizes(), t.dtype(), t.device()));
      cur = next;
      next = spare;
    } else {
      std::swap(cur, next);
    }
  }
  return cur;
}

Tensor positions_along(IntArrayRef sizes, int64_t d, Device device) {
  DimVector shape(sizes.size(), 1);
  shape[d] = sizes[d];
  Tensor r = arange(Scalar(int64_t{0}), Scalar(sizes[d]), Scalar(int64_t{1}), DType::Int64, device);
  return expand(reshape(r, shape), sizes);
}

// ---- gradients ----
namespace autograd {
namespace {
using Grads = std::vector<Tensor>;

// x shifted one step along d, `fill` coming in at the front.
Tensor shift_in(const Tensor& x, int64_t d, double fill) {
  DimVector one = x.sizes();
  one[d] = 1;
  return cat({full(one, Scalar(fill), x.dtype(), x.device()), narrow(x, d, 0, x.sizes()[d] - 1)}, d);
}

// h_m = a_m * h_(m-1) + b_m along d (h_(-1) = 0): a log-step scan over (a, b) pairs made of recorded ops
// (narrow, mul, add, cat), so a graph of the backward pass differentiates it again.
Tensor linear_recurrence(Tensor a, Tensor b, int64_t d) {
  const int64_t n = a.sizes()[d];
  for (int64_t s = 1; s < n; s *= 2) {
    Tensor a_cur = narrow(a, d, s, n - s), a_prev = narrow(a, d, 0, n - s);
    b = cat({narrow(b, d, 0, s), add(mul(a_cur, narrow(b, d, 0, n - s)), narrow(b, d, s, n - s))}, d);
    a = cat({narrow(a, d, 0, s), mul(a_cur, a_prev)}, d);
  }
  return b;
}

// d out_j / d x_k = prod_{i<k} x_i * prod_{k<i<=j} x_i, so grad_k = E_k * R_k with E the exclusive cumprod
// and R_k = g_k + x_(k+1) R_(k+1), a reverse linear recurrence. No division: zeros in x need no special case,
// and the formula is a polynomial in x, so second derivatives are right at zeros too. For complex x both
// factors take conj(x) (grad * conj(d out / d x), PyTorch's convention); conj of a real x is x itself.
Grads cumprod_backward(FormulaNode& n, const Tensor& g) {
  if (g.dim() == 0 || g.numel() == 0) return {g};
  const int64_t d = n.ints[0];
  const DimVector dims{d};
  Tensor x = conj(n.saved_tensor(0));
  Tensor exclusive = cumprod(shift_in(x, d, 1.0), d);
  Tensor reverse = flip(linear_recurrence(shift_in(flip(x, dims), d, 0.0), flip(g, dims), d), dims);
  return {mul(exclusive, reverse)};
}

// The gradient goes to the element each running max/min came from.
Grads cummaxmin_backward(FormulaNode& n, const Tensor& g) {
  if (g.dim() == 0 || g.numel() == 0) return {g};
  Tensor zeros = full(g.sizes(), Scalar(0.0), g.dtype(), g.device());
  return {scatter_add(zeros, n.ints[0], n.saved_tensor(0), g)};
}

double lowest(DType d) {
  switch (d) {
    case DType::Float16:
      return -65504.0;
    case DType::BFloat16:
      return -3.3895313892515355e38;
    case DType::Float32:
      return std::numeric_limits<float>::lowest();
    default:
      return std::numeric_limits<double>::lowest();
  }
}

// PyTorch's (after TensorFlow's) stable form: the positive and negative parts of the gradient each go
// through a reverse logcumsumexp in log space, so no exp(-out) ever overflows.
Grads logcumsumexp_backward(FormulaNode& n, const Tensor& g) {
  if (g.dim() == 0 || g.numel() == 0) return {g};
  const int64_t d = n.ints[0];
  Tensor x = n.saved_tensor(0), out = n.saved_tensor(1);
  if (is_complex(g.dtype())) {
    // Holomorphic: d out_j / d x_i = exp(x_i - out_j) for i <= j, so the gradient is conj(exp(x_i)) times the
    // reverse cumulative sum of g_j conj(exp(-out_j)) (complex values have no sign to split by).
    Tensor w = mul(g, conj(exp(neg(out))));
    return {mul(flip(cumsum(flip(w, DimVector{d}), d), DimVector{d}), conj(exp(x)))};
  }
  auto reverse_lcse = [d](const Tensor& t) {
    return flip(logcumsumexp(flip(t, DimVector{d}), d), DimVector{d});
  };
  Tensor floor = scalar_like(lowest(g.dtype()), g);
  Tensor log_abs = log(abs(g));
  Tensor log_pos = where(gt(g, Scalar(0.0)), log_abs, floor);
  Tensor log_neg = where(lt(g, Scalar(0.0)), log_abs, floor);
  Tensor pos = exp(add(reverse_lcse(sub(log_pos, out)), x));
  Tensor neg = exp(add(reverse_lcse(sub(log_neg, out)), x));
  return {sub(pos, neg)};
}

std::shared_ptr<FormulaNode> scan_node(const char* name, FormulaNode::Formula f, const Tensor& x,
                                       int64_t dim) {
  auto node = make_node(name, f);
  node->ints = DimVector{x.dim() ? wrap_dim(dim, x.dim()) : 0};
  return node;
}

}  // namespace
}  // namespace autograd

Tensor cumprod(const Tensor& x, int64_t dim, OptDType dtype) {
  profiler::RecordScope profile_scope("aten::cumprod", x, dim, dtype);
  if (autocast::is_active())
    return autocast::run_fp32_output(autocast::kCudaFp32Output, x, dtype,
                                     [&](OptDType d) { return cumprod(x, dim, d); });
  const int64_t d = wrap_dim(dim, x.dim());
  if (autograd::should_record(x)) {
    // dtype= converts first (a recorded conversion), so the node sees the scanned values.
    if (dtype && *dtype != x.dtype()) return cumprod(to_dtype(x, *dtype), dim, {});
    Tensor out = autograd::without_grad([&] { return cumprod(x, dim, dtype); });
    auto node = autograd::scan_node("CumprodBackward0", &autograd::cumprod_backward, x, d);
    node->saved.emplace_back(x, false);
    return autograd::record(node, {&x}, out);
  }
  const DType out_dtype =
      dtype.value_or(is_floating(x.dtype()) || is_complex(x.dtype()) ? x.dtype() : DType::Int64);
  const Tensor in = widen(to_dtype(x, out_dtype));
  if (x.dim() == 0) return to_dtype(in, out_dtype, true);
  Tensor r = log_step_scan(
      {in}, d, [](const Parts& a, const Parts& b, const Parts& out) { mul_out(a[0], b[0], out[0]); })[0];
  return to_dtype(r, out_dtype);
}

namespace {

// Ties move the index to the later element; a NaN wins over everything and later NaNs take its place.
ValuesIndices cum_extreme(const Tensor& x, int64_t dim, bool is_max) {
  TANDEM_CHECK(x.dim() > 0 || dim == 0 || dim == -1, Index, is_max ? "cummax" : "cummin",
               "(): Expected reduction dim -1 or 0 for scalar but got ", dim);
  // Complex numbers have no order: PyTorch's NotImplementedError (the maximum below would raise a TypeError).
  TANDEM_CHECK(!is_complex(x.dtype()), NotImplemented, "\"", is_max ? "cummax" : "cummin",
               x.device().is_cpu() ? "_cpu" : "_cuda", "\" not implemented for '", dtype_title(x.dtype()),
               "'", "\nhint: take the maximum of x.abs() or x.real");
  const int64_t d = wrap_dim(dim, x.dim());
  if (autograd::should_record(x)) {
    ValuesIndices r = autograd::without_grad([&] { return cum_extreme(x, dim, is_max); });
    auto node = autograd::scan_node(is_max ? "CummaxBackward0" : "CumminBackward0",
                                    &autograd::cummaxmin_backward, x, d);
    node->saved.emplace_back(r.second, false);
    autograd::set_history(node, {&x}, {&r.first, &r.second});
    return r;
  }
  if (x.dim() == 0) return {clone(x), full(DimVector{}, Scalar(int64_t{0}), DType::Int64, x.device())};
  // The running values are a NaN-propagating maximum (minimum) scan. An element is the running value's source
  // when it equals it (or is NaN); the index is the last such position so far, a maximum scan of positions.
  Tensor values = log_step_scan({x}, d, [is_max](const Parts& a, const Parts& b, const Parts& out) {
    is_max ? maximum_out(a[0], b[0], out[0]) : minimum_out(a[0], b[0], out[0]);
  })[0];
  Tensor source = eq(x, values);
  if (is_floating(x.dtype())) source = logical_or(source, isnan(x));
  Tensor marks = where(source, positions_along(x.sizes(), d, x.device()),
                       full(DimVector{}, Scalar(int64_t{-1}), DType::Int64, x.device()));
  Tensor indices = log_step_scan({marks}, d, [](const Parts& a, const Parts& b, const Parts& out) {
    maximum_out(a[0], b[0], out[0]);
  })[0];
  return {values, indices};
}

}  // namespace

ValuesIndices cummax(const Tensor& x, int64_t dim) { return cum_extreme(x, dim, true); }
ValuesIndices cummin(const Tensor& x, int64_t dim) { return cum_extreme(x, dim, false); }

Tensor logcumsumexp(const Tensor& x, int64_t dim) {
  profiler::RecordScope profile_scope("aten::logcumsumexp", x, dim);
  const int64_t d = wrap_dim(dim, x.dim());
  TANDEM_CHECK(is_floating(x.dtype()) || is_complex(x.dtype()), NotImplemented,
               "\"logcumsumexp_out_cpu\" not implemented for '", dtype_title(x.dtype()),
               "'\nhint: convert first, e.g. x.float().logcumsumexp(dim)");
  if (autograd::should_record(x)) {
    Tensor out = autograd::without_grad([&] { return logcumsumexp(x, dim); });
    auto node = autograd::scan_node("LogcumsumexpBackward0", &autograd::logcumsumexp_backward, x, d);
    node->saved.emplace_back(x, false);
    node->saved.emplace_back(out, true);
    return autograd::record(node, {&x}, out);
  }
  if (x.dim() == 0) return clone(x);
  Tensor r = log_step_scan({widen(x)}, d, [](const Parts& a, const Parts& b, const Parts& out) {
    logaddexp_out(a[0], b[0], out[0]);
  })[0];
  return to_dtype(r, x.dtype());
}

namespace {

Tensor scan_inplace(const Tensor& x, int64_t dim, OptDType dtype, const char* name,
                    Tensor (*op)(const Tensor&, int64_t, OptDType)) {
  const DType want = dtype.value_or(x.dtype());
  TANDEM_CHECK(want == x.dtype(), Runtime, "Bad in-place call: input tensor dtype ",
               dtype_cpp_name(x.dtype()), " and output tensor dtype ", dtype_cpp_name(want), " should match",
               "\nhint: leave out dtype=, or use the out-of-place x.", name, "(dim, dtype=...)");
  TANDEM_CHECK(x.dtype() != DType::Bool, NotImplemented, "\"", name, "_out_cpu\" not implemented for 'Bool'",
               "\nhint: convert first, e.g. x = x.long()");
  if (autograd::should_record(x))
    return autograd::inplace_with_grad(x, [&](const Tensor& before) { return op(before, dim, want); });
  check_writeable(x, name);
  copy_(x, op(x, dim, want));
  return x;
}

}  // namespace

Tensor cumsum_(const Tensor& x, int64_t dim, OptDType dtype) {
  profiler::RecordScope profile_scope("aten::cumsum_", x, dim, dtype);
  return scan_inplace(x, dim, dtype, "cumsum", &cumsum);
}
Tensor cumprod_(const Tensor& x, int64_t dim, OptDType dtype) {
  profiler::RecordScope profile_scope("aten::cumprod_", x, dim, dtype);
  return scan_inplace(x, dim, dtype, "cumprod", &cumprod);
}

}  // namespace tandem
