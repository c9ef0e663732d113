// Order statistics as compositions of a stable sort with gathers and elementwise ops: no kernel of their own,
// so every device that sorts runs them, and positions are computed as tensors (no host round trip per
// slice). Selections record PyTorch's nodes; quantile lets autograd flow through sort, gather and the
// interpolation, as PyTorch's composite does.
#include "ops/order_stats.h"

#include <cmath>
#include <limits>
#include <string>

#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/indexing.h"
#include "ops/join.h"
#include "ops/reduce_plan.h"
#include "ops/view.h"

namespace tandem {

namespace {

Tensor scalar_int(int64_t v, Device device) { return full(DimVector{}, Scalar(v), DType::Int64, device); }

void check_not_bool(const Tensor& x, const char* kernel) {
  TANDEM_CHECK(x.dtype() != DType::Bool, NotImplemented, "\"", kernel, "\" not implemented for 'Bool'",
               "\nhint: convert first, e.g. x.int()");
}

// The input seen as at least 1-D, the wrapped dim and its size; PyTorch's IndexError for an empty dim.
struct Slices {
  Tensor in;
  int64_t dim;
  int64_t size;
};
Slices slices_along(const Tensor& x, int64_t dim, const char* op) {
  int64_t d = wrap_dim(dim, x.dim());
  Tensor in = x.dim() ? x : reshape(x, DimVector{1});
  TANDEM_CHECK(in.sizes()[d] > 0, Index, op, ": Expected reduction dim ", d, " to have non-zero size.",
               "\nhint: dim ", d, " of shape ", x.shape_str(), " is empty; reduce a non-empty dim");
  return {in, d, in.sizes()[d]};
}

// Results computed with the reduced dim kept (size 1) on the 1-D-or-more view, in the user's shape.
ValuesIndices finish(const Tensor& x, const Slices& s, bool keepdim, Tensor values, Tensor indices) {
  if (x.dim() == 0) return {reshape(values, DimVector{}), reshape(indices, DimVector{})};
  if (keepdim) return {values, indices};
  return {squeeze(values, DimVector{s.dim}), squeeze(indices, DimVector{s.dim})};
}

// Runs `compute` without grad and, when x needs it, gives the values PyTorch's selection node (the gradient
// goes to the positions the indices name).
template <typename F>
ValuesIndices selecting(const char* node, const Tensor& x, int64_t dim, bool keepdim, F&& compute) {
  if (!autograd::should_record(x)) return compute();
  ValuesIndices r = autograd::without_grad(compute);
  autograd::record_select_values(node, x, dim, keepdim, r.first, r.second);
  return r;
}

// Position (as a [.., 1, ..] int64 tensor along d) of the lower median in each slice of `sorted`, where NaNs
// sit last: median takes the first NaN when there is one, nanmedian the median of the non-NaN prefix (the
// first NaN again when a slice is all NaN).
Tensor median_position(const Tensor& sorted, int64_t d, bool ignore_nan) {
  int64_t n = sorted.sizes()[d];
  Tensor n_valid = sum(logical_not(isnan(sorted)), DimVector{d}, true);
  if (ignore_nan)
    return floor_divide(maximum(sub(n_valid, Scalar(int64_t{1})), Scalar(int64_t{0})), Scalar(int64_t{2}));
  return where(lt(n_valid, Scalar(n)), n_valid, scalar_int((n - 1) / 2, sorted.device()));
}

// The selected positions of a stable sort along d, as (values, original indices).
ValuesIndices pick(const ValuesIndices& sorted, int64_t d, const Tensor& pos) {
  return {gather(sorted.first, d, pos), gather(sorted.second, d, pos)};
}
ValuesIndices pick(const ValuesIndices& sorted, int64_t d, int64_t pos) {
  return {contiguous(narrow(sorted.first, d, pos, 1)), contiguous(narrow(sorted.second, d, pos, 1))};
}

ValuesIndices median_along(const Tensor& x, int64_t dim, bool keepdim, bool ignore_nan) {
  const char* name = ignore_nan ? "NanmedianBackward1" : "MedianBackward1";
  return selecting(name, x, dim, keepdim, [&] {
    Slices s = slices_along(x, dim, "median()");  // nanmedian's message names median() too, as PyTorch's
    check_not_bool(x, "median_out");
    ValuesIndices sorted = sort(s.in, s.dim, false, true);
    ValuesIndices r = is_floating(x.dtype())
                          ? pick(sorted, s.dim, median_position(sorted.first, s.dim, ignore_nan))
                          : pick(sorted, s.dim, (s.size - 1) / 2);
    return finish(x, s, keepdim, r.first, r.second);
  });
}

// median()/nanmedian(): the gradient is split evenly among the elements equal to the result (the NaNs when
// it is NaN), PyTorch's evenly_distribute_backward.
std::vector<Tensor> evenly_distribute_backward(autograd::FormulaNode& n, const Tensor& g) {
  Tensor x = n.saved_tensor(0), out = n.saved_tensor(1);
  Tensor mask = logical_or(eq(x, out), logical_and(isnan(x), isnan(out)));
  return {div(mul(mask, g), sum(mask))};
}

// Complex values have no order: PyTorch's NotImplementedError, naming its kernel.
void check_not_complex(const Tensor& x, const char* kernel) {
  TANDEM_CHECK(!is_complex(x.dtype()), NotImplemented, "\"", kernel, "\" not implemented for '",
               dtype_title(x.dtype()), "'\nhint: order the real parts or the magnitudes, e.g. x.abs()");
}

Tensor median_all(const Tensor& x, bool ignore_nan) {
  check_not_complex(x, x.device().is_cpu() ? "median_cpu" : "median_cuda");
  if (autograd::should_record(x)) {
    Tensor out = autograd::without_grad([&] { return median_all(x, ignore_nan); });
    auto node = autograd::make_node(ignore_nan ? "NanmedianBackward0" : "MedianBackward0",
                                    &evenly_distribute_backward);
    node->saved.emplace_back(x, false);
    node->saved.emplace_back(out, true);
    return autograd::record(node, {&x}, out);
  }
  if (x.numel() == 0)
    return to_dtype(
        full(DimVector{}, Scalar(std::numeric_limits<double>::quiet_NaN()), DType::Float32, x.device()),
        x.dtype());
  check_not_bool(x, "median_cpu");
  ValuesIndices sorted = sort(reshape(x, DimVector{-1}), 0, false, true);
  Tensor v = is_floating(x.dtype()) ? gather(sorted.first, 0, median_position(sorted.first, 0, ignore_nan))
                                    : narrow(sorted.first, 0, (x.numel() - 1) / 2, 1);
  return reshape(contiguous(v), DimVector{});
}

}  // namespace

Tensor median(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::median", x);
  return median_all(x, false);
}
Tensor nanmedian(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::nanmedian", x);
  return median_all(x, true);
}
ValuesIndices median(const Tensor& x, int64_t dim, bool keepdim) {
  wrap_dim(dim, x.dim());  // PyTorch checks the dim before the dtype
  check_not_complex(x, "median_out");
  return median_along(x, dim, keepdim, false);
}
ValuesIndices nanmedian(const Tensor& x, int64_t dim, bool keepdim) {
  wrap_dim(dim, x.dim());  // PyTorch checks the dim before the dtype
  check_not_complex(x, "median_out");
  return median_along(x, dim, keepdim, true);
}

ValuesIndices kthvalue(const Tensor& x, int64_t k, int64_t dim, bool keepdim) {
  return selecting("KthvalueBackward0", x, dim, keepdim, [&] {
    Slices s = slices_along(x, dim, "kthvalue()");
    TANDEM_CHECK(k >= 1 && k <= s.size, Runtime, "kthvalue(): selected number k out of range for dimension ",
                 s.dim, "\nhint: k is ", k, " but dim ", s.dim, " has size ", s.size, "; pick k in [1, ",
                 s.size, "]");
    check_not_bool(x, "kthvalue_cpu");
    check_not_complex(x, x.device().is_cpu() ? "kthvalue_cpu" : "kthvalue_cuda");
    ValuesIndices r = pick(sort(s.in, s.dim, false, true), s.dim, k - 1);
    return finish(x, s, keepdim, r.first, r.second);
  });
}

ValuesIndices mode(const Tensor& x, int64_t dim, bool keepdim) {
  return selecting("ModeBackward0", x, dim, keepdim, [&] {
    Slices s = slices_along(x, dim, "mode()");
    check_not_complex(x, x.device().is_cpu() ? "mode_cpu" : "mode_cuda");
    const int64_t d = s.dim, n = s.size;
    ValuesIndices sorted = sort(s.in, d, false, true);
    if (n == 1) return finish(x, s, keepdim, sorted.first, sorted.second);
    // Runs of equal values in the sorted slice (NaN != NaN, so each NaN is a run of its own). counts[r] is
    // the length of run r (zero past the last run); the first longest run holds the smallest mode, and its
    // last element (the mode's last occurrence, the sort being stable) is the answer.
    DimVector first_shape(s.in.sizes());
    first_shape[d] = 1;
    Tensor is_start = cat({full(first_shape, Scalar(true), DType::Bool, x.device()),
                           ne(narrow(sorted.first, d, 1, n - 1), narrow(sorted.first, d, 0, n - 1))},
                          d);
    Tensor run = sub(cumsum(is_start, d), Scalar(int64_t{1}));
    Tensor counts = scatter_add(full(s.in.sizes(), Scalar(int64_t{0}), DType::Int64, x.device()), d, run,
                                full(s.in.sizes(), Scalar(int64_t{1}), DType::Int64, x.device()));
    Tensor longest = argmax(counts, d, true);
    Tensor last = sub(gather(cumsum(counts, d), d, longest), Scalar(int64_t{1}));
    ValuesIndices r = pick(sorted, d, last);
    return finish(x, s, keepdim, r.first, r.second);
  });
}

QuantileInterpolation parse_quantile_interpolation(std::string_view name) {
  if (name == "linear") return QuantileInterpolation::Linear;
  if (name == "lower") return QuantileInterpolation::Lower;
  if (name == "higher") return QuantileInterpolation::Higher;
  if (name == "midpoint") return QuantileInterpolation::Midpoint;
  if (name == "nearest") return QuantileInterpolation::Nearest;
  TANDEM_THROW(Runtime,
               "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got ",
               name);
}

namespace {

// PyTorch's quantile_compute: sort each slice, turn q into fractional ranks, gather the neighbours and
// interpolate between them (lerp's two-sided formula, so results match PyTorch's bit for bit).
Tensor quantile_impl(const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     QuantileInterpolation interpolation, bool ignore_nan) {
  const char* fn = "quantile()";  // nanquantile's messages say quantile() too, as PyTorch's
  TANDEM_CHECK(x.numel() > 0, Runtime, fn, " input tensor must be non-empty");
  TANDEM_CHECK(q.dim() <= 1, Runtime, fn, " q must be a scalar or 1D tensor");
  TANDEM_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64, Runtime, fn,
               " input tensor must be either float or double dtype", "\nhint: convert first, e.g. x.float()");
  TANDEM_CHECK(q.dtype() == x.dtype(), Runtime, fn, " q tensor must be same dtype as the input tensor",
               "\nhint: make q ", dtype_name(x.dtype()), ", e.g. q.to(x.dtype)");
  TANDEM_CHECK(q.device() == x.device(), Runtime, fn,
               " q tensor must be on the same device as the input tensor",
               "\nhint: move q first, e.g. q.to(x.device)");
  // The reduced shape (keepdim applied), without q's dim.
  DimVector reduced;
  int64_t d = 0;
  if (dim && x.dim() > 0) {
    d = wrap_dim(*dim, x.dim());
    reduced = DimVector(x.sizes());
    if (keepdim)
      reduced[d] = 1;
    else
      reduced.erase(static_cast<size_t>(d));
  } else {
    if (dim) wrap_dim(*dim, x.dim());
    if (keepdim) reduced = DimVector(static_cast<size_t>(x.dim()), 1);
  }
  // Checked on every device (PyTorch's CUDA build asserts on the device instead): an out-of-range q would
  // otherwise reach the gathers below as an out-of-bounds position.
  TANDEM_CHECK(item(all(logical_and(ge(q, Scalar(0.0)), le(q, Scalar(1.0))))).to_bool(), Runtime, fn,
               " q values must be in the range [0, 1]");

