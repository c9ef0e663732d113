#include "kernels/cpu_capability.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define TANDEM_X86_CPUID 1
#endif

namespace tandem {

namespace {

#if TANDEM_X86_CPUID
// XCR0: which register states the operating system saves on a context switch. AVX needs the SSE and YMM
// states (bits 1, 2); AVX-512 also the opmask and ZMM ones (bits 5-7). A CPU with AVX-512 under an OS that
// does not save them must not run it.
uint64_t os_saved_states() {
  uint32_t lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

bool detect(CpuCapability c) {
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
  if (c == CpuCapability::Avx2) return true;
  const bool avx512 =
      (ebx & bit_AVX512F) && (ebx & bit_AVX512BW) && (ebx & bit_AVX512VL) && (ebx & bit_AVX512DQ);
  return avx512 && (xcr0 & 0xe6) == 0xe6;
}
#else
bool detect(CpuCapability) { return false; }
#endif

struct Choice {
  CpuCapability capability = CpuCapability::Baseline;
  std::string note;
};

CpuCapability best_available() {
  for (int c = kNumCpuCapabilities - 1; c > 0; --c) {
    auto cap = static_cast<CpuCapability>(c);
    if (cpu_supports(cap) && cpu_capability_built(cap)) return cap;
  }
  return CpuCapability::Baseline;
}

Choice choose() {
  Choice choice{best_available(), {}};
  const char* env = std::getenv("TANDEM_CPU_CAPABILITY");
  if (env == nullptr || *env == '\0') return choice;
  std::string want(env);
  std::transform(want.begin(), want.end(), want.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (want == "default") want = "baseline";
  for (int c = 0; c < kNumCpuCapabilities; ++c) {
    auto cap = static_cast<CpuCapability>(c);
    if (want != cpu_capability_name(cap)) continue;
    const char* used = cpu_capability_name(choice.capability);
    if (!cpu_capability_built(cap))
      choice.note = "TANDEM_CPU_CAPABILITY=" + std::string(env) + ": this build has no " + want +
                    " kernels (CMake's TANDEM_CPU_CAPABILITIES); using " + used;
    else if (!cpu_supports(cap))
      choice.note = "TANDEM_CPU_CAPABILITY=" + std::string(env) + ": this CPU cannot run " + want +
                    " instructions; using " + used;
    else
      choice.capability = cap;
    return choice;
  }
  choice.note = "TANDEM_CPU_CAPABILITY=" + std::string(env) +
                " is not a CPU capability (baseline, avx2 or avx512); using " +
                cpu_capability_name(choice.capability);
  return choice;
}

const Choice& chosen() {
  static const Choice choice = choose();
  return choice;
}

}  // namespace

const char* cpu_capability_name(CpuCapability c) {
  switch (c) {
    case CpuCapability::Avx2:
      return "avx2";
    case CpuCapability::Avx512:
      return "avx512";
    default:
      return "baseline";
  }
}

bool cpu_supports(CpuCapability c) {
  if (c == CpuCapability::Baseline) return true;
  static const bool supported[] = {true, detect(CpuCapability::Avx2), detect(CpuCapability::Avx512)};
  return supported[static_cast<int>(c)];
}

bool cpu_capability_built(CpuCapability c) {
  switch (c) {
    case CpuCapability::Baseline:
      return true;
    case CpuCapability::Avx2:
#ifdef TANDEM_CPU_BUILT_AVX2
      return true;
#else
      return false;
#endif
    case CpuCapability::Avx512:
#ifdef TANDEM_CPU_BUILT_AVX512
      return true;
#else
      return false;
#endif
  }
  return false;
}

CpuCapability cpu_capability() { return chosen().capability; }
const std::string& cpu_capability_note() { return chosen().note; }

}  // namespace tandem
