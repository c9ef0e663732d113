#include "ops/random_gamma.h"

#include <cmath>

#include "autograd/formulas_random.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/random.h"
#include "ops/random_cpu_stream.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace tandem {

namespace {

void check_floating_input(const Tensor& x, const char* kernel) {
  TANDEM_CHECK(is_floating(x.dtype()), NotImplemented, "\"", kernel, "\" not implemented for '",
               dtype_title(x.dtype()),
               "'\nhint: this op needs a floating-point tensor; convert it with .float()");
}

// PyTorch's message when two operands of one kernel differ in dtype (`expected` is the first operand's).
void check_same_dtype(const Tensor& first, const Tensor& second) {
  TANDEM_CHECK(first.dtype() == second.dtype(), Runtime, "Found dtype ", dtype_title(second.dtype()),
               " but expected ", dtype_title(first.dtype()),
               "\nhint: convert both operands to one dtype, e.g. ", "b = b.to(a.dtype)");
}

// A fresh contiguous copy of `x` broadcast to `shape` on `device`: what the kernels read.
Tensor kernel_operand(const Tensor& x, IntArrayRef shape, Device device) {
  return to_device(expand(x, shape), device, x.dtype(), true);
}

// The largest value below 1 in a floating dtype: PyTorch's upper clamp of Dirichlet samples.
double below_one(DType d) {
  switch (d) {
    case DType::Float64:
      return std::nextafter(1.0, 0.0);
    case DType::Float16:
      return 1.0 - 0x1p-11;
    case DType::BFloat16:
      return 1.0 - 0x1p-8;
    default:
      return static_cast<double>(std::nextafter(1.0f, 0.0f));
  }
}

// The smallest positive normal value of a floating dtype: PyTorch's lower clamp of gamma/Dirichlet samples.
double smallest_normal(DType d) {
  switch (d) {
    case DType::Float64:
      return 2.2250738585072014e-308;
    case DType::Float16:
      return 6.103515625e-05;
    default:
      return 1.1754943508222875e-38;
  }
}

}  // namespace

Tensor standard_gamma(const Tensor& alpha, Generator* gen) {
  profiler::RecordScope profile_scope("aten::_standard_gamma", alpha, gen);
  check_floating_input(alpha, "gamma_cpu");
  Tensor out = empty(alpha.sizes(), alpha.dtype(), alpha.device());
  Generator& g = pick_generator(gen, alpha.device());
  if (out.numel() > 0) {
    Tensor a = alpha.is_contiguous() ? alpha : contiguous(alpha);
    if (out.device().is_cpu()) {
      cpu_stream::standard_gamma(out, g, a);  // PyTorch's draws (ops/random_cpu_stream.h)
    } else {
      PhiloxState state = g.reserve(static_cast<uint64_t>(out.numel()));
      kernel_table(out.device().type).random.standard_gamma(out, a, state);
    }
  }
  if (autograd::should_record(alpha)) return autograd::record_standard_gamma(alpha, out);
  return out;
}

Tensor standard_gamma_grad(const Tensor& alpha, const Tensor& x) {
  profiler::RecordScope profile_scope("aten::_standard_gamma_grad", alpha, x);
  check_floating_input(alpha, "_standard_gamma_grad_cpu");
  check_same_dtype(alpha, x);
  check_same_device("_standard_gamma_grad", alpha, x, "self", "output");
  DimVector shape = broadcast_shapes(alpha.sizes(), x.sizes());
  Tensor out = empty(shape, alpha.dtype(), alpha.device());
  if (out.numel() == 0) return out;
  kernel_table(out.device().type)
      .random.standard_gamma_grad(out, kernel_operand(alpha, shape, out.device()),
                                  kernel_operand(x, shape, out.device()));
  return out;
}