  Tensor base = dim && x.dim() > 0 ? move_dim_last(x, d) : reshape(x, DimVector{-1});
  const int64_t n = base.sizes().back();
  DimVector sorted_shape = reduced;
  sorted_shape.push_back(n);
  Tensor sorted = reshape(sort(base, -1).first, sorted_shape);
  // Ranks are computed in float64, as PyTorch does (observed: q * (n - 1) is not rounded to float32 before
  // floor/ceil/round), so 'lower'/'nearest' pick the same neighbours.
  Tensor q1 = to_dtype(reshape(q, DimVector{-1}), DType::Float64);
  Tensor ranks;
  if (ignore_nan) {
    // Ranks among the non-NaN values; an all-NaN slice gets rank 0, so its quantile is NaN.
    Tensor valid = sum(logical_not(isnan(sorted)), DimVector{-1}, true);
    ranks = mul(q1, sub(valid, Scalar(int64_t{1})));
    ranks = where(lt(ranks, Scalar(0.0)), full(DimVector{}, Scalar(0.0), DType::Float64, x.device()), ranks);
  } else {
    // A slice holding NaN takes its last rank, where sort put the NaN.
    const int64_t last = n - 1;
    Tensor has_nan = any(isnan(sorted), DimVector{-1}, true);
    ranks = where(has_nan, full(DimVector{}, Scalar(static_cast<double>(last)), DType::Float64, x.device()),
                  mul(q1, Scalar(last)));
  }
  if (interpolation == QuantileInterpolation::Lower) ranks = floor(ranks);
  if (interpolation == QuantileInterpolation::Higher) ranks = ceil(ranks);
  if (interpolation == QuantileInterpolation::Nearest) ranks = round(ranks);  // half to even, as PyTorch

