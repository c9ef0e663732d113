#pragma once

namespace tandem::emulated {
// Registers N emulated CUDA devices when TANDEM_EMULATE_CUDA=N (N >= 1); returns whether it did.
bool register_emulated_cuda_from_env();
}  // namespace tandem::emulated
