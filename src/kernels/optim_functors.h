// The per-element math of the fused optimizer updates, written once for the CPU and CUDA loops. Values are
// in Acc (float for 16-bit floats); the arithmetic order is that of PyTorch's single-tensor
// implementations. Options are template parameters, so a loop's per-element branches vanish at compile
// time.
#pragma once
#include <cmath>
#include <type_traits>

#include "core/macros.h"
#include "kernels/nn_kernels.h"

namespace tandem {

// Calls fn(std::bool_constant<b>{}) so that an option tested per element becomes a compile-time branch (the
// CPU loop vectorises, the CUDA kernel has no per-element branch). Host code only.
template <typename Fn>
void with_flag(bool b, Fn&& fn) {
  if (b)
    fn(std::true_type{});
  else
    fn(std::false_type{});
}

template <typename Acc>
struct SgdUpdate {
  Acc lr, momentum, weight_decay, dampening_keep, sign;

  static SgdUpdate from_config(const SgdConfig& cfg) {
    return {static_cast<Acc>(cfg.lr), static_cast<Acc>(cfg.momentum), static_cast<Acc>(cfg.weight_decay),
            static_cast<Acc>(1.0 - cfg.dampening), cfg.maximize ? Acc(-1) : Acc(1)};
  }

  // The new parameter from parameter p and gradient g. With momentum, buf holds the momentum buffer (not
  // read on the first step, when it starts as the gradient) and receives its new value.
  template <bool kDecay, bool kMomentum, bool kNesterov, bool kFirst>
  TANDEM_HOST_DEVICE TANDEM_INLINE Acc step(Acc p, Acc g, Acc& buf) const {
    Acc d = sign * g;
    if constexpr (kDecay) d += weight_decay * p;
    if constexpr (kMomentum) {
      if constexpr (kFirst)
        buf = d;
      else
        buf = momentum * buf + dampening_keep * d;
      if constexpr (kNesterov)
        d += momentum * buf;
      else
        d = buf;
    }
    return p - lr * d;
  }
};

template <typename Acc>
struct AdamUpdate {
  Acc step_size, bias_correction2_sqrt, beta2, one_minus_beta1, one_minus_beta2, eps, weight_decay, decay,
      sign;

  static AdamUpdate from_config(const AdamConfig& cfg) {
    const double bc1 = 1.0 - std::pow(cfg.beta1, static_cast<double>(cfg.step));
    const double bc2 = 1.0 - std::pow(cfg.beta2, static_cast<double>(cfg.step));
    const Acc b1 = static_cast<Acc>(cfg.beta1), b2 = static_cast<Acc>(cfg.beta2);
    return {static_cast<Acc>(cfg.lr / bc1),
            static_cast<Acc>(std::sqrt(bc2)),
            b2,
            Acc(1) - b1,
            Acc(1) - b2,
            static_cast<Acc>(cfg.eps),
            static_cast<Acc>(cfg.weight_decay),
            static_cast<Acc>(1.0 - cfg.lr * cfg.weight_decay),
            cfg.maximize ? Acc(-1) : Acc(1)};
  }

  // The new parameter from parameter p and gradient g; m, v (and vmax with amsgrad) are the moment
  // estimates, read and replaced. kL2 adds weight decay to the gradient (Adam), kDecoupled shrinks the
  // parameter first (AdamW).
  template <bool kL2, bool kDecoupled, bool kAmsgrad>
  TANDEM_HOST_DEVICE TANDEM_INLINE Acc step(Acc p, Acc g, Acc& m, Acc& v, Acc& vmax) const {
    g = sign * g;
    if constexpr (kDecoupled) p *= decay;
    if constexpr (kL2) g += weight_decay * p;
    m = m + (g - m) * one_minus_beta1;
    v = v * beta2 + one_minus_beta2 * g * g;
    Acc second = v;
    if constexpr (kAmsgrad) {
      second = vmax < v ? v : vmax;  // std::max's choice, NaN included
      vmax = second;
    }
    const Acc denom = std::sqrt(second) / bias_correction2_sqrt + eps;
    return p - step_size * m / denom;
  }
};

}  // namespace tandem
