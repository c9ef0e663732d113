// Every file in src/kernels/cpu is compiled once per CPU capability (CMake's TANDEM_CPU_CAPABILITIES), with
// -DTANDEM_CPU_CAPABILITY=<baseline|avx2|avx512> and -DTANDEM_CPU_CAPABILITY_LEVEL=<0|1|2>; start-up
// registers the kernels of the one that kernels/cpu_capability.cpp picks for the CPU it runs on
// (docs/core.md, "CPU capabilities").
//
// A file's code sits between TANDEM_CPU_KERNELS_BEGIN and TANDEM_CPU_KERNELS_END, after all its #includes.
// The region is namespace tandem::cpu::<capability>, so each build's kernels have their own symbols, and
// every function defined in it is compiled for the capability's instructions (#pragma GCC target). Code
// outside it (the headers included before, core, functors.h) keeps the baseline ISA: inlined into a kernel
// it is compiled for the kernel's target, and its out-of-line copies, which the linker folds across
// capabilities, are baseline code any CPU runs. That is why nothing is #included inside a region: a header
// first seen there would give those shared copies AVX instructions (tests/python/test_source_rules.py
// checks it).
#pragma once

#if !defined(TANDEM_CPU_CAPABILITY) || !defined(TANDEM_CPU_CAPABILITY_LEVEL)
#error \
    "src/kernels/cpu files are compiled once per CPU capability: the build defines TANDEM_CPU_CAPABILITY(_LEVEL)"
#endif

#define TANDEM_PRAGMA(x) _Pragma(#x)

#if TANDEM_CPU_CAPABILITY_LEVEL == 0
#define TANDEM_CPU_TARGET_PUSH
#define TANDEM_CPU_TARGET_POP
#elif !defined(__GNUC__) || defined(__clang__) || !defined(__x86_64__)
#error \
    "the avx2 and avx512 CPU capabilities need GCC on x86-64 (configure with -DTANDEM_CPU_CAPABILITIES=baseline)"
#else
// Instruction sets only, never arch= or tune=: GCC inlines a baseline function into one with a target only
// when both have the same arch and tuning.
#if TANDEM_CPU_CAPABILITY_LEVEL == 1
#define TANDEM_CPU_TARGET_PUSH \
  TANDEM_PRAGMA(GCC push_options) TANDEM_PRAGMA(GCC target("avx2,fma,f16c,bmi,bmi2,lzcnt,popcnt"))
#else
#define TANDEM_CPU_TARGET_PUSH    \
  TANDEM_PRAGMA(GCC push_options) \
  TANDEM_PRAGMA(GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c,bmi,bmi2,lzcnt,popcnt"))
#endif
#define TANDEM_CPU_TARGET_POP TANDEM_PRAGMA(GCC pop_options)
#endif

#define TANDEM_CPU_KERNELS_BEGIN TANDEM_CPU_TARGET_PUSH namespace tandem::cpu::TANDEM_CPU_CAPABILITY {
#define TANDEM_CPU_KERNELS_END \
  }                            \
  TANDEM_CPU_TARGET_POP
