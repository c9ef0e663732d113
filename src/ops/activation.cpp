#include "ops/activation.h"
#include "ops/autocast.h"

#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "kernels/tensor_iterator.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/layout.h"

namespace tandem {

namespace {

struct ActivationInfo {
  std::string_view name;  // torch.nn.functional's
  Activation op;
  const char* node;    // PyTorch's autograd node
  const char* kernel;  // PyTorch's kernel name in its dtype errors ("elu_cpu")
};

constexpr ActivationInfo kActivations[] = {
    {"elu", Activation::Elu, "EluBackward0", "elu"},
    {"selu", Activation::Elu, "EluBackward0", "elu"},
    {"celu", Activation::Elu, "CeluBackward0", "elu"},
    {"leaky_relu", Activation::LeakyRelu, "LeakyReluBackward0", "leaky_relu"},
    {"softplus", Activation::Softplus, "SoftplusBackward0", "softplus"},
    {"hardtanh", Activation::Hardtanh, "HardtanhBackward0", "hardtanh"},
    {"relu6", Activation::Hardtanh, "HardtanhBackward0", "hardtanh"},
    {"hardsigmoid", Activation::Hardsigmoid, "HardsigmoidBackward0", "hardsigmoid"},
    {"hardswish", Activation::Hardswish, "HardswishBackward0", "hardswish"},
    {"mish", Activation::Mish, "MishBackward0", "mish"},
    {"logsigmoid", Activation::LogSigmoid, "LogSigmoidBackward0", "log_sigmoid"},
    {"threshold", Activation::Threshold, "ThresholdBackward0", "threshold"},
    {"hardshrink", Activation::Hardshrink, "HardshrinkBackward0", "hardshrink"},
    {"softshrink", Activation::Softshrink, "SoftshrinkBackward0", "softshrink"},
};

const ActivationInfo& info_of(std::string_view name) {
  for (const ActivationInfo& i : kActivations)
    if (i.name == name) return i;
  TANDEM_THROW(Value, "unknown activation '", name, "'");
}

void run_activation(const ActivationSpec& spec, const Tensor& out, const Tensor& x) {
  TensorIterator iter;
  iter.add_output(out);
  iter.add_input(x);
  iter.build();
  kernel_table(out.device().type).activation(iter, spec);
}

// Integer inputs: only hardtanh (a clamp) and threshold take them, as in PyTorch.
Tensor integral_activation(const ActivationSpec& spec, const Tensor& x) {
  if (spec.op == Activation::Hardtanh)
    return clamp(x, Scalar(static_cast<int64_t>(spec.a)), Scalar(static_cast<int64_t>(spec.b)));
  Tensor value = full(DimVector{}, Scalar(static_cast<int64_t>(spec.b)), x.dtype());
  return where(le(x, Scalar(spec.a)), value, x);
}

bool takes_integers(Activation op) { return op == Activation::Hardtanh || op == Activation::Threshold; }

void check_dtype(const ActivationInfo& info, const Tensor& x) {
  TANDEM_CHECK(is_floating(x.dtype()) || (takes_integers(info.op) && x.dtype() != DType::Bool),
               NotImplemented, "\"", info.kernel, "_", x.device().is_cpu() ? "cpu" : "cuda",
               "\" not implemented for '", dtype_title(x.dtype()),
               "'\nhint: convert the input to a floating dtype first, e.g. x.float()");
}

}  // namespace

Tensor activation(std::string_view name, const Tensor& x, double a, double b, double c) {
  profiler::Range profile_scope;
  if (profiler::recording()) profile_scope.set(profiler::begin_op("aten::" + std::string(name), x, a, b, c));
  if (autocast::is_active() && name == "softplus")
    return autocast::run(
        autocast::kCudaFp32, [&](const Tensor& t) { return activation(name, t, a, b, c); }, x);
  const ActivationInfo& info = info_of(name);
  const ActivationSpec spec{info.op, a, b, c};
  check_dtype(info, x);
  if (!is_floating(x.dtype())) return integral_activation(spec, x);
  if (autograd::should_record(x)) {
    Tensor out = autograd::without_grad([&] { return activation(name, x, a, b, c); });
    return autograd::record_activation(spec, info.node, x, out);
  }
  Tensor out = empty_elementwise(x.sizes(), x.dtype(), x.device(), {&x});
  run_activation(spec, out, x);
  return out;
}

Tensor activation_(std::string_view name, const Tensor& x, double a, double b, double c) {
  profiler::Range profile_scope;
  if (profiler::recording())
    profile_scope.set(profiler::begin_op("aten::" + std::string(name) + "_", x, a, b, c));
  const ActivationInfo& info = info_of(name);
  check_writeable(x, info.kernel);
  check_dtype(info, x);
  if (!is_floating(x.dtype())) return copy_(x, activation(name, x, a, b, c));
  if (autograd::should_record(x))
    return autograd::inplace_with_grad(
        x, [&](const Tensor& before) { return activation(name, before, a, b, c); });
  run_activation({info.op, a, b, c}, x, x);
  x.bump_version();
  return x;
}

Tensor activation_backward(const ActivationSpec& spec, const Tensor& grad_out, const Tensor& x) {
  Tensor g = to_dtype(grad_out, x.dtype());
  Tensor grad_in = empty(x.sizes(), x.dtype(), x.device());
  TensorIterator iter;
  iter.add_output(grad_in);
  iter.add_input(g);
  iter.add_input(x);
  iter.build();
  kernel_table(x.device().type).activation_backward(iter, spec);
  return grad_in;
}

Tensor activation_derivative(const ActivationSpec& s, const Tensor& x) {
  auto k = [&](double v) { return full(DimVector{}, Scalar(v), x.dtype()); };
  // exp's argument is clamped to the branch that reads it: where's other branch then stays finite, so a
  // double backward does not meet 0 * inf (NaN) where PyTorch's elu/softplus double backward are finite.
  switch (s.op) {
    case Activation::Elu: {
      Tensor z = exp(mul(clamp(x, std::nullopt, Scalar(0.0)), Scalar(s.c)));
      return where(le(x, Scalar(0.0)), mul(z, Scalar(s.a * s.b * s.c)), k(s.b));
    }
    case Activation::LeakyRelu:
      return where(gt(x, Scalar(0.0)), k(1), k(s.a));
    case Activation::Softplus: {
      Tensor bx = mul(x, Scalar(s.a));
      Tensor z = exp(clamp(bx, std::nullopt, Scalar(s.b)));
      return where(gt(bx, Scalar(s.b)), k(1), div(z, add(z, Scalar(1.0))));
    }
    case Activation::Hardtanh:
      return where(logical_or(le(x, Scalar(s.a)), ge(x, Scalar(s.b))), k(0), k(1));
    case Activation::Hardsigmoid:
      return where(logical_and(gt(x, Scalar(-3.0)), lt(x, Scalar(3.0))), k(1.0 / 6), k(0));
    case Activation::Hardswish:
      return where(le(x, Scalar(-3.0)), k(0),
                   where(lt(x, Scalar(3.0)), add(div(x, Scalar(3.0)), Scalar(0.5)), k(1)));
    case Activation::Mish: {
      Tensor t = tanh(log1p(exp(x)));
      return add(t, mul(mul(x, sigmoid(x)), sub(Scalar(1.0), mul(t, t))));
    }
    case Activation::LogSigmoid:
      return sigmoid(neg(x));
    case Activation::Threshold:
      return where(le(x, Scalar(s.a)), k(0), k(1));
    case Activation::Hardshrink:
    case Activation::Softshrink:
      return where(logical_and(ge(x, Scalar(-s.a)), le(x, Scalar(s.a))), k(0), k(1));
  }
  TANDEM_THROW(Runtime, "unknown activation");
}

}  // namespace tandem
