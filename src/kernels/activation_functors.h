// Activations with parameters (elu and its variants, leaky_relu, softplus, hardtanh, ...) as single
// elementwise passes. One functor per activation holds its parameters in the compute type and gives the
// value and the gradient; the CPU and CUDA kernels (kernels/cpu/activation_kernels.cpp,
// kernels/cuda/activation_kernels.cu) run the same functors. Both branches are computed and one selected, so
// CPU loops vectorise; each comparison is PyTorch's, so NaN and the points where the pieces meet go the way
// they go in PyTorch.
#pragma once
#include <cstdint>

#include "core/macros.h"
#include "kernels/activation.h"
#include "kernels/functors.h"

namespace tandem {

// scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1)). positive(): the value where x > 0, which
// the CPU kernel uses for whole blocks of positive inputs (it skips the exp there, as PyTorch's does).
template <typename A>
struct EluAct {
  A alpha, scale, input_scale;
  TANDEM_HOST_DEVICE A positive(A x) const { return x * scale; }
  TANDEM_HOST_DEVICE A operator()(A x) const {
    const A negative = Expm1Op{}(x * input_scale) * (alpha * scale);
    return x <= A(0) ? negative : positive(x);
  }
  TANDEM_HOST_DEVICE A grad(A g, A x) const {
    const A negative = g * (input_scale * alpha * scale) * ExpOp{}(x * input_scale);
    return x <= A(0) ? negative : g * scale;
  }
};

template <typename A>
struct LeakyReluAct {
  A slope;
  TANDEM_HOST_DEVICE A operator()(A x) const { return x > A(0) ? x : x * slope; }
  TANDEM_HOST_DEVICE A grad(A g, A x) const { return x > A(0) ? g : g * slope; }
};

// log(1 + exp(beta x)) / beta, and x itself where beta x > threshold
template <typename A>
struct SoftplusAct {
  A beta, threshold;
  TANDEM_HOST_DEVICE A operator()(A x) const {
    const A smooth = Log1pOp{}(ExpOp{}(x * beta)) / beta;
    return x * beta > threshold ? x : smooth;
  }
  TANDEM_HOST_DEVICE A grad(A g, A x) const {
    const A z = ExpOp{}(x * beta);
    const A smooth = g * z / (z + A(1));
    return x * beta > threshold ? g : smooth;
  }
};

// clamp(x, min_val, max_val); NaN stays NaN
template <typename A>
struct HardtanhAct {
  A lo, hi;
  TANDEM_HOST_DEVICE A operator()(A x) const { return x < lo ? lo : (x > hi ? hi : x); }
  TANDEM_HOST_DEVICE A grad(A g, A x) const { return (x <= lo || x >= hi) ? A(0) : g; }
};

// min(max(x + 3, 0), 6), PyTorch's form of relu6(x + 3) (NaN stays NaN)
template <typename A>
TANDEM_HOST_DEVICE TANDEM_INLINE A relu6_of_x_plus_3(A x) {
  A t = x + A(3);
  t = t < A(0) ? A(0) : t;
  return t > A(6) ? A(6) : t;
}

// relu6(x + 3) / 6
template <typename A>
struct HardsigmoidAct {
  TANDEM_HOST_DEVICE A operator()(A x) const { return relu6_of_x_plus_3(x) / A(6); }
  TANDEM_HOST_DEVICE A grad(A g, A x) const { return (x > A(-3) && x < A(3)) ? g / A(6) : A(0); }
};

// x * relu6(x + 3) / 6 (so -inf gives NaN and -3 gives -0, as in PyTorch); the derivative x/3 + 1/2 strictly
// between the kinks, 0 from -3 down and 1 from 3 up (PyTorch's choice at the kinks).
template <typename A>
struct HardswishAct {
  TANDEM_HOST_DEVICE A operator()(A x) const { return x * relu6_of_x_plus_3(x) / A(6); }
  TANDEM_HOST_DEVICE A grad(A g, A x) const {
    return x <= A(-3) ? A(0) : (x < A(3) ? g * (x / A(3) + A(0.5)) : g);
  }
};

// x * tanh(softplus(x))
template <typename A>
struct MishAct {
  TANDEM_HOST_DEVICE A operator()(A x) const { return x * TanhOp{}(Log1pOp{}(ExpOp{}(x))); }
  TANDEM_HOST_DEVICE A grad(A g, A x) const {
    const A t = TanhOp{}(Log1pOp{}(ExpOp{}(x)));
    const A s = SigmoidOp{}(x);
    return g * (t + x * s * (A(1) - t * t));
  }
};

// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), without overflow on either side
template <typename A>
struct LogSigmoidAct {
  TANDEM_HOST_DEVICE A operator()(A x) const {
    const A m = x < A(0) ? x : A(0);
    return m - Log1pOp{}(ExpOp{}(-AbsOp{}(x)));
  }
  TANDEM_HOST_DEVICE A grad(A g, A x) const {
    const A z = ExpOp{}(-AbsOp{}(x));
    const A q = z / (A(1) + z);
    return x < A(0) ? g * (A(1) - q) : g * q;
  }
};

// value where x <= threshold, else x
template <typename A>
struct ThresholdAct {
  A threshold, value;
  TANDEM_HOST_DEVICE A operator()(A x) const { return x <= threshold ? value : x; }
  TANDEM_HOST_DEVICE A grad(A g, A x) const { return x <= threshold ? A(0) : g; }
};

// 0 on [-lambd, lambd], else x
template <typename A>
struct HardshrinkAct {
  A lambd;
  TANDEM_HOST_DEVICE A operator()(A x) const { return (x >= -lambd && x <= lambd) ? A(0) : x; }
  TANDEM_HOST_DEVICE A grad(A g, A x) const { return (x >= -lambd && x <= lambd) ? A(0) : g; }
};

// x - lambd above lambd, x + lambd below -lambd, else 0 (x * 0: NaN stays NaN)
template <typename A>
struct SoftshrinkAct {
  A lambd;
  TANDEM_HOST_DEVICE A operator()(A x) const {
    return x > lambd ? x - lambd : (x < -lambd ? x + lambd : x * A(0));
  }
  TANDEM_HOST_DEVICE A grad(A g, A x) const { return (x >= -lambd && x <= lambd) ? A(0) : g; }
};

// Calls fn(functor) with the functor of `spec` for compute type A. Host code: the kernels pass the functor
// (plain data) to their loops or launches.
template <typename A, typename Fn>
void visit_activation(const ActivationSpec& s, Fn&& fn) {
  const A a = static_cast<A>(s.a), b = static_cast<A>(s.b), c = static_cast<A>(s.c);
  switch (s.op) {
    case Activation::Elu:
      return fn(EluAct<A>{a, b, c});
    case Activation::LeakyRelu:
      return fn(LeakyReluAct<A>{a});
    case Activation::Softplus:
      return fn(SoftplusAct<A>{a, b});
    case Activation::Hardtanh:
      return fn(HardtanhAct<A>{a, b});
    case Activation::Hardsigmoid:
      return fn(HardsigmoidAct<A>{});
    case Activation::Hardswish:
      return fn(HardswishAct<A>{});
    case Activation::Mish:
      return fn(MishAct<A>{});
    case Activation::LogSigmoid:
      return fn(LogSigmoidAct<A>{});
    case Activation::Threshold:
      return fn(ThresholdAct<A>{a, b});
    case Activation::Hardshrink:
      return fn(HardshrinkAct<A>{a});
    case Activation::Softshrink:
      return fn(SoftshrinkAct<A>{a});
  }
}

// The gradient as a binary functor (grad_out, x) -> grad_in, for the binary loops and launches.
template <typename F>
struct ActivationGrad {
  F f;
  template <typename A>
  TANDEM_HOST_DEVICE A operator()(A g, A x) const {
    return f.grad(g, x);
  }
};

}  // namespace tandem
