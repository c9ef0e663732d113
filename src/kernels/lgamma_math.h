// log|Gamma(x)| without the C library's global: glibc's lgamma/lgammaf store the sign of Gamma(x) in
// `signgam`, one int that every thread writes, so the cache line holding it moved between the cores on every
// element (2 threads of float32 lgamma ran 1.14x one thread; igamma calls it too). lgamma_r returns the sign
// to the caller instead. Device code (and other C libraries) keep std::lgamma. float32 lgamma on the CPU does
// not come here: it is the vectorising vector_lgammaf (vector_gamma_math.h).
#pragma once
#include <cmath>
#include <type_traits>

#include "core/macros.h"

namespace tandem::special_math {

template <typename T>
TANDEM_HOST_DEVICE inline T log_abs_gamma(T x) {
#if defined(__CUDA_ARCH__) || !defined(__GLIBC__)
  return std::lgamma(x);
#else
  int sign;
  if constexpr (std::is_same_v<T, float>)
    return ::lgammaf_r(x, &sign);
  else
    return ::lgamma_r(x, &sign);
#endif
}

}  // namespace tandem::special_math
