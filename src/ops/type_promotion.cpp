#include "ops/type_promotion.h"

namespace tandem {

namespace {
int8_t promote_optional(int8_t a, DType b) {
  return static_cast<int8_t>(a < 0 ? b : promote_types(static_cast<DType>(a), b));
}
// PyTorch's combine_categories: the higher-priority class wins unless the lower one is of a higher category.
// A lower complex class over a floating higher one keeps the higher's precision (float64 tensor * 1j ->
// complex128).
int8_t combine(int8_t higher, int8_t lower) {
  if (higher >= 0 && is_complex(static_cast<DType>(higher))) return higher;
  if (lower >= 0 && is_complex(static_cast<DType>(lower))) {
    if (higher >= 0 && is_floating(static_cast<DType>(higher)))
      return static_cast<int8_t>(complex_dtype_for(static_cast<DType>(higher)));
    return lower;
  }
  if (higher >= 0 && is_floating(static_cast<DType>(higher))) return higher;
  bool higher_is_bool = higher >= 0 && static_cast<DType>(higher) == DType::Bool;
  if (higher_is_bool || (lower >= 0 && is_floating(static_cast<DType>(lower)))) {
    if (higher < 0) return lower;
    if (lower < 0) return higher;
    return promote_optional(higher, static_cast<DType>(lower));
  }
  return higher >= 0 ? higher : lower;
}
}  // namespace

void ResultTypeState::add(const Tensor& t) {
  if (t.dim() > 0) dim_ = promote_optional(dim_, t.dtype());
  else zero_dim_ = promote_optional(zero_dim_, t.dtype());
}
void ResultTypeState::add(const Scalar& s) { wrapped_ = promote_optional(wrapped_, s.natural_dtype()); }

DType ResultTypeState::result() const {
  int8_t r = combine(dim_, combine(zero_dim_, wrapped_));
  return r < 0 ? default_float_dtype() : static_cast<DType>(r);
}

DType result_type(const Tensor& a, const Tensor& b) {
  ResultTypeState s;
  s.add(a);
  s.add(b);
  return s.result();
}
DType result_type(const Tensor& a, const Scalar& b) {
  ResultTypeState s;
  s.add(a);
  s.add(b);
  return s.result();
}

bool can_cast(DType from, DType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && !is_floating(to) && !is_complex(to)) return false;
  if (from != DType::Bool && to == DType::Bool) return false;
  return true;
}

DType Scalar::natural_dtype() const {
  switch (kind_) {
    case Kind::Bool: return DType::Bool;
    case Kind::Int: return DType::Int64;
    case Kind::Complex:
      return complex_dtype_for(default_float_dtype());
    default: return default_float_dtype();
  }
}

}  // namespace tandem
