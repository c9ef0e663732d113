// bincount, histc and histogram: each element's bin is computed as a tensor (by PyTorch's CPU rules: linear
// interpolation for histc, interpolation checked against the neighbouring edges for histogram(bins=int),
// upper-bound search for given edges), elements out of range go to one extra bin that is dropped, and
// scatter_add does the counting. Not differentiable, so they compute with grad mode off.
#include "ops/histogram.h"

#include <cmath>
#include <limits>

#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factories.h"
#include "ops/indexing.h"
#include "ops/reduce.h"
#include "ops/search_sets.h"
#include "ops/view.h"

namespace tandem {

Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights, int64_t minlength) {
  profiler::RecordScope profile_scope("aten::bincount", x, weights, minlength);
  TANDEM_CHECK(is_integral(x.dtype(), false), NotImplemented, "\"bincount_cpu\" not implemented for '",
               dtype_title(x.dtype()), "'\nhint: bincount counts integers; convert first, e.g. x.long()");
  TANDEM_CHECK(minlength >= 0, Runtime, "minlength should be >= 0");
  Device dev = x.device();
  if (x.dim() == 1 && x.numel() == 0)
    return full(DimVector{minlength}, Scalar(int64_t{0}), DType::Int64, dev);
  TANDEM_CHECK(x.dim() == 1 && item(amin(x)).to_int() >= 0, Runtime,
               "bincount only supports 1-d non-negative integral inputs.", "\nhint: got shape ",
               x.shape_str(), "; bincount needs a 1-D tensor of values >= 0");
  TANDEM_CHECK(!weights || (weights->dim() == 1 && weights->sizes()[0] == x.sizes()[0]), Runtime,
               "weights should be 1-d and have the same length as input");
  if (weights) check_same_device("bincount", x, *weights, "input", "weights");
  const int64_t largest = item(amax(x)).to_int();
  // One bin past the largest value must still be an int64 size.
  TANDEM_CHECK(largest < std::numeric_limits<int64_t>::max(), Runtime,
               "maximum value of input overflowed, it should be < ", std::numeric_limits<int64_t>::max(),
               " but got ", largest);
  const int64_t nbins = std::max(largest + 1, minlength);
  const DType out_dtype = !weights                             ? DType::Int64
                          : weights->dtype() == DType::Float32 ? DType::Float32
                                                               : DType::Float64;
  return autograd::without_grad([&] {
    // PyTorch converts the weights to double (complex ones lose their imaginary parts).
    Tensor src = weights ? cast_discarding_imag(*weights, out_dtype)
                         : full(x.sizes(), Scalar(int64_t{1}), DType::Int64, dev);
    return scatter_add(full(DimVector{nbins}, Scalar(int64_t{0}), out_dtype, dev), 0,
                       to_dtype(x, DType::Int64), src);
  });
}