Tensor poisson(const Tensor& rates, Generator* gen) {
  profiler::RecordScope profile_scope("aten::poisson", rates, gen);
  check_floating_input(rates, "poisson_cpu");
  Generator& g = pick_generator(gen, rates.device());
  Tensor out = empty(rates.sizes(), rates.dtype(), rates.device());
  if (out.numel() == 0) return out;
  // `!(rate >= 0)` also catches NaN, as PyTorch's check does.
  TANDEM_CHECK(!item(any(logical_not(ge(rates, Scalar(0.0))))).to_bool(), Runtime,
               "invalid Poisson rate, expected rate to be non-negative",
               "\nhint: rates must be >= 0 and not NaN; e.g. rates.clamp(min=0)");
  Tensor r = rates.is_contiguous() ? rates : contiguous(rates);
  if (out.device().is_cpu()) {
    cpu_stream::poisson(out, g, r);  // PyTorch's draws (ops/random_cpu_stream.h)
  } else {
    PhiloxState state = g.reserve(static_cast<uint64_t>(out.numel()));
    kernel_table(out.device().type).random.poisson(out, r, state);
  }
  if (autograd::should_record(rates)) return autograd::record_poisson(rates, out);
  return out;
}

Tensor binomial(const Tensor& count, const Tensor& prob, Generator* gen) {
  profiler::RecordScope profile_scope("aten::binomial", count, prob, gen);
  TANDEM_CHECK(is_floating(count.dtype()), Value,
               "binomial only supports floating-point dtypes for count, got: ", dtype_title(count.dtype()),
               "\nhint: convert the counts with count.float()");
  TANDEM_CHECK(is_floating(prob.dtype()), Value,
               "binomial only supports floating-point dtypes for prob, got: ", dtype_title(prob.dtype()),
               "\nhint: convert the probabilities with prob.float()");
  check_same_dtype(count, prob);
  check_same_device("binomial", count, prob, "count", "prob");
  DimVector shape = broadcast_shapes(count.sizes(), prob.sizes());
  Tensor out = empty(shape, count.dtype(), count.device());
  Generator& g = pick_generator(gen, out.device());
  if (out.numel() == 0) return out;
  if (out.device().is_cpu()) {  // PyTorch's draws (ops/random_cpu_stream.h)
    cpu_stream::binomial(out, g, kernel_operand(count, shape, out.device()),
                         kernel_operand(prob, shape, out.device()));
    return out;
  }
  PhiloxState state = g.reserve(static_cast<uint64_t>(out.numel()));
  kernel_table(out.device().type)
      .random.binomial(out, kernel_operand(count, shape, out.device()),
                       kernel_operand(prob, shape, out.device()), state);
  return out;
}

// As PyTorch: gammas drawn in float64 (so tiny concentrations do not underflow to a 0/0 row), normalised,
// then clamped into [smallest normal, largest value below 1] of the dtype (NaN, from inf/inf, to the lower
// end).
Tensor sample_dirichlet(const Tensor& alpha, Generator* gen) {
  profiler::RecordScope profile_scope("aten::_sample_dirichlet", alpha, gen);
  check_floating_input(alpha, "dirichlet");
  if (alpha.numel() == 0) return empty(alpha.sizes(), alpha.dtype(), alpha.device());
  Tensor gammas =
      autograd::without_grad([&] { return standard_gamma(to_dtype(alpha, DType::Float64), gen); });
  const int64_t last = alpha.dim() == 0 ? 0 : alpha.dim() - 1;
  Tensor ratio =
      alpha.dim() == 0 ? div(gammas, gammas) : div(gammas, sum(gammas, DimVector{last}, /*keepdim=*/true));
  Tensor out = to_dtype(ratio, alpha.dtype());
  const double lo = smallest_normal(alpha.dtype());
  out = where(isnan(out), full({}, Scalar(lo), out.dtype(), out.device()), out);
  return clamp(out, Scalar(lo), Scalar(below_one(alpha.dtype())));
}

}  // namespace tandem
