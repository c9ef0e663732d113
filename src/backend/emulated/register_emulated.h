#pragma once

namespace tandem::emulated {
class EmulatedBackend;
// Registers N emulated CUDA devices when TANDEM_EMULATE_CUDA=N (N >= 1); returns whether it did.
bool register_emulated_cuda_from_env();
// The registered emulated backend (only after register_emulated_cuda_from_env returned true).
EmulatedBackend& emulated_backend();
}  // namespace tandem::emulated
