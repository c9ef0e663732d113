// Copies and dtype conversion.
#pragma once
#include <optional>
#include <type_traits>

#include "core/scalar.h"
#include "core/tensor.h"

namespace tandem {

// Writes src into dst (broadcasting src to dst's shape, converting dtype, crossing devices). non_blocking
// lets a host<->device copy involving pinned memory return before it finished (reads of dst wait for it).
Tensor copy_(const Tensor& dst, const Tensor& src, bool non_blocking = false);
// dst = src converted, on one device (src broadcast to dst's shape), with no checks, autograd or version
// bump: the copy kernel, in two steps for the casts kernels/cast_waypoint.h routes through a float.
void copy_elements(const Tensor& dst, const Tensor& src);
// `x` itself when it already has `dtype` (and copy is false), otherwise a converted copy laid out as x is
// (preserve_format: ops/layout.h).
Tensor to_dtype(const Tensor& x, DType dtype, bool copy = false);
// `x` itself when contiguous, otherwise a contiguous copy.
Tensor contiguous(const Tensor& x);
// A row-major copy, always (the core's callers rely on it; Python's clone() is clone_preserving_layout).
Tensor clone(const Tensor& x);
Tensor empty_like(const Tensor& x);
Tensor empty_like(const Tensor& x, DType dtype);
// Fill with a value converted to the tensor's dtype.
Tensor fill_(const Tensor& x, const Scalar& value);
Tensor zero_(const Tensor& x);  // fill_ with 0, recorded as PyTorch's ZeroBackward0
Tensor full(IntArrayRef sizes, const Scalar& value, DType dtype, Device device = Device());
// Refuses in-place writes into memory that must not change (read-only NumPy arrays, expanded views).
void check_writeable(const Tensor& x, const char* op);
// PyTorch lets a few writes into an expanded tensor through with a deprecation warning (masked_fill_,
// index_fill_, index_put_: op), since they write a value only where selected. Refuses read-only memory as
// check_writeable does; returns whether x is expanded, after the warning (which ends with `example`).
bool check_writeable_or_warn_expanded(const Tensor& x, const char* op, const char* example);
// x with every expanded dim (stride 0) cut to size 1: each of x's memory locations once.
Tensor distinct_elements(const Tensor& x);

}  // namespace tandem

namespace tandem {
// `x` on `device` (with `dtype` when given), laid out as x is: x itself when nothing changes and copy is
// false. With non_blocking, a copy to the host is made into pinned memory and returns before it finished.
Tensor to_device(const Tensor& x, Device device, std::optional<DType> dtype, bool copy,
                 bool non_blocking = false);
// The value of a one-element tensor (copying from the device when needed). RuntimeError otherwise.
Scalar item(const Tensor& x);

// One element as the Python number item() gives: complex, bool, uint64 (past int64), int64 or double.
template <typename T>
Scalar scalar_of(T v) {
  if constexpr (is_complex_type_v<T>)
    return Scalar(complex<double>(v));
  else if constexpr (std::is_same_v<T, bool>)
    return Scalar(v);
  else if constexpr (std::is_same_v<T, uint64_t>)
    return Scalar::from_uint64(v);
  else if constexpr (std::is_integral_v<T>)
    return Scalar(static_cast<int64_t>(v));
  else
    return Scalar(static_cast<double>(static_cast<opmath_t<T>>(v)));
}
}  // namespace tandem
