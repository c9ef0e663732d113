// A Python-style number: bool, int, float or complex. It keeps its kind so type promotion can treat Python
// scalars as "weak" (they never widen a tensor's dtype within a category, as in PyTorch).
#pragma once
#include <cstdint>
#include <type_traits>

#include "core/dtype.h"

namespace tandem {

class Scalar {
 public:
  enum class Kind : int8_t { Bool, Int, Float, Complex };
  Scalar() : kind_(Kind::Int), i_(0) {}
  Scalar(bool v) : kind_(Kind::Bool), i_(v) {}
  Scalar(int v) : kind_(Kind::Int), i_(v) {}
  Scalar(int64_t v) : kind_(Kind::Int), i_(v) {}
  Scalar(double v) : kind_(Kind::Float), d_(v) {}
  Scalar(float v) : kind_(Kind::Float), d_(v) {}
  Scalar(complex<double> v) : kind_(Kind::Complex), c_(v) {}
  // A Python int up to 2^64 - 1 (only uint64 holds those from 2^63 up): kept as its 64 bits, so
  // to<uint64_t>() gives it back; is_big_unsigned() marks the ones no signed type holds, which front ends
  // refuse elsewhere.
  static Scalar from_uint64(uint64_t v) {
    Scalar s(static_cast<int64_t>(v));
    s.big_unsigned_ = v > static_cast<uint64_t>(INT64_MAX);
    return s;
  }
  bool is_big_unsigned() const { return big_unsigned_; }

  Kind kind() const { return kind_; }
  bool is_float() const { return kind_ == Kind::Float; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_complex() const { return kind_ == Kind::Complex; }
  // A complex scalar read as a real number gives its real part (the cast PyTorch does, with its warning).
  double to_double() const {
    if (big_unsigned_) return static_cast<double>(static_cast<uint64_t>(i_));
    return kind_ == Kind::Float ? d_ : (kind_ == Kind::Complex ? c_.re : static_cast<double>(i_));
  }
  int64_t to_int() const {
    return kind_ == Kind::Float ? static_cast<int64_t>(d_)
                                : (kind_ == Kind::Complex ? static_cast<int64_t>(c_.re) : i_);
  }
  bool to_bool() const {
    return kind_ == Kind::Float ? d_ != 0.0
                                : (kind_ == Kind::Complex ? (c_.re != 0.0 || c_.im != 0.0) : i_ != 0);
  }
  complex<double> to_complex() const {
    return kind_ == Kind::Complex ? c_ : complex<double>(to_double(), 0.0);
  }
  template <typename T>
  T to() const {
    if constexpr (is_complex_type_v<T>)
      return T(to_complex());
    else if constexpr (std::is_same_v<T, bool>)
      return to_bool();
    else if constexpr (std::is_integral_v<T>) return static_cast<T>(to_int());
    else if constexpr (std::is_same_v<T, double>) return to_double();
    else return T(static_cast<float>(to_double()));
  }
  // The dtype this scalar has on its own: bool, int64, the default float dtype or its complex counterpart.
  DType natural_dtype() const;
  DTypeCategory category() const {
    switch (kind_) {
      case Kind::Float:
        return DTypeCategory::Floating;
      case Kind::Int:
        return DTypeCategory::Integral;
      case Kind::Complex:
        return DTypeCategory::Complex;
      default:
        return DTypeCategory::Bool;
    }
  }

 private:
  Kind kind_;
  bool big_unsigned_ = false;
  union {
    int64_t i_;
    double d_;
    complex<double> c_;
  };
};

}  // namespace tandem