  Tensor below = autograd::without_grad([&] { return to_dtype(ranks, DType::Int64); });
  Tensor result = gather(sorted, -1, below);
  if (interpolation == QuantileInterpolation::Linear || interpolation == QuantileInterpolation::Midpoint) {
    Tensor weights = interpolation == QuantileInterpolation::Midpoint
                         ? full(DimVector{}, Scalar(0.5), x.dtype(), x.device())
                         : to_dtype(sub(ranks, below), x.dtype());
    Tensor above =
        gather(sorted, -1, autograd::without_grad([&] { return to_dtype(ceil(ranks), DType::Int64); }));
    Tensor diff = sub(above, result);
    result = where(lt(abs(weights), Scalar(0.5)), add(result, mul(weights, diff)),
                   sub(above, mul(diff, sub(Scalar(1.0), weights))));
  }
  if (q.dim() == 0) return squeeze(result, DimVector{-1});
  // q's dim goes first.
  DimVector order{result.dim() - 1};
  for (int64_t i = 0; i + 1 < result.dim(); ++i) order.push_back(i);
  return permute(result, order);
}

Tensor q_tensor(const Tensor& x, double q, const char* fn) {
  TANDEM_CHECK(q >= 0 && q <= 1, Runtime, fn, " q must be in the range [0, 1] but got ", q);
  // A non-float input fails quantile's dtype check before q's dtype matters.
  return full(DimVector{}, Scalar(q), is_floating(x.dtype()) ? x.dtype() : DType::Float64, x.device());
}

}  // namespace

