// PyTorch's type promotion: dimensioned tensors outrank 0-dim tensors, which outrank Python scalars, except
// that an operand of a higher category (bool < integral < floating) always lifts the result's category.
#pragma once
#include <cstdint>

#include "core/dtype.h"
#include "core/scalar.h"
#include "core/tensor.h"

namespace tandem {

class ResultTypeState {
 public:
  void add(const Tensor& t);
  void add(const Scalar& s);
  DType result() const;

 private:
  static constexpr int8_t kNone = -1;
  int8_t dim_ = kNone, zero_dim_ = kNone, wrapped_ = kNone;
};

DType result_type(const Tensor& a, const Tensor& b);
DType result_type(const Tensor& a, const Scalar& b);
// True when a value of dtype `from` may be written into a tensor of dtype `to` by an in-place op
// (no float -> integral, no non-bool -> bool), as in PyTorch's canCast.
bool can_cast(DType from, DType to);

}  // namespace tandem
