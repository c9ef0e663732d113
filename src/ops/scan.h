// Scans along one dim beyond cumsum (which has its own kernel, ops/reduce.h): cumprod, cummax/cummin and
// logcumsumexp, composed from public elementwise ops as a log-step scan, so every device gets them.
#pragma once
#include <functional>
#include <vector>

#include "ops/reduce.h"

namespace tandem {

// Integral and bool inputs give int64 unless `dtype` says otherwise; `dtype` converts first.
Tensor cumprod(const Tensor& x, int64_t dim, OptDType dtype = {});
// Running max/min and the position it came from. Equal values move the index to the later one; NaN counts as
// larger (and smaller) than everything and, once seen, stays, its index moving to each later NaN.
ValuesIndices cummax(const Tensor& x, int64_t dim);
ValuesIndices cummin(const Tensor& x, int64_t dim);
// log(cumsum(exp(x))) without overflow; floating inputs only.
Tensor logcumsumexp(const Tensor& x, int64_t dim);
// In-place forms (PyTorch's Tensor methods): the scan computed in self's dtype (a different `dtype` is a
// "Bad in-place call") and written back into self. Return self.
Tensor cumsum_(const Tensor& x, int64_t dim, OptDType dtype = {});
Tensor cumprod_(const Tensor& x, int64_t dim, OptDType dtype = {});

// The log-step scan these are built from, for other composed scans (scatter_reduce's segmented one): the
// inclusive scan of `parts` (tensors of one shape) along dim. combine(earlier, later, out) must write the
// combination of earlier[k] and later[k] into out[k] (equal-shaped views; out never overlaps the others).
// Returns fresh contiguous tensors; `parts` are only read.
using ScanParts = std::vector<Tensor>;
using ScanCombine =
    std::function<void(const ScanParts& earlier, const ScanParts& later, const ScanParts& out)>;
ScanParts log_step_scan(const ScanParts& parts, int64_t dim, const ScanCombine& combine);
// 0, 1, ..., sizes[dim] - 1 along dim (int64), broadcast to `sizes` (a view).
Tensor positions_along(IntArrayRef sizes, int64_t dim, Device device);

}  // namespace tandem
