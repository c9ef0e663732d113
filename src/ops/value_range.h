// Whether a Python number fits a dtype: PyTorch's checked conversion (c10's `overflows`) for fill_/full and
// tensor(data), so that full((2,), 300, dtype=int8) raises as in PyTorch instead of wrapping to 44.
#pragma once
#include "core/dtype.h"
#include "core/scalar.h"

namespace tandem {

// Raises PyTorch's RuntimeError "value cannot be converted to type ... without overflow" unless `v` fits
// `dtype`: an integer type takes the values it holds (an unsigned one also takes negatives down to -max,
// which wrap); NaN and infinities fit no integer type. For fill_/full (`for_fill`), float32 also refuses
// finite values beyond its range and the message names the C type ("int8_t"), as PyTorch's do; tensor(data)
// names the dtype ("int8") and lets float32 round to inf. bool, float16, bfloat16 and float64 take any
// number.
void check_value_fits(const Scalar& v, DType dtype, bool for_fill);

}  // namespace tandem
