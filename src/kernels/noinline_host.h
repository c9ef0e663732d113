// TANDEM_NOINLINE_HOST: a function the CPU kernels call rather than inline. Its one out-of-line copy is compiled
// as baseline code (it is defined outside the kernels' instruction-set regions, docs/core.md), so every CPU
// capability rounds it the same way. For long series and recurrences whose cancellations would turn FMA
// contraction's different rounding into hundreds of ulps between the baseline and AVX2 builds (torch.special's
// Bessel functions, orthogonal polynomials, incomplete gamma); they are loops per element that do not vectorise,
// so the call costs little. CUDA code inlines them as usual.
#pragma once

#if defined(__CUDACC__)
#define TANDEM_NOINLINE_HOST
#else
#define TANDEM_NOINLINE_HOST __attribute__((noinline))
#endif
