// Which build of the CPU kernels runs: every file in src/kernels/cpu is compiled once per capability (see
// kernels/cpu/isa_region.h), and start-up registers the kernels of the best one this CPU runs, or the one
// TANDEM_CPU_CAPABILITY names (baseline, avx2 or avx512; "default" is PyTorch's name for baseline).
#pragma once
#include <string>

namespace tandem {

enum class CpuCapability : int {
  Baseline = 0,  // x86-64's SSE2, or the compiler's default ISA on other CPUs
  Avx2 = 1,      // AVX2 + FMA + F16C (+ BMI1/2, LZCNT, POPCNT): x86-64-v3
  Avx512 = 2,    // the above + AVX-512 F, BW, VL, DQ
};
constexpr int kNumCpuCapabilities = 3;

// The capability the kernels use: chosen once, on first call.
CpuCapability cpu_capability();
// "baseline", "avx2", "avx512": the spelling TANDEM_CPU_CAPABILITY accepts.
const char* cpu_capability_name(CpuCapability c);
// Whether this CPU (and its operating system, which must save the wider registers) runs c's instructions.
bool cpu_supports(CpuCapability c);
// Whether this build has kernels for c (CMake's TANDEM_CPU_CAPABILITIES).
bool cpu_capability_built(CpuCapability c);
// Why TANDEM_CPU_CAPABILITY was not followed (an unknown name, a capability this CPU or build lacks);
// empty when it was, or when it is unset. The Python package turns it into a warning at import.
const std::string& cpu_capability_note();

}  // namespace tandem
