// CPU kernels of the fused optimizer updates: one pass over a parameter tensor per step, with the same
// arithmetic order as PyTorch's single-tensor implementations.
#include <cmath>

#include "core/parallel.h"
#include "kernels/cpu/optim_kernels.h"
#include "kernels/kernel_table.h"

namespace tandem::cpu {

namespace {

// Updates are memory-bound: split only tensors large enough (~1 MB of float32) for threads to pay off.
constexpr int64_t kGrain = 1 << 18;

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
      parallel_for(0, param.numel(), kGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          const Acc pi = static_cast<Acc>(p[i]);
          Acc d = static_cast<Acc>(g[i]);
          if (cfg.maximize) d = -d;
          if (cfg.weight_decay != 0) d += wd * pi;
          if (buf) {
            const Acc bi = cfg.first_step ? d : mom * static_cast<Acc>(buf[i]) + damp * d;
            buf[i] = static_cast<T>(bi);
            d = cfg.nesterov ? d + mom * bi : bi;
          }
          p[i] = static_cast<T>(pi - lr * d);
        }
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
      parallel_for(0, param.numel(), kGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          Acc pi = static_cast<Acc>(p[i]);
          Acc gi = static_cast<Acc>(g[i]);
          if (cfg.maximize) gi = -gi;
          if (cfg.weight_decay != 0) {
            if (cfg.decoupled_weight_decay)
              pi *= decay;
            else
              gi += wd * pi;
          }
          const Acc mi = static_cast<Acc>(m[i]) + (gi - static_cast<Acc>(m[i])) * (Acc(1) - b1);
          const Acc vi = static_cast<Acc>(v[i]) * b2 + (Acc(1) - b2) * gi * gi;
          m[i] = static_cast<T>(mi);
          v[i] = static_cast<T>(vi);
          Acc second = vi;
          if (vmax) {
            second = std::max(static_cast<Acc>(vmax[i]), vi);
            vmax[i] = static_cast<T>(second);
          }
          const Acc denom = std::sqrt(second) / bc2_sqrt + eps;
          p[i] = static_cast<T>(pi - step_size * mi / denom);
        }
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
