#include "kernels/cpu_capability.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>

#include "kernels/cpu_features.h"

namespace tandem {

namespace {

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
  static const bool supported[] = {true, cpu_features::runs_avx2(), cpu_features::runs_avx512()};
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
