// Front ends of the range factories: arange, linspace, eye.
#pragma once
#include <optional>

#include "core/scalar.h"
#include "core/tensor.h"

namespace tandem {

// [start, end) in steps of `step`. Without a dtype: int64 when all three are integers, else the default
// float dtype (PyTorch's inference).
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<DType> dtype,
              Device device = Device());
// `steps` values evenly spaced from start to end inclusive; the default float dtype unless given.
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, std::optional<DType> dtype,
                Device device = Device());
// An n x m matrix with ones on the diagonal (m = n when not given).
Tensor eye(int64_t n, std::optional<int64_t> m, DType dtype, Device device = Device());

}  // namespace tandem