namespace {

enum class BinRule { Linear, LinearChecked, UpperBound };

Tensor edge(const Tensor& edges, int64_t i) { return reshape(narrow(edges, 0, i, 1), DimVector{}); }

// The bin of each element of 1-D x among `bins` bins with `edges` (bins + 1 of them); `bins` itself (a bin
// that is dropped later) for elements outside [edges[0], edges[bins]] and NaNs. The last bin includes its
// right edge.
Tensor bin_positions(const Tensor& x, const Tensor& edges, int64_t bins, BinRule rule) {
  Tensor lo = edge(edges, 0), hi = edge(edges, bins);
  Tensor inside = logical_and(ge(x, lo), le(x, hi));
  Tensor xs = where(inside, x, lo);  // out-of-range values and NaNs would give meaningless positions
  const Scalar one(int64_t{1}), zero(int64_t{0});
  Tensor pos;
  if (rule == BinRule::UpperBound) {
    pos = sub(searchsorted(edges, xs, false, true), one);
  } else {
    // PyTorch's (x - lo) * bins / (hi - lo) in x's dtype, truncated.
    pos = minimum(to_dtype(div(mul(sub(xs, lo), Scalar(bins)), sub(hi, lo)), DType::Int64), Scalar(bins));
    if (rule == BinRule::LinearChecked) {
      // Rounding can put an element next to its true bin: count the edges in [pos - 1, pos + 1] at or
      // below it (PyTorch's upper_bound over that window).
      Tensor below = full(DimVector{}, zero, DType::Int64, x.device());
      for (int64_t offset = -1; offset <= 1; ++offset) {
        Tensor j = add(pos, Scalar(offset));
        Tensor valid = logical_and(ge(j, zero), le(j, Scalar(bins)));
        Tensor e = take(edges, clamp(j, zero, Scalar(bins)));
        below = add(below, logical_and(valid, le(e, xs)));
      }
      pos = sub(add(maximum(sub(pos, one), zero), below), one);
    }
  }
  pos = minimum(pos, Scalar(bins - 1));
  return where(inside, pos, full(DimVector{}, Scalar(bins), DType::Int64, x.device()));
}

Tensor accumulate(const Tensor& pos, const std::optional<Tensor>& weight, int64_t bins, DType dtype) {
  Device dev = pos.device();
  Tensor src = weight ? reshape(*weight, DimVector{-1}) : full(pos.sizes(), Scalar(int64_t{1}), dtype, dev);
  Tensor hist = scatter_add(full(DimVector{bins + 1}, Scalar(int64_t{0}), dtype, dev), 0, pos, src);
  return contiguous(narrow(hist, 0, 0, bins));
}

void check_bins(int64_t bins) {
  TANDEM_CHECK(bins > 0, Runtime, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0",
               "\nhint: ask for at least one bin (or give at least two edges)");
}

// histogramdd's checks of the weights (x is seen as [numel, 1]).
void check_weight(const Tensor& x, const std::optional<Tensor>& weight) {
  if (!weight) return;
  TANDEM_CHECK(
      weight->dtype() == x.dtype(), Runtime,
      "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should have the "
      "same dtype, but got input(",
      dtype_cpp_name(x.dtype()), "), and weight(", dtype_cpp_name(weight->dtype()), ")");
  TANDEM_CHECK(
      weight->numel() == x.numel(), Runtime,
      "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor "
      "excluding its innermost dimension, but got input with shape ",
      shape_to_string(DimVector{x.numel(), 1}), " and weight with shape ",
      shape_to_string(DimVector{weight->numel()}));
  check_same_device("histogram", x, *weight, "input", "weight");
}

// PyTorch's dispatch names: its range search (aminmax over float and double), its linspace of the edges (no
// bool) and its binning kernel (every floating dtype).
void check_range_search_dtype(const Tensor& x) {
  TANDEM_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64, NotImplemented,
               "\"histogramdd\" not implemented for '", dtype_title(x.dtype()),
               "'\nhint: convert first, e.g. x.float(), or pass range=(min, max)");
}
void check_linspace_dtype(const Tensor& x) {
  TANDEM_CHECK(x.dtype() != DType::Bool, NotImplemented, "\"linspace_", x.device().is_cpu() ? "cpu" : "cuda",
               "\" not implemented for 'Bool'\nhint: convert first, e.g. x.float()");
}
// Named for PyTorch's CPU kernel on every device: PyTorch's CUDA has no histogram, and its CUDA histc would
// take integers, which tandem's shared kernel does not.
void check_kernel_dtype(const Tensor& x) {
  TANDEM_CHECK(is_floating(x.dtype()), NotImplemented, "\"histogram_cpu\" not implemented for '",
               dtype_title(x.dtype()), "'\nhint: convert first, e.g. x.float()");
}

Histogram finish(const Tensor& x, const Tensor& edges, int64_t bins, BinRule rule,
                 const std::optional<Tensor>& weight, bool density) {
  Tensor hist =
      accumulate(bin_positions(reshape(x, DimVector{-1}), edges, bins, rule), weight, bins, x.dtype());
  if (density) {
    hist = div(hist, sum(hist));
    hist = div(hist, sub(narrow(edges, 0, 1, bins), narrow(edges, 0, 0, bins)));
  }
  return {hist, edges};
}

}  // namespace

