// dispatch_dtype restricted to the floating dtypes, for kernels written only for them (nn, recurrent cells,
// normalisation): fn(TypeTag<T>{}) for float16, bfloat16, float32 and float64; other dtypes never reach these
// kernels (their front ends refuse them) and do nothing here.
#pragma once
#include "core/dtype.h"

namespace tandem {

template <typename Fn>
void dispatch_floating(DType d, Fn&& fn) {
  dispatch_dtype(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) fn(tag);
  });
}

}  // namespace tandem
