// Reductions. (The full reduction family is built on the engine in reduce.cpp.)
#pragma once
#include "core/tensor.h"

namespace tandem {

// True when any element is non-zero; a 0-dim bool tensor.
Tensor any(const Tensor& x);

}  // namespace tandem
