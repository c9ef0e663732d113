// Turns a linear element index of a TensorIterator into one byte offset per operand, in host-device code, so
// a CUDA thread can find its element without walking strips the way the CPU loops do. Built on the host from
// a built iterator (innermost-first shape and byte strides); tests/cpp checks it against for_each_range.
#pragma once
#include <cstdint>

#include "core/error.h"
#include "core/macros.h"
#include "ops/tensor_iterator.h"

namespace tandem {

// Unsigned division by a fixed divisor as a multiply-high, add and shift (Granlund and Montgomery; PyTorch's
// IntDivider): dividing by a runtime value is a long instruction sequence on a GPU. Exact for dividend and
// divisor below 2^31.
struct IntDivider {
  uint32_t divisor = 1, magic = 0, shift = 0;

  IntDivider() = default;
  explicit IntDivider(uint32_t d) : divisor(d) {
    while (shift < 32 && (uint64_t{1} << shift) < d) ++shift;
    magic = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
  }
  TANDEM_HOST_DEVICE TANDEM_INLINE uint32_t div(uint32_t n) const {
#if defined(__CUDA_ARCH__)
    uint32_t t = __umulhi(n, magic);
#else
    uint32_t t = static_cast<uint32_t>((static_cast<uint64_t>(n) * magic) >> 32);
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
  bool index32 = true;  // every linear index fits in 31 bits: use the multiply-high dividers
  int64_t sizes[kMaxDims] = {};
  IntDivider dividers[kMaxDims] = {};
  int64_t strides[kMaxDims][N] = {};

  explicit OffsetCalculator(const TensorIterator& iter) : ndim(iter.ndim()) {
    TANDEM_CHECK(iter.ntensors() == N, Runtime, "OffsetCalculator: the iterator has ", iter.ntensors(),
                 " operands, the kernel expects ", N);
    TANDEM_CHECK(ndim <= kMaxDims, NotImplemented, "CUDA elementwise kernels support at most ", kMaxDims,
                 " dims that cannot be merged, got ", ndim, "\nhint: call .contiguous() on the inputs first");
    index32 = iter.numel() <= INT32_MAX;
    for (int d = 0; d < ndim; ++d) {
      sizes[d] = iter.shape()[d];
      if (index32) dividers[d] = IntDivider(static_cast<uint32_t>(sizes[d]));
      for (int k = 0; k < N; ++k) strides[d][k] = iter.strides(k)[d];
    }
  }

  TANDEM_HOST_DEVICE OperandOffsets<N> get(int64_t linear) const {
    OperandOffsets<N> out;
    for (int k = 0; k < N; ++k) out.v[k] = 0;
    if (index32) {
      uint32_t rem = static_cast<uint32_t>(linear);
      for (int d = 0; d < ndim; ++d) {
        uint32_t q = dividers[d].div(rem);
        int64_t idx = rem - q * dividers[d].divisor;
        rem = q;
        for (int k = 0; k < N; ++k) out.v[k] += idx * strides[d][k];
      }
    } else {
      int64_t rem = linear;
      for (int d = 0; d < ndim; ++d) {
        int64_t q = rem / sizes[d];
        int64_t idx = rem - q * sizes[d];
        rem = q;
        for (int k = 0; k < N; ++k) out.v[k] += idx * strides[d][k];
      }
    }
    return out;
  }
};

}  // namespace tandem
