#include "ops/compare.h"

#include "core/error.h"
#include "core/profiler.h"
#include "kernels/meta/meta_kernels.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/reduce.h"

namespace tandem {

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  profiler::RecordScope profile_scope("aten::isclose", a, b, rtol, atol, equal_nan);
  TANDEM_CHECK(a.dtype() == b.dtype(), Runtime, dtype_title(a.dtype()), " did not match ",
               dtype_title(b.dtype()), "\nhint: convert one side first, e.g. a.to(b.dtype)");
  TANDEM_CHECK(rtol >= 0, Runtime, "rtol must be greater than or equal to zero, but got ", rtol);
  TANDEM_CHECK(atol >= 0, Runtime, "atol must be greater than or equal to zero, but got ", atol);
  Tensor close = eq(a, b);
  if (a.dtype() == DType::Bool) return close;
  // Computed in the default float dtype for integers, as the tolerance is fractional; complex values compare
  // by the modulus of their difference (NaN when either part is).
  DType d = is_floating(a.dtype()) || is_complex(a.dtype()) ? a.dtype() : default_float_dtype();
  Tensor fa = to_dtype(a, d), fb = to_dtype(b, d);
  // Close when the difference is finite and within the tolerance (PyTorch's rule: with rtol=inf, inf against
  // a finite value must not pass through an infinite tolerance).
  Tensor difference = abs(sub(fa, fb));
  Tensor within = le(difference, add(mul(abs(fb), Scalar(rtol)), Scalar(atol)));
  close = logical_or(close, logical_and(within, isfinite(difference)));
  if (equal_nan) close = logical_or(close, logical_and(isnan(fa), isnan(fb)));
  return close;
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return item(all(isclose(a, b, rtol, atol, equal_nan))).to_bool();
}

bool equal(const Tensor& a, const Tensor& b) {
  check_same_device("equal", a, b);
  if (a.device().is_meta()) meta::refuse_data_dependent("equal");
  if (a.sizes() != b.sizes()) return false;
  return item(all(eq(a, b))).to_bool();
}

}  // namespace tandem
