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

// Batch normalisation's every elementwise pass is one per-channel combination of two inputs: the forward
// output y = (x - mean) (rstd w) + bias, the input gradient dx = dy a + (x - mean) b + d with a = rstd w,
// b = -a rstd^2 sum(dy (x - mean)) / M, d = -a sum(dy) / M (M values per channel), and in evaluation dx = dy
// a. The per-channel coefficients come from C-element tensor ops (ops/batch_norm.cpp); x - mean is formed
// before its product, so a large mean cancels exactly.
template <typename Acc>
struct BatchNormMath {
  template <typename V>
  TANDEM_HOST_DEVICE static V centred(V q, Acc m, Acc b, Acc d) {
    return (q - m) * b + d;
  }
  template <typename V>
  TANDEM_HOST_DEVICE static V scaled(V p, Acc a, Acc d) {
    return p * a + d;
  }
  template <typename V>
  TANDEM_HOST_DEVICE static V combine(V p, Acc a, V q, Acc m, Acc b, Acc d) {
    return p * a + centred(q, m, b, d);
  }
};

}  // namespace tandem
