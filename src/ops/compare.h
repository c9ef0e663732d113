// Whole-tensor comparisons built from elementwise ops and reductions.
#pragma once
#include "core/tensor.h"

namespace tandem {

// |a - b| <= atol + rtol * |b| elementwise (exact equality covers infinities); NaNs match when equal_nan.
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
// Same shape and same values (dtypes may differ, as in PyTorch).
bool equal(const Tensor& a, const Tensor& b);

}  // namespace tandem
