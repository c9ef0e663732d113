// The per-element math of the fused optimizer updates, written once for the CPU and CUDA loops. Values are
// in Acc (float for 16-bit floats); the arithmetic order is that of PyTorch's single-tensor
// implementations. Options are template parameters, so a loop's per-element branches vanish at compile
// time.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "core/macros.h"
#include "kernels/fused_optim.h"
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

// a * b + c rounded once. PyTorch's CPU kernels are built with FMA contraction (and its vectorised
// add(alpha=) and lerp call fmadd), so on an FMA machine each self + x * y of its ops is one fused
// multiply-add; nvcc contracts too. Spelled out, the result is the same on every ISA build and device. (The
// baseline ISA build has no FMA instruction: there glibc's exact fma is a call per element, slower and not
// vectorised.)
template <typename Acc>
TANDEM_HOST_DEVICE TANDEM_INLINE Acc optim_fma(Acc a, Acc b, Acc c) {
  return std::fma(a, b, c);
}

// The weight of lerp_(grad, 1 - beta) as PyTorch passes it: 1 - beta in double, then the tensor's type.
// torch.lerp computes self + w * (end - self) for |w| < 0.5 (small), else end - (end - self) * (1 - w), each one
// fused multiply-add (its vectorised form fma(w - 1, end - self, end) gives the same bits, w - 1 being exact).
// Here both are fma(coef, end - self, small ? self : end), coef = w or -(1 - w) (negation is exact), and the
// per-element choice of self or end is a bit mask on the host: written as a branch or a select, GCC kept a
// branch in the loop and ran centered RMSprop scalar (0.7x PyTorch).
template <typename Acc>
struct OptimLerpWeight {
  using Bits = std::conditional_t<sizeof(Acc) == 8, uint64_t, uint32_t>;
  Acc coef;
  Bits self_mask;  // all ones when small (the base is self), else zero (the base is end)
  static OptimLerpWeight make(double beta) {
    const Acc w = static_cast<Acc>(1.0 - beta);
    const bool small = (w < Acc(0) ? -w : w) < Acc(0.5);
    return {small ? w : -(Acc(1) - w), small ? ~Bits{0} : Bits{0}};
  }
};

// torch.lerp(self, end, weight) for the weights above.
template <typename Acc>
TANDEM_HOST_DEVICE TANDEM_INLINE Acc optim_lerp(Acc self, Acc end, const OptimLerpWeight<Acc>& lerp) {
#if defined(__CUDA_ARCH__)
  const Acc base = lerp.self_mask ? self : end;
#else
  using Bits = typename OptimLerpWeight<Acc>::Bits;
  const Acc base = std::bit_cast<Acc>((std::bit_cast<Bits>(self) & lerp.self_mask) |
                                      (std::bit_cast<Bits>(end) & ~lerp.self_mask));
#endif
  return optim_fma(lerp.coef, end - self, base);
}

// torch.maximum: NaN if either is NaN.
template <typename Acc>
TANDEM_HOST_DEVICE TANDEM_INLINE Acc optim_maximum(Acc a, Acc b) {
  return a != a ? a : (b != b ? b : (a > b ? a : b));
}

// The gradient a step works with: negated under maximize, plus weight_decay * p under L2 decay (PyTorch's
// grad.add(param, alpha=weight_decay), one FMA).
template <bool kDecay, typename Acc>
TANDEM_HOST_DEVICE TANDEM_INLINE Acc optim_grad(Acc sign, Acc weight_decay, Acc p, Acc g) {
  g = sign * g;
  if constexpr (kDecay) g = optim_fma(weight_decay, p, g);
  return g;
}
// flags() of the optimizers whose only compile-time option is L2 decay (Adagrad, Adadelta, Adamax).
inline void only_l2_decay_flag(const OptimStepConfig& c, bool f[3]) {
  f[0] = c.weight_decay != 0, f[1] = f[2] = false;
}

template <typename Acc>
struct SgdUpdate {
  Acc neg_lr, momentum, weight_decay, dampening_keep, sign;

  static SgdUpdate from_config(const SgdConfig& cfg) {
    return {static_cast<Acc>(-cfg.lr), static_cast<Acc>(cfg.momentum), static_cast<Acc>(cfg.weight_decay),
            static_cast<Acc>(1.0 - cfg.dampening), cfg.maximize ? Acc(-1) : Acc(1)};
  }

