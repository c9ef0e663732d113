// Turns a linear element index of a TensorIterator into one byte offset per operand, in host-device code, so
// a CUDA thread can find its element without walking strips the way the CPU loops do. Built on the host from
// a built iterator (innermost-first shape and byte strides); tests/cpp checks it against for_each_range.
#pragma once
#include <cstdint>

#include "core/error.h"
#include "core/macros.h"
#include "kernels/tensor_iterator.h"

namespace tandem {

// Unsigned division by a fixed divisor as a multiply-high, add and shift (Granlund and Montgomery; PyTorch's
// IntDivider, here on 64 bits): a GPU has no divide instruction, and 64-bit division is a long subroutine.
// Exact for dividend and divisor below 2^63.
struct IntDivider {
  uint64_t divisor = 1, magic = 0;
  uint32_t shift = 0;

  IntDivider() = default;
  explicit IntDivider(uint64_t d) : divisor(d) {
    while (shift < 64 && (uint64_t{1} << shift) < d) ++shift;
    using u128 = unsigned __int128;
    magic = static_cast<uint64_t>(((u128{1} << 64) * ((u128{1} << shift) - d)) / d + 1);
  }
  TANDEM_HOST_DEVICE TANDEM_INLINE uint64_t div(uint64_t n) const {
#if defined(__CUDA_ARCH__)
    uint64_t t = __umul64hi(n, magic);
#else
    uint64_t t = static_cast<uint64_t>((static_cast<unsigned __int128>(n) * magic) >> 64);
#endif
    return (t + n) >> shift;
  }
};

template <int N>
struct OperandOffsets {
  int64_t v[N];
};

// N is the iterator's operand count (output first).
template <int N>
struct OffsetCalculator {
  // Dims left after coalescing; PyTorch's CUDA iterator has the same limit.
  static constexpr int kMaxDims = 25;
  int ndim = 0;
  IntDivider sizes[kMaxDims] = {};
  int64_t strides[kMaxDims][N] = {};

  explicit OffsetCalculator(const TensorIterator& iter) : ndim(iter.ndim()) {
    TANDEM_CHECK(iter.ntensors() == N, Runtime, "OffsetCalculator: the iterator has ", iter.ntensors(),
                 " operands, the kernel expects ", N);
    TANDEM_CHECK(ndim <= kMaxDims, NotImplemented, "CUDA elementwise kernels support at most ", kMaxDims,
                 " dims that cannot be merged, got ", ndim, "\nhint: call .contiguous() on the inputs first");
    for (int d = 0; d < ndim; ++d) {
      sizes[d] = IntDivider(static_cast<uint64_t>(iter.shape()[d]));
      for (int k = 0; k < N; ++k) strides[d][k] = iter.strides(k)[d];
    }
  }

  TANDEM_HOST_DEVICE OperandOffsets<N> get(int64_t linear) const {
    OperandOffsets<N> out;
    for (int k = 0; k < N; ++k) out.v[k] = 0;
    uint64_t rem = static_cast<uint64_t>(linear);
    for (int d = 0; d < ndim; ++d) {
      const uint64_t q = sizes[d].div(rem);
      const int64_t idx = static_cast<int64_t>(rem - q * sizes[d].divisor);
      rem = q;
      for (int k = 0; k < N; ++k) out.v[k] += idx * strides[d][k];
    }
    return out;
  }
};

}  // namespace tandem
