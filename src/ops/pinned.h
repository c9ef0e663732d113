// Pinned (page-locked) host tensors: CPU tensors whose memory the accelerator's copy engine reads and writes
// directly, so host<->device copies run at full bandwidth and can be non_blocking.
#pragma once
#include "core/tensor.h"

namespace tandem {

// A fresh contiguous CPU tensor in pinned memory. RuntimeError when no CUDA device (real or emulated) exists.
Tensor empty_pinned(IntArrayRef sizes, DType dtype);
// `x` itself when already pinned, otherwise a pinned copy (Tensor.pin_memory()).
Tensor pin_memory(const Tensor& x);
// Whether x's memory is pinned (false for device tensors and when no accelerator exists).
bool is_pinned(const Tensor& x);

}  // namespace tandem