  // The new parameter from parameter p and gradient g. With momentum, buf holds the momentum buffer (not
  // read on the first step, when it starts as the gradient) and receives its new value. PyTorch's
  // buf.mul_(momentum).add_(grad, alpha=1 - dampening), grad.add(buf, alpha=momentum) (Nesterov) and
  // param.add_(grad, alpha=-lr), each add(alpha=) one fused multiply-add.
  template <bool kDecay, bool kMomentum, bool kNesterov, bool kFirst>
  TANDEM_HOST_DEVICE TANDEM_INLINE Acc step(Acc p, Acc g, Acc& buf) const {
    Acc d = optim_grad<kDecay>(sign, weight_decay, p, g);
    if constexpr (kMomentum) {
      if constexpr (kFirst)
        buf = d;
      else
        buf = optim_fma(dampening_keep, d, buf * momentum);
      if constexpr (kNesterov)
        d = optim_fma(momentum, buf, d);
      else
        d = buf;
    }
    return optim_fma(neg_lr, d, p);
  }
};

template <typename Acc>
struct AdamUpdate {
  Acc step_size, bias_correction2_sqrt, beta2, one_minus_beta2, eps, weight_decay, decay, sign;
  OptimLerpWeight<Acc> lerp;

  static AdamUpdate from_config(const AdamConfig& cfg) {
    const double bc1 = 1.0 - std::pow(cfg.beta1, static_cast<double>(cfg.step));
    const double bc2 = 1.0 - std::pow(cfg.beta2, static_cast<double>(cfg.step));
    return {static_cast<Acc>(cfg.lr / bc1),
            static_cast<Acc>(std::sqrt(bc2)),
            static_cast<Acc>(cfg.beta2),
            static_cast<Acc>(1.0 - cfg.beta2),
            static_cast<Acc>(cfg.eps),
            static_cast<Acc>(cfg.weight_decay),
            static_cast<Acc>(1.0 - cfg.lr * cfg.weight_decay),
            cfg.maximize ? Acc(-1) : Acc(1),
            OptimLerpWeight<Acc>::make(cfg.beta1)};
  }

  // The new parameter from parameter p and gradient g; m, v (and vmax with amsgrad) are the moment
  // estimates, read and replaced. kL2 adds weight decay to the gradient (Adam), kDecoupled shrinks the
  // parameter first (AdamW). PyTorch's single-tensor ops: exp_avg.lerp_(grad, 1 - beta1),
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2) (1 - beta in double, then Acc),
  // (sqrt(v) / bias_correction2_sqrt) + eps, param.addcdiv_(exp_avg, denom, value=-step_size).
  template <bool kL2, bool kDecoupled, bool kAmsgrad>
  TANDEM_HOST_DEVICE TANDEM_INLINE Acc step(Acc p, Acc g, Acc& m, Acc& v, Acc& vmax) const {
    if constexpr (kDecoupled) p *= decay;
    g = optim_grad<kL2>(sign, weight_decay, p, g);
    m = optim_lerp(m, g, lerp);
    v = optim_fma(one_minus_beta2 * g, g, v * beta2);
    Acc second = v;
    if constexpr (kAmsgrad) {
      second = vmax < v ? v : vmax;  // std::max's choice, NaN included
      vmax = second;
    }
    const Acc denom = std::sqrt(second) / bias_correction2_sqrt + eps;
    return p - step_size * m / denom;
  }
};

// ---- RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam: the functors of the one fused-update slot
// (kernels/fused_optim.h). Each has from_config (host: the per-step scalars in double, then cast to Acc as
// PyTorch casts a Python float scalar to the tensor's compute type), kFlags compile-time options (flags()
// says which are on), states<flags>() (a mask of the state slots s0..s2 the loop loads and stores) and
// step<flags>(p, g, s0, s1, s2), which returns the new parameter. The arithmetic follows PyTorch's
// single-tensor code op by op, as its CPU kernels evaluate them (checked bit for bit): add(alpha=a) is
// fma(a, other, self), addcmul(value=v) fma(v * t1, t2, self), lerp optim_lerp, addcdiv(value=v)
// self + v * t1 / t2 (no fused multiply-add: the division comes last), scalar / tensor
// reciprocal(tensor) * scalar.

