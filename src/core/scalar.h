// A Python-style number: bool, int or float. It keeps its kind so type promotion can treat Python scalars
// as "weak" (they never widen a tensor's dtype within a category, as in PyTorch).
#pragma once
#include <cstdint>
#include <type_traits>

#include "core/dtype.h"

namespace tandem {

class Scalar {
 public:
  enum class Kind : int8_t { Bool, Int, Float };
  Scalar() : kind_(Kind::Int), i_(0) {}
  Scalar(bool v) : kind_(Kind::Bool), i_(v) {}
  Scalar(int v) : kind_(Kind::Int), i_(v) {}
  Scalar(int64_t v) : kind_(Kind::Int), i_(v) {}
  Scalar(double v) : kind_(Kind::Float), d_(v) {}
  Scalar(float v) : kind_(Kind::Float), d_(v) {}

  Kind kind() const { return kind_; }
  bool is_float() const { return kind_ == Kind::Float; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  double to_double() const { return kind_ == Kind::Float ? d_ : static_cast<double>(i_); }
  int64_t to_int() const { return kind_ == Kind::Float ? static_cast<int64_t>(d_) : i_; }
  bool to_bool() const { return kind_ == Kind::Float ? d_ != 0.0 : i_ != 0; }
  template <typename T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) return to_bool();
    else if constexpr (std::is_integral_v<T>) return static_cast<T>(to_int());
    else if constexpr (std::is_same_v<T, double>) return to_double();
    else return T(static_cast<float>(to_double()));
  }
  // The dtype this scalar has on its own: bool, int64, or the default float dtype.
  DType natural_dtype() const;
  DTypeCategory category() const {
    return kind_ == Kind::Float ? DTypeCategory::Floating
                                : (kind_ == Kind::Int ? DTypeCategory::Integral : DTypeCategory::Bool);
  }

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
};

}  // namespace tandem
