// Reductions built from other public ops (so every device gets them once it has the basic folds):
// var/std, norm (16-bit floats compute in float32, as PyTorch's CPU does), logsumexp. softmax and log_softmax
// live here too: their front end, over the reduce family's fused softmax kernel.
#include <cmath>
#include <limits>

#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "ops/autocast.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/reduce.h"
#include "ops/reduce_plan.h"
#include "ops/view.h"

namespace tandem {

namespace {

bool is_half_like(DType d) { return d == DType::Float16 || d == DType::BFloat16; }
Tensor widen(const Tensor& x) { return is_half_like(x.dtype()) ? to_dtype(x, DType::Float32) : x; }
Tensor scalar_like(double v, const Tensor& x) { return full(DimVector{}, Scalar(v), x.dtype(), x.device()); }
// The divisor of var/std: the reduced count less the correction, never below 0; NaN for an empty reduction
// (the variance of nothing is NaN in PyTorch whatever the correction, a negative one included).
double dof(const Tensor& x, const OptDims& dims, double correction) {
  const int64_t count = plan_reduction(x, dims, false).reduced_numel;
  if (count == 0) return std::numeric_limits<double>::quiet_NaN();
  return std::max(0.0, static_cast<double>(count) - correction);
}

}  // namespace

namespace {

// var's value (recorded by the callers), float32 deviations in float64 when `float32_in_float64`.
Tensor variance(const Tensor& x, const OptDims& dims, double correction, bool keepdim, bool float32_in_float64) {
  TANDEM_CHECK(is_floating(x.dtype()) || is_complex(x.dtype()), NotImplemented,
               "std and var only support floating point and complex dtypes",
               "\nhint: convert first, e.g. x.float().var()");
  if (is_complex(x.dtype())) {
    // The mean squared modulus of the deviations (a real result): the parts' variances added.
    Tensor centered = sub(x, mean(x, dims, true));
    Tensor re = real(centered), im = imag(centered);
    Tensor ss = sum(add(mul(re, re), mul(im, im)), dims, keepdim);
    return div(ss, Scalar(dof(x, dims, correction)));
  }
  Tensor w = float32_in_float64 && x.dtype() == DType::Float32 ? to_dtype(x, DType::Float64) : widen(x);
  Tensor centered = sub(w, mean(w, dims, true));
  Tensor ss = sum(mul(centered, centered), dims, keepdim);
  return to_dtype(div(ss, Scalar(dof(x, dims, correction))), x.dtype());
}

}  // namespace

// float32 computes in float64, as PyTorch's CPU kernel accumulates (Welford in double): the last bits agree
// with PyTorch's, and identical values give exactly 0 (blitz's mfvi test: the std of a frozen net's samples).
Tensor var(const Tensor& x, const OptDims& dims, double correction, bool keepdim) {
  profiler::RecordScope profile_scope("aten::var", x, dims, correction, keepdim);
  // One formula for both: 2 g (x - mean) / dof is also the gradient of a complex x's variance.
  if (autograd::should_record(x))
    return autograd::record_var(false, x, dims, dof(x, dims, correction), keepdim,
                                autograd::without_grad([&] { return var(x, dims, correction, keepdim); }));
  return variance(x, dims, correction, keepdim, true);
}

Tensor var_in_input_dtype(const Tensor& x, const OptDims& dims, double correction, bool keepdim) {
  if (autograd::should_record(x))
    return autograd::record_var(
        false, x, dims, dof(x, dims, correction), keepdim,
        autograd::without_grad([&] { return var_in_input_dtype(x, dims, correction, keepdim); }));
  return variance(x, dims, correction, keepdim, false);
}

Tensor stddev(const Tensor& x, const OptDims& dims, double correction, bool keepdim) {
  profiler::RecordScope profile_scope("aten::std", x, dims, correction, keepdim);
  if (autograd::should_record(x))
    return autograd::record_var(true, x, dims, dof(x, dims, correction), keepdim,
                                autograd::without_grad([&] { return stddev(x, dims, correction, keepdim); }));
  // float16/bfloat16: the root of the float32 variance, rounded once (a variance past 65504 has a root that
  // fits).
  if (x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16)
    return to_dtype(sqrt(var(to_dtype(x, DType::Float32), dims, correction, keepdim)), x.dtype());
  return sqrt(var(x, dims, correction, keepdim));
}

Tensor norm(const Tensor& x, double p, const OptDims& dims, bool keepdim, OptDType dtype) {
  profiler::RecordScope profile_scope("aten::norm", x, p, dims, keepdim, dtype);
  if (is_complex(x.dtype())) {
    // The norm of the moduli, a real result (dtype= names the complex dtype to compute in, as PyTorch); its
    // gradient goes through abs's (g * z / |z|), which is PyTorch's for complex inputs.
    TANDEM_CHECK(!dtype || is_complex(*dtype), Runtime,
                 "linalg.vector_norm: dtype should be complex for complex inputs, but got ",
                 dtype_title(*dtype), "\nhint: pass dtype=tandem.complex128 (or none)");
    return norm(abs(dtype ? to_dtype(x, *dtype) : x), p, dims, keepdim, {});
  }
  if (autocast::is_active())
    return autocast::run_fp32_output(autocast::kCudaFp32Output, x, dtype,
                                     [&](OptDType d) { return norm(x, p, dims, keepdim, d); });
  if (autograd::should_record(x))
    return autograd::record_norm(x, p, dims, keepdim,
                                 autograd::without_grad([&] { return norm(x, p, dims, keepdim, dtype); }));
  Tensor in = dtype ? to_dtype(x, *dtype) : x;
  TANDEM_CHECK(is_floating(in.dtype()), NotImplemented,
               "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ",
               dtype_title(in.dtype()), "\nhint: convert first, e.g. x.float().norm()");
  Tensor w = widen(in);
  Tensor r;
  if (std::isinf(p)) {
    // An empty reduction has norm 0, as in PyTorch, where amax/amin would raise.
    ReducePlan plan = plan_reduction(w, dims, keepdim);
    r = plan.reduced_numel == 0 ? full(plan.result_shape, Scalar(0.0), w.dtype(), w.device())
        : p > 0                 ? amax(abs(w), dims, keepdim)
                                : amin(abs(w), dims, keepdim);
  } else if (p == 0) {
    r = sum(ne(w, Scalar(0.0)), dims, keepdim, w.dtype());
  } else if (p == 1) {
    r = sum(abs(w), dims, keepdim);
  } else if (p == 2) {
    r = sqrt(sum(mul(w, w), dims, keepdim));
  } else {
    r = pow(sum(pow(abs(w), Scalar(p)), dims, keepdim), Scalar(1.0 / p));
  }
  return to_dtype(r, in.dtype());
}

Tensor logsumexp(const Tensor& x, const DimVector& dims, bool keepdim) {
  profiler::RecordScope profile_scope("aten::logsumexp", x, dims, keepdim);
  if (autocast::is_active())
    return autocast::run(
        autocast::kCudaFp32, [&](const Tensor& t) { return logsumexp(t, dims, keepdim); }, x);
  if (autograd::should_record(x))
    return autograd::record_logsumexp(x, dims, keepdim,
                                      autograd::without_grad([&] { return logsumexp(x, dims, keepdim); }));
  if (is_complex(x.dtype())) {
    // Shifted by the largest real part (PyTorch's choice: |exp| depends on it alone), 0 where infinite.
    ReducePlan plan = plan_reduction(x, dims, keepdim);
    if (plan.reduced_numel == 0)
      return full(plan.result_shape, Scalar(-std::numeric_limits<double>::infinity()), x.dtype(), x.device());
    Tensor m = amax(real(x), dims, true);
    m = where(isinf(m), scalar_like(0.0, m), m);
    Tensor r = add(log(sum(exp(sub(x, m)), dims, true)), m);
    return as_result(contiguous(r), plan);
  }
  // A 16-bit input stays 16-bit: PyTorch's logsumexp is this composite on every device, each step rounding
  // to the input's dtype (only the sum accumulates in float32).
  Tensor w = is_floating(x.dtype()) ? x : to_dtype(x, default_float_dtype());
  DType result = is_floating(x.dtype()) ? x.dtype() : default_float_dtype();
  ReducePlan plan = plan_reduction(w, dims, keepdim);
  if (plan.reduced_numel == 0)
    return full(plan.result_shape, Scalar(-std::numeric_limits<double>::infinity()), result, x.device());
  // Shifting by the max keeps exp() in range; an infinite max shifts by 0 so inf - inf never appears.
  Tensor m = amax(w, dims, true);
  m = where(isinf(m), scalar_like(0.0, m), m);
  Tensor r = add(log(sum(exp(sub(w, m)), dims, true)), m);
  return to_dtype(as_result(contiguous(r), plan), result);
}

namespace {

Tensor softmax_impl(const Tensor& x, int64_t dim, OptDType dtype, bool log_space) {
  if (autocast::is_active())
    return autocast::run_fp32_output(autocast::kCudaFp32Output, x, dtype,
                                     [&](OptDType d) { return softmax_impl(x, dim, d, log_space); });
  // dtype= converts first, as PyTorch does (a recorded conversion; a complex input given a real dtype keeps
  // its real parts, with the binding's warning).
  const auto converted = [&x](DType d) {
    return is_complex(x.dtype()) && !is_complex(d) ? cast_discarding_imag(x, d) : to_dtype(x, d);
  };
  if (autograd::should_record(x)) {
    if (dtype) return softmax_impl(converted(*dtype), dim, {}, log_space);
    return autograd::record_softmax(
        log_space, x, dim, autograd::without_grad([&] { return softmax_impl(x, dim, {}, log_space); }));
  }
  Tensor in = dtype ? converted(*dtype) : x;
  int64_t d = wrap_dim(dim, in.dim());
  bool last = in.dim() == 0 || d == in.dim() - 1;
  if (in.numel() == 0) return empty_like(in);  // before the kernel's dtype check, as PyTorch's
  TANDEM_CHECK(is_floating(in.dtype()), NotImplemented, "\"", log_space ? "log_softmax" : "softmax",
               last ? "_lastdim_kernel_impl" : "_kernel_impl", "\" not implemented for '",
               dtype_title(in.dtype()),
               "'\nhint: convert first, e.g. x.float(), or pass dtype=tandem.float32");
  // One fused kernel over a contiguous input (as PyTorch's softmax, which also makes its input contiguous).
  Tensor src = contiguous(in);
  Tensor out = empty_like(src);
  kernel_table(src.device().type).reduce.softmax(out, src, d, log_space);
  return out;
}

}  // namespace

Tensor softmax(const Tensor& x, int64_t dim, OptDType dtype) {
  profiler::RecordScope profile_scope("aten::softmax", x, dim, dtype);
  return softmax_impl(x, dim, dtype, false);
}
Tensor log_softmax(const Tensor& x, int64_t dim, OptDType dtype) {
  profiler::RecordScope profile_scope("aten::log_softmax", x, dim, dtype);
  return softmax_impl(x, dim, dtype, true);
}

}  // namespace tandem
