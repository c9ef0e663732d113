// Process-wide switches of the math libraries, kept apart from any backend so they can be set (from
// tandem.backends) in every build, with or without CUDA.
#pragma once

namespace tandem {

// TF32 tensor-core math for float32 matmul on CUDA: off by default, as in PyTorch.
bool allow_tf32();
void set_allow_tf32(bool allow);

}  // namespace tandem