Tensor histc(const Tensor& x, int64_t bins, double min, double max) {
  profiler::RecordScope profile_scope("aten::histc", x, bins, min, max);
  if (is_complex(x.dtype())) {  // no order: PyTorch's errors, from its range search or its kernel
    TANDEM_CHECK(min != max, Type, "aminmax not implemented for ", dtype_title(x.dtype()),
                 "\nhint: histogram the real parts or the magnitudes, e.g. x.abs()");
    TANDEM_THROW(NotImplemented, "\"histogram_", x.device().is_cpu() ? "cpu" : "cuda",
                 "\" not implemented for '", dtype_title(x.dtype()),
                 "'\nhint: histogram the real parts or the magnitudes, e.g. x.abs()");
  }
  check_bins(bins);
  double lo = min, hi = max;
  if (lo == hi && x.numel() > 0) {
    lo = item(amin(x)).to_double();
    hi = item(amax(x)).to_double();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  TANDEM_CHECK(std::isfinite(lo) && std::isfinite(hi), Runtime, "torch.histc: range of [", lo, ", ", hi,
               "] is not finite", "\nhint: pass finite min= and max=, or drop the NaN/inf elements first");
  TANDEM_CHECK(lo < hi, Runtime, "torch.histc: max must be larger than min");
  check_linspace_dtype(x);  // PyTorch's histc of bools fails first in its linspace of the bin edges
  check_kernel_dtype(x);
  return autograd::without_grad([&] {
    Tensor edges = linspace(Scalar(lo), Scalar(hi), bins + 1, x.dtype(), x.device());
    return finish(x, edges, bins, BinRule::Linear, {}, false).hist;
  });
}

Histogram histogram(const Tensor& x, int64_t bins, std::optional<std::pair<double, double>> range,
                    const std::optional<Tensor>& weight, bool density) {
  check_bins(bins);
  double lo = 0, hi = 1;
  if (range) {
    lo = range->first;
    hi = range->second;
  } else if (x.numel() > 0) {
    check_range_search_dtype(x);
    lo = item(amin(x)).to_double();
    hi = item(amax(x)).to_double();
  }
  TANDEM_CHECK(std::isfinite(lo) && std::isfinite(hi), Runtime, "torch.histogramdd: dimension 0's range [",
               lo, ", ", hi, "] is not finite",
               "\nhint: pass a finite range=, or drop the NaN/inf elements first");
  TANDEM_CHECK(lo <= hi, Runtime, "torch.histogramdd: min should not exceed max, but got min ", lo, " max ",
               hi, " for dimension 0");
  if (lo == hi) {  // as NumPy: widen an empty range so bins have a width
    lo -= 0.5;
    hi += 0.5;
  }
  check_linspace_dtype(x);
  check_weight(x, weight);
  check_kernel_dtype(x);
  return autograd::without_grad([&] {
    Tensor edges = linspace(Scalar(lo), Scalar(hi), bins + 1, x.dtype(), x.device());
    return finish(x, edges, bins, BinRule::LinearChecked, weight, density);
  });
}

Histogram histogram(const Tensor& x, const Tensor& bins, const std::optional<Tensor>& weight, bool density) {
  TANDEM_CHECK(
      bins.numel() > 0, Runtime,
      "torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in the bins "
      "tensor for dimension 0",
      "\nhint: give at least two bin edges");
  const int64_t n = bins.numel() - 1;
  check_bins(n);
  TANDEM_CHECK(
      bins.dtype() == x.dtype(), Runtime,
      "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input with "
      "dtype ",
      dtype_cpp_name(x.dtype()), " and bins for dimension 0 with dtype ", dtype_cpp_name(bins.dtype()),
      "\nhint: convert the edges, e.g. bins.to(x.dtype)");
  TANDEM_CHECK(bins.dim() == 1, Runtime, "torch.histogramdd: bins tensor should have one dimension, but got ",
               bins.dim(), " dimensions in the bins tensor for dimension 0");
  check_weight(x, weight);
  check_kernel_dtype(x);
  check_same_device("histogram", x, bins, "input", "bins");
  return autograd::without_grad(
      [&] { return finish(x, clone(bins), n, BinRule::UpperBound, weight, density); });
}

}  // namespace tandem