template <typename Acc>
struct RmspropUpdate {
  Acc sign, weight_decay, alpha, one_minus_alpha, eps, momentum, neg_lr;
  OptimLerpWeight<Acc> lerp;
  static constexpr int kFlags = 3;  // L2 decay, centered, momentum

  static RmspropUpdate from_config(const OptimStepConfig& c) {
    return {c.maximize ? Acc(-1) : Acc(1), static_cast<Acc>(c.weight_decay),
            static_cast<Acc>(c.alpha),     static_cast<Acc>(1.0 - c.alpha),
            static_cast<Acc>(c.eps),       static_cast<Acc>(c.momentum),
            static_cast<Acc>(-c.lr),       OptimLerpWeight<Acc>::make(c.alpha)};
  }
  static void flags(const OptimStepConfig& c, bool f[3]) {
    f[0] = c.weight_decay != 0, f[1] = c.centered, f[2] = c.momentum > 0;
  }
  template <bool kDecay, bool kCentered, bool kMomentum>
  static constexpr unsigned states() {
    return 1u | (kCentered ? 2u : 0u) | (kMomentum ? 4u : 0u);
  }
  // s0 square_avg, s1 grad_avg, s2 momentum_buffer.
  template <bool kDecay, bool kCentered, bool kMomentum>
  TANDEM_HOST_DEVICE TANDEM_INLINE Acc step(Acc p, Acc g, Acc& sq, Acc& ga, Acc& buf) const {
    g = optim_grad<kDecay>(sign, weight_decay, p, g);
    sq = sq * alpha;
    sq = optim_fma(one_minus_alpha * g, g, sq);
    Acc avg;
    if constexpr (kCentered) {
      ga = optim_lerp(ga, g, lerp);
      avg = std::sqrt(optim_fma(Acc(-1) * ga, ga, sq));
    } else {
      avg = std::sqrt(sq);
    }
    avg = avg + eps;
    if constexpr (kMomentum) {
      buf = buf * momentum;
      buf = buf + Acc(1) * g / avg;
      return optim_fma(neg_lr, buf, p);
    } else {
      return p + neg_lr * g / avg;
    }
  }
};

template <typename Acc>
struct AdagradUpdate {
  Acc sign, weight_decay, eps, neg_clr;
  static constexpr int kFlags = 1;  // L2 decay

  static AdagradUpdate from_config(const OptimStepConfig& c) {
    const double clr = c.lr / (1 + (c.step - 1) * c.lr_decay);
    return {c.maximize ? Acc(-1) : Acc(1), static_cast<Acc>(c.weight_decay), static_cast<Acc>(c.eps),
            static_cast<Acc>(-clr)};
  }
  static void flags(const OptimStepConfig& c, bool f[3]) { only_l2_decay_flag(c, f); }
  template <bool, bool, bool>
  static constexpr unsigned states() {
    return 1u;
  }
  // s0 sum.
  template <bool kDecay, bool, bool>
  TANDEM_HOST_DEVICE TANDEM_INLINE Acc step(Acc p, Acc g, Acc& sum, Acc&, Acc&) const {
    g = optim_grad<kDecay>(sign, weight_decay, p, g);
    sum = optim_fma(Acc(1) * g, g, sum);
    const Acc std_ = std::sqrt(sum) + eps;
    return p + neg_clr * g / std_;
  }
};

template <typename Acc>
struct AdadeltaUpdate {
  Acc sign, weight_decay, rho, one_minus_rho, eps, neg_lr;
  static constexpr int kFlags = 1;  // L2 decay

  static AdadeltaUpdate from_config(const OptimStepConfig& c) {
    return {c.maximize ? Acc(-1) : Acc(1),   static_cast<Acc>(c.weight_decay), static_cast<Acc>(c.alpha),
            static_cast<Acc>(1.0 - c.alpha), static_cast<Acc>(c.eps),          static_cast<Acc>(-c.lr)};
  }
  static void flags(const OptimStepConfig& c, bool f[3]) { only_l2_decay_flag(c, f); }
  template <bool, bool, bool>
  static constexpr unsigned states() {
    return 3u;
  }
  // s0 square_avg, s1 acc_delta.
  template <bool kDecay, bool, bool>
  TANDEM_HOST_DEVICE TANDEM_INLINE Acc step(Acc p, Acc g, Acc& sq, Acc& acc, Acc&) const {
    g = optim_grad<kDecay>(sign, weight_decay, p, g);
    sq = sq * rho;
    sq = optim_fma(one_minus_rho * g, g, sq);
    const Acc std_ = std::sqrt(sq + eps);
    Acc delta = std::sqrt(acc + eps);
    delta = delta / std_;
    delta = delta * g;
    acc = acc * rho;
    acc = optim_fma(one_minus_rho * delta, delta, acc);
    return optim_fma(neg_lr, delta, p);
  }
};

