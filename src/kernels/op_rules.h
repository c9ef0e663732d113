// The dtype rules named in op_list.def. Front ends use them to pick result and compute dtypes; kernels use
// them to instantiate loops only for the dtypes that can reach them.
#pragma once

namespace tandem {

enum class UnaryRule { Same, NoBool, Float, FloatOnly, Predicate, Integral };
enum class BinaryRule { Arith, ArithNoBool, TrueDiv, FloatOnly, Integer, IntDiv, Compare, Logical, Bitwise };

constexpr bool rule_outputs_bool(UnaryRule r) { return r == UnaryRule::Predicate; }
constexpr bool rule_outputs_bool(BinaryRule r) {
  return r == BinaryRule::Compare || r == BinaryRule::Logical;
}

}  // namespace tandem
