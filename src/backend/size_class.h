// Size classes shared by tandem's caching allocators: four classes per power of two, so repeated requests of
// one shape reuse the same block and waste stays under ~19%.
#pragma once
#include <cstddef>

namespace tandem {

inline size_t allocation_size_class(size_t n) {
  if (n < 512) return (n + 511) / 512 * 512;
  size_t top = size_t{1} << (63 - __builtin_clzll(n));
  size_t step = top / 4;
  return (n + step - 1) / step * step;
}

}  // namespace tandem