template <typename Acc>
struct AdamaxUpdate {
  Acc sign, weight_decay, beta2, eps, neg_clr;
  OptimLerpWeight<Acc> lerp;
  static constexpr int kFlags = 1;  // L2 decay

  static AdamaxUpdate from_config(const OptimStepConfig& c) {
    const double clr = c.lr / (1 - std::pow(c.beta1, c.step));
    return {c.maximize ? Acc(-1) : Acc(1), static_cast<Acc>(c.weight_decay),
            static_cast<Acc>(c.beta2),     static_cast<Acc>(c.eps),
            static_cast<Acc>(-clr),        OptimLerpWeight<Acc>::make(c.beta1)};
  }
  static void flags(const OptimStepConfig& c, bool f[3]) { only_l2_decay_flag(c, f); }
  template <bool, bool, bool>
  static constexpr unsigned states() {
    return 3u;
  }
  // s0 exp_avg, s1 exp_inf.
  template <bool kDecay, bool, bool>
  TANDEM_HOST_DEVICE TANDEM_INLINE Acc step(Acc p, Acc g, Acc& m, Acc& inf, Acc&) const {
    g = optim_grad<kDecay>(sign, weight_decay, p, g);
    m = optim_lerp(m, g, lerp);
    inf = optim_maximum(inf * beta2, (g < Acc(0) ? -g : g) + eps);
    return p + neg_clr * m / inf;
  }
};

template <typename Acc>
struct NadamUpdate {
  Acc sign, weight_decay, decay, beta2, one_minus_beta2, bias_correction2, eps, grad_coef, avg_coef;
  OptimLerpWeight<Acc> lerp;
  static constexpr int kFlags = 2;  // L2 decay, decoupled decay

  static NadamUpdate from_config(const OptimStepConfig& c) {
    const double mu = c.beta1 * (1.0 - 0.5 * std::pow(0.96, c.step * c.momentum_decay));
    const double mu_next = c.beta1 * (1.0 - 0.5 * std::pow(0.96, (c.step + 1) * c.momentum_decay));
    const double mu_product_next = c.mu_product * mu_next;
    return {c.maximize ? Acc(-1) : Acc(1),
            static_cast<Acc>(c.weight_decay),
            static_cast<Acc>(1 - c.lr * c.weight_decay),
            static_cast<Acc>(c.beta2),
            static_cast<Acc>(1 - c.beta2),
            static_cast<Acc>(1 - std::pow(c.beta2, c.step)),
            static_cast<Acc>(c.eps),
            static_cast<Acc>(-c.lr * (1.0 - mu) / (1.0 - c.mu_product)),
            static_cast<Acc>((-c.lr * mu_next) / (1.0 - mu_product_next)),
            OptimLerpWeight<Acc>::make(c.beta1)};
  }
  static void flags(const OptimStepConfig& c, bool f[3]) {
    f[0] = c.weight_decay != 0 && !c.decoupled_weight_decay;
    f[1] = c.weight_decay != 0 && c.decoupled_weight_decay;
    f[2] = false;
  }
  template <bool, bool, bool>
  static constexpr unsigned states() {
    return 3u;
  }
  // s0 exp_avg, s1 exp_avg_sq.
  template <bool kL2, bool kDecoupled, bool>
  TANDEM_HOST_DEVICE TANDEM_INLINE Acc step(Acc p, Acc g, Acc& m, Acc& v, Acc&) const {
    if constexpr (kDecoupled) p = p * decay;
    g = optim_grad<kL2>(sign, weight_decay, p, g);
    m = optim_lerp(m, g, lerp);
    v = v * beta2;
    v = optim_fma(one_minus_beta2 * g, g, v);
    const Acc denom = std::sqrt(v / bias_correction2) + eps;
    p = p + grad_coef * g / denom;
    return p + avg_coef * m / denom;
  }
};

