// The per-element math of layer normalisation (ops/norm.h), written once for the CPU loop and the CUDA
// kernels; how a device sums a row is its own. Values are in Acc (float for 16-bit floats).
//
// Forward, over a row x of N elements: mean = sum(x) / N, var = sum((x - mean)^2) / N (biased, two passes so
// a large mean cancels exactly), rstd = 1 / sqrt(var + eps), y = (x - mean) * rstd * w + b. Backward, with
// xhat = (x - mean) * rstd and g = dy * w: dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), dw = sum over
// rows of dy * xhat, db = sum over rows of dy.
#pragma once
#include <cmath>

#include "core/macros.h"

namespace tandem {

template <typename Acc>
struct LayerNormMath {
  TANDEM_HOST_DEVICE static Acc rstd(Acc var, Acc eps) { return Acc(1) / std::sqrt(var + eps); }
  // Generic in the value type, so the CPU's folds can pass vectors of Acc (vector extensions broadcast the
  // scalars).
  template <typename V>
  TANDEM_HOST_DEVICE static V normalized(V x, Acc mean, Acc rstd) {
    return (x - mean) * rstd;
  }
  TANDEM_HOST_DEVICE static Acc affine(Acc xhat, Acc w, Acc b) { return xhat * w + b; }
  // mean_g = mean(g), mean_gx = mean(g * xhat) over the row.
  TANDEM_HOST_DEVICE static Acc input_grad(Acc g, Acc xhat, Acc rstd, Acc mean_g, Acc mean_gx) {
    return rstd * (g - mean_g - xhat * mean_gx);
  }
};

}  // namespace tandem
