// Which input dtypes each op-list rule lets reach a kernel (the front ends cast or reject the others). The
// CPU and CUDA kernel tables instantiate loops only for these, so both backends accept exactly the same
// dtypes.
#pragma once
#include "core/dtype.h"
#include "kernels/op_rules.h"

namespace tandem {

template <typename T, UnaryRule R>
constexpr bool unary_accepts() {
  if constexpr (R == UnaryRule::Float || R == UnaryRule::FloatOnly)
    return is_floating_type_v<T>;
  else if constexpr (R == UnaryRule::Integral)
    return is_integral_or_bool_type_v<T>;
  else
    return true;
}

template <typename T, BinaryRule R>
constexpr bool binary_accepts() {
  if constexpr (R == BinaryRule::TrueDiv || R == BinaryRule::FloatOnly)
    return is_floating_type_v<T>;
  else if constexpr (R == BinaryRule::Integer)
    return is_integral_or_bool_type_v<T> && !std::is_same_v<T, bool>;
  else if constexpr (R == BinaryRule::Bitwise)
    return is_integral_or_bool_type_v<T>;
  else
    return true;
}

}  // namespace tandem