template <typename Acc>
struct RadamUpdate {
  Acc sign, weight_decay, decay, beta2, one_minus_beta2, bias_correction1, lr, bias_correction2_sqrt, eps,
      rect;
  OptimLerpWeight<Acc> lerp;
  bool rectified;
  static constexpr int kFlags = 3;  // L2 decay, decoupled decay, rectified (rho_t > 5)

  static RadamUpdate from_config(const OptimStepConfig& c) {
    const double bc1 = 1 - std::pow(c.beta1, c.step), bc2 = 1 - std::pow(c.beta2, c.step);
    const double rho_inf = 2 / (1 - c.beta2) - 1;
    const double rho_t = rho_inf - 2 * c.step * std::pow(c.beta2, c.step) / bc2;
    const bool rectified = rho_t > 5.0;
    const double rect =
        rectified
            ? std::pow((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t), 0.5)
            : 1.0;
    return {c.maximize ? Acc(-1) : Acc(1),
            static_cast<Acc>(c.weight_decay),
            static_cast<Acc>(1 - c.lr * c.weight_decay),
            static_cast<Acc>(c.beta2),
            static_cast<Acc>(1 - c.beta2),
            static_cast<Acc>(bc1),
            static_cast<Acc>(c.lr),
            static_cast<Acc>(std::pow(bc2, 0.5)),
            static_cast<Acc>(c.eps),
            static_cast<Acc>(rect),
            OptimLerpWeight<Acc>::make(c.beta1),
            rectified};
  }
  static void flags(const OptimStepConfig& c, bool f[3]) {
    f[0] = c.weight_decay != 0 && !c.decoupled_weight_decay;
    f[1] = c.weight_decay != 0 && c.decoupled_weight_decay;
    f[2] = from_config(c).rectified;
  }
  template <bool, bool, bool>
  static constexpr unsigned states() {
    return 3u;
  }
  // s0 exp_avg, s1 exp_avg_sq.
  template <bool kL2, bool kDecoupled, bool kRectified>
  TANDEM_HOST_DEVICE TANDEM_INLINE Acc step(Acc p, Acc g, Acc& m, Acc& v, Acc&) const {
    if constexpr (kDecoupled) p = p * decay;
    g = optim_grad<kL2>(sign, weight_decay, p, g);
    m = optim_lerp(m, g, lerp);
    v = v * beta2;
    v = optim_fma(one_minus_beta2 * g, g, v);
    const Acc corrected = m / bias_correction1;
    if constexpr (kRectified) {
      // (bias_correction2 ** 0.5) / (sqrt(v) + eps), which PyTorch evaluates as reciprocal(...) * scalar.
      const Acc adaptive_lr = (Acc(1) / (std::sqrt(v) + eps)) * bias_correction2_sqrt;
      return optim_fma(Acc(-1), corrected * lr * adaptive_lr * rect, p);
    } else {
      return optim_fma(Acc(-1), corrected * lr, p);
    }
  }
};

// Calls fn(update, flag0, flag1, flag2) with cfg's optimizer's functor and its options as
// std::bool_constant values (the unused trailing flags are always false: no extra instantiations). Host only.
template <typename Acc, typename Fn>
void visit_optim_update(const OptimStepConfig& cfg, Fn&& fn) {
  auto run = [&](auto update) {
    using U = decltype(update);
    bool f[3];
    U::flags(cfg, f);
    with_flag(f[0], [&](auto a) {
      with_flag(U::kFlags > 1 && f[1], [&](auto b) {
        constexpr bool kB = decltype(b)::value;
        with_flag(U::kFlags > 2 && f[2], [&](auto c) {
          constexpr bool kC = decltype(c)::value;
          if constexpr ((U::kFlags > 1 || !kB) && (U::kFlags > 2 || !kC)) fn(update, a, b, c);
        });
      });
    });
  };
  switch (cfg.kind) {
    case OptimKind::Rmsprop:
      return run(RmspropUpdate<Acc>::from_config(cfg));
    case OptimKind::Adagrad:
      return run(AdagradUpdate<Acc>::from_config(cfg));
    case OptimKind::Adadelta:
      return run(AdadeltaUpdate<Acc>::from_config(cfg));
    case OptimKind::Adamax:
      return run(AdamaxUpdate<Acc>::from_config(cfg));
    case OptimKind::Nadam:
      return run(NadamUpdate<Acc>::from_config(cfg));
    case OptimKind::Radam:
      return run(RadamUpdate<Acc>::from_config(cfg));
  }
}

}  // namespace tandem
