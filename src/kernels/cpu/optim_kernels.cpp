// CPU kernels of the fused optimizer updates: one pass over a parameter tensor per step, with the same
// arithmetic order as PyTorch's single-tensor implementations.
#include <cmath>
#include <type_traits>

#include "core/parallel.h"
#include "kernels/cpu/optim_kernels.h"
#include "kernels/kernel_table.h"

namespace tandem::cpu {

namespace {

// Updates are memory-bound: split only tensors large enough (~1 MB of float32) for threads to pay off.
constexpr int64_t kGrain = 1 << 18;

// Calls fn(std::bool_constant<b>{}) so that a flag tested per element becomes a compile-time branch and the
// element loop vectorises.
template <typename Fn>
void with_flag(bool b, Fn&& fn) {
  if (b)
    fn(std::true_type{});
  else
    fn(std::false_type{});
}

void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, const SgdConfig& cfg) {
  dispatch_dtype(param.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      using Acc = opmath_t<T>;
      T* p = param.data<T>();
      const T* g = grad.data<T>();
      T* buf = momentum_buffer.defined() ? momentum_buffer.data<T>() : nullptr;
      const Acc lr = static_cast<Acc>(cfg.lr), mom = static_cast<Acc>(cfg.momentum);
      const Acc wd = static_cast<Acc>(cfg.weight_decay), damp = static_cast<Acc>(1.0 - cfg.dampening);
      const Acc sign = cfg.maximize ? Acc(-1) : Acc(1);
      with_flag(cfg.weight_decay != 0, [&](auto decay) {
        with_flag(buf != nullptr, [&](auto momentum) {
          with_flag(cfg.nesterov, [&](auto nesterov) {
            with_flag(cfg.first_step, [&](auto first) {
              parallel_for(0, param.numel(), kGrain, [=](int64_t b, int64_t e) {
                // Local restrict pointers: the loop vectorises only when the compiler knows they don't alias.
                T* __restrict pp = p + b;
                const T* __restrict gp = g + b;
                T* __restrict bp = momentum ? buf + b : nullptr;
                const int64_t n = e - b;
                for (int64_t i = 0; i < n; ++i) {
                  const Acc pi = static_cast<Acc>(pp[i]);
                  Acc d = sign * static_cast<Acc>(gp[i]);
                  if constexpr (decay) d += wd * pi;
                  if constexpr (momentum) {
                    Acc bi = d;
                    if constexpr (!first) bi = mom * static_cast<Acc>(bp[i]) + damp * d;
                    bp[i] = static_cast<T>(bi);
                    if constexpr (nesterov)
                      d += mom * bi;
                    else
                      d = bi;
                  }
                  pp[i] = static_cast<T>(pi - lr * d);
                }
              });
            });
          });
        });
      });
    }
  });
}

void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const Tensor& max_exp_avg_sq, const AdamConfig& cfg) {
  dispatch_dtype(param.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      using Acc = opmath_t<T>;
      T* p = param.data<T>();
      const T* g = grad.data<T>();
      T* m = exp_avg.data<T>();
      T* v = exp_avg_sq.data<T>();
      T* vmax = cfg.amsgrad ? max_exp_avg_sq.data<T>() : nullptr;
      const double bc1 = 1.0 - std::pow(cfg.beta1, static_cast<double>(cfg.step));
      const double bc2 = 1.0 - std::pow(cfg.beta2, static_cast<double>(cfg.step));
      const Acc step_size = static_cast<Acc>(cfg.lr / bc1), bc2_sqrt = static_cast<Acc>(std::sqrt(bc2));
      const Acc b1 = static_cast<Acc>(cfg.beta1), b2 = static_cast<Acc>(cfg.beta2);
      const Acc eps = static_cast<Acc>(cfg.eps), wd = static_cast<Acc>(cfg.weight_decay);
      const Acc decay = static_cast<Acc>(1.0 - cfg.lr * cfg.weight_decay);
      const Acc sign = cfg.maximize ? Acc(-1) : Acc(1);
      const bool l2 = cfg.weight_decay != 0 && !cfg.decoupled_weight_decay;
      const bool decoupled = cfg.weight_decay != 0 && cfg.decoupled_weight_decay;
      with_flag(l2, [&](auto l2_decay) {
        with_flag(decoupled, [&](auto decoupled_decay) {
          with_flag(vmax != nullptr, [&](auto amsgrad) {
            parallel_for(0, param.numel(), kGrain, [=](int64_t b, int64_t e) {
              // Locals, so the compiler keeps them in registers across the stores below.
              const Acc s_ = sign, wd_ = wd, decay_ = decay, b1_ = b1, b2_ = b2, eps_ = eps;
              const Acc step_ = step_size, bc2_ = bc2_sqrt;
              T* __restrict pp = p + b;
              const T* __restrict gp = g + b;
              T* __restrict mp = m + b;
              T* __restrict vp = v + b;
              T* __restrict vmaxp = amsgrad ? vmax + b : nullptr;
              for (int64_t i = 0; i < e - b; ++i) {
                Acc pi = static_cast<Acc>(pp[i]);
                Acc gi = s_ * static_cast<Acc>(gp[i]);
                if constexpr (decoupled_decay) pi *= decay_;
                if constexpr (l2_decay) gi += wd_ * pi;
                const Acc mi = static_cast<Acc>(mp[i]) + (gi - static_cast<Acc>(mp[i])) * (Acc(1) - b1_);
                const Acc vi = static_cast<Acc>(vp[i]) * b2_ + (Acc(1) - b2_) * gi * gi;
                mp[i] = static_cast<T>(mi);
                vp[i] = static_cast<T>(vi);
                Acc second = vi;
                if constexpr (amsgrad) {
                  second = std::max(static_cast<Acc>(vmaxp[i]), vi);
                  vmaxp[i] = static_cast<T>(second);
                }
                const Acc denom = std::sqrt(second) / bc2_ + eps_;
                pp[i] = static_cast<T>(pi - step_ * mi / denom);
              }
            });
          });
        });
      });
    }
  });
}

}  // namespace

void register_optim_kernels(KernelTable& table) {
  table.nn.sgd_step = &sgd_step;
  table.nn.adam_step = &adam_step;
}

}  // namespace tandem::cpu
