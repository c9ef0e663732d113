// The math of add/sub(alpha=) on floating tensors (the `scaled_add` slot), shared by the CPU and CUDA
// kernels.
#pragma once
#include <cmath>

#include "core/macros.h"

namespace tandem {

// a + alpha * b rounded once: PyTorch's vectorised add(alpha=) is fmadd(b, alpha, a) (in float32 for 16-bit
// tensors, whose result then rounds to 16 bits). alpha is in the compute type, already rounded to the
// tensor's type (a float16 alpha of 0.1 is 0.0999755859375).
template <typename A>
struct ScaledAddOp {
  A alpha;
  TANDEM_HOST_DEVICE A operator()(A a, A b) const { return std::fma(alpha, b, a); }
};

}  // namespace tandem
