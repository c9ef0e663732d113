#include "ops/factories.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/value_range.h"

namespace tandem {

namespace {
void check_not_bool(DType dtype, const char* kernel) {
  TANDEM_CHECK(dtype != DType::Bool, NotImplemented, "\"", kernel, "\" not implemented for 'Bool'",
               "\nhint: pass a numeric dtype such as tandem.int64");
}
}  // namespace

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, std::optional<DType> dtype,
              Device device) {
  profiler::RecordScope profile_scope("aten::arange", start, end, step, dtype, device);
  // A complex number (with a zero imaginary part, checked below) counts as a float, as in PyTorch.
  bool any_float = start.is_float() || end.is_float() || step.is_float() || start.is_complex() ||
                   end.is_complex() || step.is_complex();
  DType d = dtype.value_or(any_float ? default_float_dtype() : DType::Int64);
  check_not_bool(d, "arange_cpu");
  for (const Scalar* v :
       {&start, &end, &step})  // a complex bound has no place on the real line (PyTorch's error)
    TANDEM_CHECK(!v->is_complex() || v->to_complex().im == 0.0, Runtime,
                 "value cannot be converted to type double without overflow",
                 "\nhint: arange takes real bounds and steps");
  double xstart = start.to_double(), xend = end.to_double(), xstep = step.to_double();
  TANDEM_CHECK(xstep != 0.0, Runtime, "step must be nonzero\nhint: pass a positive or negative step");
  TANDEM_CHECK(std::isfinite(xstep), Runtime, "step must be finite but got ", xstep,
               "\nhint: an infinite or NaN step gives no range");
  TANDEM_CHECK(std::isfinite(xstart) && std::isfinite(xend), Runtime, "unsupported range: ", xstart, " -> ",
               xend, "\nhint: arange needs finite bounds");
  TANDEM_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart), Runtime,
               "upper bound and lower bound inconsistent with step sign",
               "\nhint: use a negative step to count down from start to end, a positive one to count up");
  double size;
  if (d == DType::Int64 && !any_float) {
    // As PyTorch: integer bounds size an int64 range in integer arithmetic, which must fit
    // (arange(0, 1e20, 1e19) is PyTorch's overflow error, not a range of a saturated bound).
    for (const Scalar* v : {&start, &end, &step}) check_value_fits(*v, d, true);  // (C type in the message)
    int64_t a = start.to_int(), z = end.to_int(), s = step.to_int();
    int64_t sgn = (s > 0) - (s < 0);
    // Exact: the + s - sgn rounds the quotient up. In 128 bits, as the bounds may be int64's extremes.
    size = static_cast<double>((static_cast<__int128>(z) - a + s - sgn) / s);
  } else {
    // Float bounds (for any dtype, int64 too) size the range by the real bounds, as PyTorch: arange(3.5,
    // dtype=int64) has 4 elements. An integer range is then filled from the truncated start and step
    // (arange(0, 3, 0.5, dtype=int64) is six zeros in PyTorch), which must fit PyTorch's int64 accumulator.
    if (is_integral(d, false))
      for (const Scalar* v : {&start, &end, &step}) check_value_fits(*v, DType::Int64, true);
    size = std::ceil((xend - xstart) / xstep);
  }
  // `<`: 2**63 - 1 rounds up to 2**63 as a double, which does not convert back to int64.
  TANDEM_CHECK(size >= 0 && size < static_cast<double>(std::numeric_limits<int64_t>::max()), Runtime,
               "invalid size, possible overflow?\nhint: the range holds too many elements");
  const int64_t sizes[1] = {static_cast<int64_t>(size)};
  Tensor out = empty(sizes, d, device);
  if (out.numel() > 0) kernel_table(device.type).random.arange(out, start, step);
  return out;
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, std::optional<DType> dtype,
                Device device) {
  profiler::RecordScope profile_scope("aten::linspace", start, end, steps, dtype, device);
  TANDEM_CHECK(steps >= 0, Runtime,
               "number of steps must be non-negative\nhint: steps counts the values, ends "
               "included");
  // Complex ends without a dtype give the default complex dtype, as in PyTorch.
  DType d = dtype.value_or(start.is_complex() || end.is_complex() ? complex_dtype_for(default_float_dtype())
                                                                  : default_float_dtype());
  check_not_bool(d, "linspace_cpu");
  check_value_fits(start, d, true);  // PyTorch refuses ends the dtype cannot hold (float16 from 1e5: not NaN)
  check_value_fits(end, d, true);
  if (is_complex(d)) {
    // The real and imaginary parts are two real linspaces (one kernel per real dtype serves both).
    const DType part = complex_value_dtype(d);
    const complex<double> a = start.to_complex(), b = end.to_complex();
    return make_complex(linspace(Scalar(a.re), Scalar(b.re), steps, part, device),
                        linspace(Scalar(a.im), Scalar(b.im), steps, part, device));
  }
  const int64_t sizes[1] = {steps};
  Tensor out = empty(sizes, d, device);
  if (steps == 1)
    fill_(out, start);
  else if (steps > 1)
    kernel_table(device.type).random.linspace(out, start, end);
  return out;
}

Tensor eye(int64_t n, std::optional<int64_t> m, DType dtype, Device device) {
  profiler::RecordScope profile_scope("aten::eye", n, m, dtype, device);
  TANDEM_CHECK(n >= 0, Runtime, "n must be greater or equal to 0, got ", n, "\nhint: eye(n) needs n >= 0");
  int64_t cols = m.value_or(n);
  TANDEM_CHECK(cols >= 0, Runtime, "m must be greater or equal to 0, got ", cols,
               "\nhint: eye(n, m) needs m >= 0");
  const int64_t sizes[2] = {n, cols};
  Tensor out = full(sizes, Scalar(int64_t{0}), dtype, device);
  // The diagonal is a strided view with step cols + 1.
  const int64_t diag_size[1] = {std::min(n, cols)};
  const int64_t diag_stride[1] = {cols + 1};
  if (diag_size[0] > 0) fill_(make_view(out, diag_size, diag_stride, 0), Scalar(int64_t{1}));
  return fresh_result(out);  // version 0, as a new tensor's (the diagonal's fill was an in-place write)
}

}  // namespace tandem
