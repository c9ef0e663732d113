// CPU kernels of the fused optimizer updates: one pass over a parameter tensor per step, with the same
// arithmetic order as PyTorch's single-tensor implementations.
#include <type_traits>

#include "core/parallel.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/optim_kernels.h"
#include "kernels/fused_optim.h"
#include "kernels/kernel_table.h"
#include "kernels/optim_functors.h"

TANDEM_CPU_KERNELS_BEGIN

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
      const SgdUpdate<Acc> update = SgdUpdate<Acc>::from_config(cfg);
      with_flag(cfg.weight_decay != 0, [&](auto decay) {
        with_flag(buf != nullptr, [&](auto momentum) {
          with_flag(cfg.nesterov, [&](auto nesterov) {
            with_flag(cfg.first_step, [&](auto first) {
              parallel_for(0, param.numel(), kGrain, [=](int64_t b, int64_t e) {
                // Local restrict pointers: the loop vectorises only when the compiler knows they don't alias.
                T* __restrict pp = p + b;
                const T* __restrict gp = g + b;
                T* __restrict bp = momentum ? buf + b : nullptr;
                const SgdUpdate<Acc> u = update;
                const int64_t n = e - b;
                for (int64_t i = 0; i < n; ++i) {
                  Acc bi = 0;
                  if constexpr (momentum && !first) bi = static_cast<Acc>(bp[i]);
                  pp[i] = static_cast<T>(u.template step<decltype(decay)::value, decltype(momentum)::value,
                                                         decltype(nesterov)::value, decltype(first)::value>(
                      static_cast<Acc>(pp[i]), static_cast<Acc>(gp[i]), bi));
                  if constexpr (momentum) bp[i] = static_cast<T>(bi);
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
      const AdamUpdate<Acc> update = AdamUpdate<Acc>::from_config(cfg);
      const bool l2 = cfg.weight_decay != 0 && !cfg.decoupled_weight_decay;
      const bool decoupled = cfg.weight_decay != 0 && cfg.decoupled_weight_decay;
      with_flag(l2, [&](auto l2_decay) {
        with_flag(decoupled, [&](auto decoupled_decay) {
          with_flag(vmax != nullptr, [&](auto amsgrad) {
            // Vectorises because the core is built with -fno-math-errno (std::sqrt's errno branch would
            // otherwise keep it scalar, ~50x slower).
            parallel_for(0, param.numel(), kGrain, [=](int64_t b, int64_t e) {
              // A local copy, so the compiler keeps the constants in registers across the stores below.
              const AdamUpdate<Acc> u = update;
              T* __restrict pp = p + b;
              const T* __restrict gp = g + b;
              T* __restrict mp = m + b;
              T* __restrict vp = v + b;
              T* __restrict vmaxp = amsgrad ? vmax + b : nullptr;
              const int64_t n = e - b;
              for (int64_t i = 0; i < n; ++i) {
                Acc mi = static_cast<Acc>(mp[i]), vi = static_cast<Acc>(vp[i]), vmaxi = 0;
                if constexpr (amsgrad) vmaxi = static_cast<Acc>(vmaxp[i]);
                pp[i] = static_cast<T>(
                    u.template step<decltype(l2_decay)::value, decltype(decoupled_decay)::value,
                                    decltype(amsgrad)::value>(static_cast<Acc>(pp[i]),
                                                              static_cast<Acc>(gp[i]), mi, vi, vmaxi));
                mp[i] = static_cast<T>(mi);
                vp[i] = static_cast<T>(vi);
                if constexpr (amsgrad) vmaxp[i] = static_cast<T>(vmaxi);
              }
            });
          });
        });
      });
    }
  });
}

// One strip of the loop below. The pointers are restrict-qualified parameters, which GCC honours (it ignores
// restrict on the local copies the lambda had): with five streams, the run-time alias checks it would
// otherwise need exceed its limit, and centered RMSprop with momentum ran scalar (0.95x PyTorch; 8x with this
// and optim_lerp's bit mask).
template <typename T, typename U, bool kA, bool kB, bool kC>
void optim_strip(T* __restrict pp, const T* __restrict gp, T* __restrict ap, T* __restrict bp,
                 T* __restrict cp, int64_t n, const U u) {
  using Acc = opmath_t<T>;
  constexpr unsigned kStates = U::template states<kA, kB, kC>();
  for (int64_t i = 0; i < n; ++i) {
    Acc a = 0, bv = 0, c = 0;
    if constexpr ((kStates & 1u) != 0) a = static_cast<Acc>(ap[i]);
    if constexpr ((kStates & 2u) != 0) bv = static_cast<Acc>(bp[i]);
    if constexpr ((kStates & 4u) != 0) c = static_cast<Acc>(cp[i]);
    pp[i] = static_cast<T>(
        u.template step<kA, kB, kC>(static_cast<Acc>(pp[i]), static_cast<Acc>(gp[i]), a, bv, c));
    if constexpr ((kStates & 1u) != 0) ap[i] = static_cast<T>(a);
    if constexpr ((kStates & 2u) != 0) bp[i] = static_cast<T>(bv);
    if constexpr ((kStates & 4u) != 0) cp[i] = static_cast<T>(c);
  }
}

// One loop for the six optimizers of kernels/fused_optim.h: U is the functor, kA..kC its options; only the
// state slots U::states() names are loaded and stored.
template <typename T, typename U, bool kA, bool kB, bool kC>
void optim_loop(T* p, const T* g, T* s0, T* s1, T* s2, int64_t numel, const U& update) {
  constexpr unsigned kStates = U::template states<kA, kB, kC>();
  parallel_for(0, numel, kGrain, [=](int64_t b, int64_t e) {
    optim_strip<T, U, kA, kB, kC>(p + b, g + b, (kStates & 1u) ? s0 + b : nullptr,
                                  (kStates & 2u) ? s1 + b : nullptr, (kStates & 4u) ? s2 + b : nullptr, e - b,
                                  update);
  });
}

void optim_step(const Tensor& param, const Tensor& grad, const Tensor& s0, const Tensor& s1, const Tensor& s2,
                const OptimStepConfig& cfg) {
  dispatch_dtype(param.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_floating_type_v<T>) {
      T* a = s0.defined() ? s0.data<T>() : nullptr;
      T* b = s1.defined() ? s1.data<T>() : nullptr;
      T* c = s2.defined() ? s2.data<T>() : nullptr;
      visit_optim_update<opmath_t<T>>(cfg, [&](const auto& update, auto fa, auto fb, auto fc) {
        optim_loop<T, std::decay_t<decltype(update)>, decltype(fa)::value, decltype(fb)::value,
                   decltype(fc)::value>(param.data<T>(), grad.data<T>(), a, b, c, param.numel(), update);
      });
    }
  });
}

}  // namespace

void register_optim_kernels(KernelTable& table) {
  table.nn.sgd_step = &sgd_step;
  table.nn.adam_step = &adam_step;
  optim_step_kernel(DeviceType::CPU) = &optim_step;
}

TANDEM_CPU_KERNELS_END
