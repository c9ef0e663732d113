// Whether this CPU, under this operating system, runs each CPU capability's instructions (CPUID and XGETBV:
// what the process can execute, which under an emulator or valgrind may be less than /proc/cpuinfo lists).
// Header-only and free of the rest of tandem: kernels/cpu_capability.cpp chooses the kernels with it, and the
// tiny tandem._cpu_features module (python/cpu_features/module.cpp) asks it before _C loads OpenBLAS.
#pragma once
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define TANDEM_X86_CPUID 1
#endif

namespace tandem::cpu_features {

#if TANDEM_X86_CPUID
// XCR0: which register states the operating system saves on a context switch. AVX needs the SSE and YMM
// states (bits 1, 2); AVX-512 also the opmask and ZMM ones (bits 5-7). A CPU with AVX-512 under an OS that
// does not save them must not run it.
inline uint64_t os_saved_states() {
  uint32_t lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

// x86-64-v3 (AVX2 + FMA + F16C + BMI1/2, LZCNT, POPCNT), and with avx512 also AVX-512 F, BW, VL, DQ.
inline bool runs(bool avx512) {
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  const bool fma = ecx & bit_FMA, osxsave = ecx & bit_OSXSAVE, avx = ecx & bit_AVX, f16c = ecx & bit_F16C;
  const bool popcnt = ecx & bit_POPCNT;
  if (!(fma && osxsave && avx && f16c && popcnt)) return false;
  const uint64_t xcr0 = os_saved_states();
  if ((xcr0 & 0x6) != 0x6) return false;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  const bool avx2 = ebx & bit_AVX2, bmi = ebx & bit_BMI, bmi2 = ebx & bit_BMI2;
  unsigned eax8, ebx8, ecx8, edx8;
  const bool lzcnt = __get_cpuid(0x80000001, &eax8, &ebx8, &ecx8, &edx8) && (ecx8 & bit_LZCNT);
  if (!(avx2 && bmi && bmi2 && lzcnt)) return false;
  if (!avx512) return true;
  const bool f = ebx & bit_AVX512F, bw = ebx & bit_AVX512BW, vl = ebx & bit_AVX512VL, dq = ebx & bit_AVX512DQ;
  return f && bw && vl && dq && (xcr0 & 0xe6) == 0xe6;
}
#else
inline bool runs(bool) { return false; }
#endif

inline bool runs_avx2() { return runs(false); }
inline bool runs_avx512() { return runs(true); }

}  // namespace tandem::cpu_features
