// Unsigned radix-sort keys whose order is the CPU sort's: NaN above every number (all NaNs equal), -0.0 equal
// to 0.0, signed integers offset by their sign bit, and descending order as the bitwise complement.
// Host/device code with no CUDA dependency, so the CPU tests check the ordering.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "core/macros.h"

namespace tandem::cuda {

// Keys of 1-, 2- and 4-byte types live in the low bits of a uint32 (the sort reads only those bits).
template <typename T>
using sort_key_t = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;

template <typename T>
TANDEM_HOST_DEVICE sort_key_t<T> sort_key(T x, bool descending) {
  using K = sort_key_t<T>;
  constexpr int kBits = 8 * sizeof(T);
  constexpr K kMask = K(~K(0)) >> (8 * sizeof(K) - kBits);
  constexpr K kSign = K(1) << (kBits - 1);
  K key;
  if constexpr (is_floating_type_v<T>) {
    using V = opmath_t<T>;
    if (static_cast<V>(x) != static_cast<V>(x)) {
      key = kMask;  // every NaN sorts last, after +inf
    } else {
      if (static_cast<V>(x) == V(0)) x = T(0.0f);  // -0.0 ties with 0.0
      using Bits =
          std::conditional_t<kBits == 16, uint16_t, std::conditional_t<kBits == 32, uint32_t, uint64_t>>;
      Bits bits;
      std::memcpy(&bits, &x, sizeof(T));
      // Negative numbers: larger magnitude sorts first, so flip every bit; positive ones go above them.
      key = (bits & kSign) ? (~K(bits) & kMask) : (K(bits) | kSign);
    }
  } else if constexpr (std::is_signed_v<T>) {
    key = (static_cast<K>(static_cast<std::make_unsigned_t<T>>(x)) ^ kSign) & kMask;
  } else {
    key = static_cast<K>(x);
  }
  return descending ? (~key & kMask) : key;
}

}  // namespace tandem::cuda
