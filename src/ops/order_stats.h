// Order statistics built from sort, gather and elementwise ops, so every device that sorts has them: median,
// nanmedian, kthvalue, mode, quantile, nanquantile, msort. NaN counts as the largest value (as in sort).
// Where several elements tie for the answer, the index returned is the one a stable sort puts at the
// selected position (mode: the last occurrence of the mode), a valid index PyTorch may pick differently.
#pragma once
#include <optional>
#include <string_view>

#include "core/tensor.h"
#include "ops/reduce.h"

namespace tandem {

// The lower median of all elements as a 0-dim tensor: NaN when any element is NaN (median) or the median of
// the non-NaN elements (nanmedian). An empty input gives NaN.
Tensor median(const Tensor& x);
Tensor nanmedian(const Tensor& x);
// (values, indices) of the lower median along `dim`; median picks the first NaN of a slice holding one.
ValuesIndices median(const Tensor& x, int64_t dim, bool keepdim = false);
ValuesIndices nanmedian(const Tensor& x, int64_t dim, bool keepdim = false);
// The k-th smallest (1-based) along dim.
ValuesIndices kthvalue(const Tensor& x, int64_t k, int64_t dim = -1, bool keepdim = false);
// The most frequent value along dim (the smallest among equally frequent ones; each NaN counts alone).
ValuesIndices mode(const Tensor& x, int64_t dim = -1, bool keepdim = false);

enum class QuantileInterpolation { Linear, Lower, Higher, Midpoint, Nearest };
// "linear", "lower", ... or PyTorch's RuntimeError.
QuantileInterpolation parse_quantile_interpolation(std::string_view name);
// q: a float or 0-/1-D tensor of x's dtype with values in [0, 1]. A 1-D q puts its dim first in the result.
// dim unset: over all elements (keepdim keeps every dim as 1). nanquantile skips NaNs; quantile gives NaN
// for a slice holding one.
Tensor quantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim = {}, bool keepdim = false,
                QuantileInterpolation interpolation = QuantileInterpolation::Linear);
Tensor quantile(const Tensor& x, double q, std::optional<int64_t> dim = {}, bool keepdim = false,
                QuantileInterpolation interpolation = QuantileInterpolation::Linear);
Tensor nanquantile(const Tensor& x, const Tensor& q, std::optional<int64_t> dim = {}, bool keepdim = false,
                   QuantileInterpolation interpolation = QuantileInterpolation::Linear);
Tensor nanquantile(const Tensor& x, double q, std::optional<int64_t> dim = {}, bool keepdim = false,
                   QuantileInterpolation interpolation = QuantileInterpolation::Linear);
// Sorted along dim 0 (sort(x, 0).values).
Tensor msort(const Tensor& x);

}  // namespace tandem