Tensor quantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                QuantileInterpolation interpolation) {
  profiler::RecordScope profile_scope("aten::quantile", x, q, dim, keepdim, interpolation);
  return quantile_impl(x, q, dim, keepdim, interpolation, false);
}
Tensor quantile(const Tensor& x, double q, std::optional<int64_t> dim, bool keepdim,
                QuantileInterpolation interpolation) {
  profiler::RecordScope profile_scope("aten::quantile", x, q, dim, keepdim, interpolation);
  return quantile_impl(x, q_tensor(x, q, "quantile()"), dim, keepdim, interpolation, false);
}
Tensor nanquantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   QuantileInterpolation interpolation) {
  profiler::RecordScope profile_scope("aten::nanquantile", x, q, dim, keepdim, interpolation);
  return quantile_impl(x, q, dim, keepdim, interpolation, true);
}
Tensor nanquantile(const Tensor& x, double q, std::optional<int64_t> dim, bool keepdim,
                   QuantileInterpolation interpolation) {
  profiler::RecordScope profile_scope("aten::nanquantile", x, q, dim, keepdim, interpolation);
  return quantile_impl(x, q_tensor(x, q, "quantile()"), dim, keepdim, interpolation, true);
}

Tensor msort(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::msort", x);
  return sort(x, 0).first;
}

}  // namespace tandem
