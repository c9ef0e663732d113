#include "ops/special.h"

#include <cmath>

#include "core/error.h"
#include "core/profiler.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factories.h"
#include "ops/reduce.h"
#include "ops/type_promotion.h"
#include "ops/view.h"

namespace tandem {

namespace {
Tensor as_float(const Tensor& x) { return is_floating(x.dtype()) ? x : to_dtype(x, default_float_dtype()); }

// The in-place forms: the out-of-place result written back, when the base's dtype can hold it.
Tensor assign(const Tensor& self, const Tensor& result, const char* name) {
  TANDEM_CHECK(can_cast(result.dtype(), self.dtype()), Runtime, "result type ", dtype_title(result.dtype()),
               " can't be cast to the desired output type ", dtype_title(self.dtype()),
               "\nhint: use the out-of-place ", name, "() or convert first, e.g. x = x.float()");
  copy_(self, result);
  return self;
}
}  // namespace

Tensor polygamma(int64_t n, const Tensor& x) {
  profiler::RecordScope profile_scope("aten::polygamma", n, x);
  TANDEM_CHECK(n >= 0, Runtime,
               "polygamma(n, x) does not support negative n.\nhint: polygamma(0, x) is digamma(x); n counts "
               "derivatives from there");
  if (n == 0) return digamma(x);
  double factorial = 1;
  // n! overflows double from n = 171 on: stop there (a loop to n = 2**40 would hang).
  for (int64_t i = 2; i <= n && std::isfinite(factorial); ++i) factorial *= static_cast<double>(i);
  return mul(zeta(Scalar(static_cast<double>(n + 1)), x), Scalar(n % 2 ? factorial : -factorial));
}

Tensor polygamma_(int64_t n, const Tensor& self) { return assign(self, polygamma(n, self), "polygamma"); }

Tensor logit(const Tensor& x, double eps) {
  profiler::RecordScope profile_scope("aten::logit", x, eps);
  Tensor in = as_float(x);
  // A NaN eps fails both of PyTorch's bound comparisons, so x stays as it is.
  if (eps < 0 || std::isnan(eps)) return logit(in);
  if (eps <= 0.5) return logit(clamp(in, Scalar(eps), Scalar(1.0 - eps)));
  // eps > 1 - eps: PyTorch tests the lower bound first (x < eps gives eps, else min(x, 1 - eps)), where clamp
  // would give every element 1 - eps.
  Tensor lo = full(DimVector{}, Scalar(eps), in.dtype(), in.device());
  return logit(where(lt(in, Scalar(eps)), lo, clamp(in, std::nullopt, Scalar(1.0 - eps))));
}

Tensor logit_(const Tensor& self, double eps) { return assign(self, logit(self, eps), "logit"); }

namespace {
// float_power computes in double precision: complex128 when either operand is complex, float64 otherwise.
DType float_power_type(bool complex) { return complex ? DType::Complex128 : DType::Float64; }
Scalar in_double(const Scalar& v) { return v.is_complex() ? v : Scalar(v.to_double()); }

void check_float_power_base(const Tensor& self, DType result) {
  TANDEM_CHECK(self.dtype() == result, Runtime, "the base given to float_power_ has dtype ",
               dtype_title(self.dtype()), " but the operation's result requires dtype ", dtype_title(result),
               "\nhint: convert the base first, e.g. x = x.", result == DType::Float64 ? "double" : "cdouble",
               "(), or use the out-of-place float_power()");
}
}  // namespace

Tensor float_power(const Tensor& a, const Tensor& b) {
  profiler::RecordScope profile_scope("aten::float_power", a, b);
  const DType t = float_power_type(is_complex(a.dtype()) || is_complex(b.dtype()));
  return pow(to_dtype(a, t), to_dtype(b, t));
}
Tensor float_power(const Tensor& a, const Scalar& b) {
  profiler::RecordScope profile_scope("aten::float_power", a, b);
  return pow(to_dtype(a, float_power_type(is_complex(a.dtype()) || b.is_complex())), in_double(b));
}
Tensor float_power(const Scalar& a, const Tensor& b) {
  profiler::RecordScope profile_scope("aten::float_power", a, b);
  return pow(in_double(a), to_dtype(b, float_power_type(a.is_complex() || is_complex(b.dtype()))));
}

Tensor float_power_(const Tensor& self, const Tensor& b) {
  profiler::RecordScope profile_scope("aten::float_power_", self, b);
  const DType t = float_power_type(is_complex(self.dtype()) || is_complex(b.dtype()));
  check_float_power_base(self, t);
  return pow_(self, to_dtype(b, t));
}
Tensor float_power_(const Tensor& self, const Scalar& b) {
  profiler::RecordScope profile_scope("aten::float_power_", self, b);
  check_float_power_base(self, float_power_type(is_complex(self.dtype()) || b.is_complex()));
  return pow_(self, in_double(b));
}

Tensor multigammaln(const Tensor& x, int64_t p) {
  profiler::RecordScope profile_scope("aten::multigammaln", x, p);
  TANDEM_CHECK(p >= 1, Runtime, "p has to be greater than or equal to 1");
  Tensor in = as_float(x);
  // the offsets 0, -1/2, ..., -(p-1)/2 along a new last dimension
  Tensor offsets =
      arange(Scalar(0.0), Scalar(-0.5 * static_cast<double>(p)), Scalar(-0.5), in.dtype(), in.device());
  Tensor terms = lgamma(add(unsqueeze(in, -1), offsets));
  const double pd = static_cast<double>(p);
  return add(sum(terms, DimVector{-1}), Scalar(pd * (pd - 1) / 4 * std::log(3.141592653589793)));
}

Tensor multigammaln_(const Tensor& self, int64_t p) {
  profiler::RecordScope profile_scope("aten::multigammaln_", self, p);
  return assign(self, multigammaln(self, p), "mvlgamma");
}

}  // namespace tandem
