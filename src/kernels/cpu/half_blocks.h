// Converting runs of float16 to and from float on the CPU. Element by element the conversion is a dozen
// integer operations; the F16C instructions (every AVX2 CPU has them) do eight elements in one, which makes
// float16 loops as fast as float32 ones. Loops over float16 widen a block, compute in float and narrow once.
#pragma once
#include <cstdint>

#include "core/half.h"
#include "kernels/cpu/isa_region.h"

TANDEM_CPU_KERNELS_BEGIN

// Elements per block: the float copies of a block stay in L1.
constexpr int64_t kHalfBlock = 256;

// out[i] = float(in[i]) for i < n. Exact.
void widen_halves(const Half* in, float* out, int64_t n);
// out[i] = Half(in[i]) for i < n, rounding to nearest even. A NaN stays a NaN (its payload may differ).
void narrow_to_halves(const float* in, Half* out, int64_t n);

TANDEM_CPU_KERNELS_END
