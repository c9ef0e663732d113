// Counting ops: bincount, histc, histogram. Compositions of compares, gathers and scatter_add, so every
// device has them; bins are chosen exactly as PyTorch's CPU kernels choose them.
#pragma once
#include <optional>
#include <utility>

#include "core/tensor.h"

namespace tandem {

// How often each value occurs in a 1-D tensor of non-negative integers (or the sum of its weights: float32
// for float32 weights, float64 for any other weights dtype, as PyTorch). At least minlength bins.
Tensor bincount(const Tensor& x, const std::optional<Tensor>& weights = {}, int64_t minlength = 0);
// `bins` equal-width bins over [min, max] (the data's range when min == max); elements outside, and NaNs, are
// left out; the last bin includes its right edge. Floating inputs only; the result has x's dtype.
Tensor histc(const Tensor& x, int64_t bins = 100, double min = 0, double max = 0);

struct Histogram {
  Tensor hist;
  Tensor bin_edges;
};
// `bins` equal-width bins over `range` (the data's range when unset), or the given edges (1-D, increasing).
// weight: one per element, x's dtype. density: scaled so the histogram integrates to 1. float32/float64 only.
Histogram histogram(const Tensor& x, int64_t bins, std::optional<std::pair<double, double>> range = {},
                    const std::optional<Tensor>& weight = {}, bool density = false);
Histogram histogram(const Tensor& x, const Tensor& bins, const std::optional<Tensor>& weight = {},
                    bool density = false);

}  // namespace tandem
