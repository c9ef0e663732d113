// The fused optimizer updates on CUDA: one elementwise pass per parameter tensor, running the per-element
// math shared with the CPU loop (optim_functors.h). Options are template parameters, as on the CPU.
#include <type_traits>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "kernels/cuda/flat_launch.cuh"
#include "kernels/cuda/nn_parts.h"
#include "kernels/fused_optim.h"
#include "kernels/optim_functors.h"

namespace tandem::cuda {

namespace {

template <typename T, bool kDecay, bool kMomentum, bool kNesterov, bool kFirst>
__global__ void sgd_kernel(T* __restrict__ param, const T* __restrict__ grad, T* __restrict__ buf,
                           SgdUpdate<opmath_t<T>> update, int64_t n) {
  using Acc = opmath_t<T>;
  for (int64_t i = flat_begin(); i < n; i += flat_stride()) {
    Acc b = 0;
    if constexpr (kMomentum && !kFirst) b = static_cast<Acc>(buf[i]);
    param[i] = static_cast<T>(update.template step<kDecay, kMomentum, kNesterov, kFirst>(
        static_cast<Acc>(param[i]), static_cast<Acc>(grad[i]), b));
    if constexpr (kMomentum) buf[i] = static_cast<T>(b);
  }
}

template <typename T, bool kL2, bool kDecoupled, bool kAmsgrad>
__global__ void adam_kernel(T* __restrict__ param, const T* __restrict__ grad, T* __restrict__ exp_avg,
                            T* __restrict__ exp_avg_sq, T* __restrict__ max_exp_avg_sq,
                            AdamUpdate<opmath_t<T>> update, int64_t n) {
  using Acc = opmath_t<T>;
  for (int64_t i = flat_begin(); i < n; i += flat_stride()) {
    Acc m = static_cast<Acc>(exp_avg[i]), v = static_cast<Acc>(exp_avg_sq[i]), vmax = 0;
    if constexpr (kAmsgrad) vmax = static_cast<Acc>(max_exp_avg_sq[i]);
    param[i] = static_cast<T>(update.template step<kL2, kDecoupled, kAmsgrad>(
        static_cast<Acc>(param[i]), static_cast<Acc>(grad[i]), m, v, vmax));
    exp_avg[i] = static_cast<T>(m);
    exp_avg_sq[i] = static_cast<T>(v);
    if constexpr (kAmsgrad) max_exp_avg_sq[i] = static_cast<T>(vmax);
  }
}

void sgd_step(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, const SgdConfig& cfg) {
  const int64_t n = param.numel();
  if (n == 0) return;
  DeviceGuard guard(param.device());
  cudaStream_t stream = current_stream(param.device());
  const bool has_momentum = momentum_buffer.defined();
  dispatch_floating(param.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = opmath_t<T>;
    T* buf = has_momentum ? momentum_buffer.data<T>() : nullptr;
    const SgdUpdate<Acc> update = SgdUpdate<Acc>::from_config(cfg);
    // Nesterov and the first-step rule only exist with momentum: 10 kernels per dtype, not 16.
    // Each flag becomes a constexpr where it is a lambda parameter (nested lambdas see it without capture).
    with_flag(cfg.weight_decay != 0, [&](auto decay) {
      constexpr bool kDecay = decltype(decay)::value;
      with_flag(has_momentum, [&](auto momentum) {
        constexpr bool kMomentum = decltype(momentum)::value;
        with_flag(has_momentum && cfg.nesterov, [&](auto nesterov) {
          constexpr bool kNesterov = decltype(nesterov)::value;
          with_flag(has_momentum && cfg.first_step, [&](auto first) {
            constexpr bool kFirst = decltype(first)::value;
            if constexpr (kMomentum || (!kNesterov && !kFirst)) {
              sgd_kernel<T, kDecay, kMomentum, kNesterov, kFirst><<<flat_blocks(n), kFlatBlock, 0, stream>>>(
                  param.data<T>(), grad.data<T>(), buf, update, n);
              TANDEM_CUDA_CHECK_LAUNCH();
            }
          });
        });
      });
    });
  });
}

void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const Tensor& max_exp_avg_sq, const AdamConfig& cfg) {
  const int64_t n = param.numel();
  if (n == 0) return;
  DeviceGuard guard(param.device());
  cudaStream_t stream = current_stream(param.device());
  const bool l2 = cfg.weight_decay != 0 && !cfg.decoupled_weight_decay;
  const bool decoupled = cfg.weight_decay != 0 && cfg.decoupled_weight_decay;
  dispatch_floating(param.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = opmath_t<T>;
    T* vmax = cfg.amsgrad ? max_exp_avg_sq.data<T>() : nullptr;
    const AdamUpdate<Acc> update = AdamUpdate<Acc>::from_config(cfg);
    // L2 and decoupled decay exclude each other: 6 kernels per dtype, not 8.
    with_flag(l2, [&](auto l2_decay) {
      constexpr bool kL2 = decltype(l2_decay)::value;
      with_flag(decoupled, [&](auto decoupled_decay) {
        constexpr bool kDecoupled = decltype(decoupled_decay)::value;
        if constexpr (!(kL2 && kDecoupled)) {
          with_flag(cfg.amsgrad, [&](auto amsgrad) {
            constexpr bool kAmsgrad = decltype(amsgrad)::value;
            adam_kernel<T, kL2, kDecoupled, kAmsgrad><<<flat_blocks(n), kFlatBlock, 0, stream>>>(
                param.data<T>(), grad.data<T>(), exp_avg.data<T>(), exp_avg_sq.data<T>(), vmax, update, n);
            TANDEM_CUDA_CHECK_LAUNCH();
          });
        }
      });
    });
  });
}

// The one kernel of the six optimizers in kernels/fused_optim.h (U their functor, kA..kC its options).
template <typename T, typename U, bool kA, bool kB, bool kC>
__global__ void optim_kernel(T* __restrict__ param, const T* __restrict__ grad, T* __restrict__ s0,
                             T* __restrict__ s1, T* __restrict__ s2, U update, int64_t n) {
  using Acc = opmath_t<T>;
  constexpr unsigned kStates = U::template states<kA, kB, kC>();
  for (int64_t i = flat_begin(); i < n; i += flat_stride()) {
    Acc a = 0, b = 0, c = 0;
    if constexpr ((kStates & 1u) != 0) a = static_cast<Acc>(s0[i]);
    if constexpr ((kStates & 2u) != 0) b = static_cast<Acc>(s1[i]);
    if constexpr ((kStates & 4u) != 0) c = static_cast<Acc>(s2[i]);
    param[i] = static_cast<T>(
        update.template step<kA, kB, kC>(static_cast<Acc>(param[i]), static_cast<Acc>(grad[i]), a, b, c));
    if constexpr ((kStates & 1u) != 0) s0[i] = static_cast<T>(a);
    if constexpr ((kStates & 2u) != 0) s1[i] = static_cast<T>(b);
    if constexpr ((kStates & 4u) != 0) s2[i] = static_cast<T>(c);
  }
}

void optim_step(const Tensor& param, const Tensor& grad, const Tensor& s0, const Tensor& s1, const Tensor& s2,
                const OptimStepConfig& cfg) {
  const int64_t n = param.numel();
  if (n == 0) return;
  DeviceGuard guard(param.device());
  cudaStream_t stream = current_stream(param.device());
  dispatch_floating(param.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* a = s0.defined() ? s0.data<T>() : nullptr;
    T* b = s1.defined() ? s1.data<T>() : nullptr;
    T* c = s2.defined() ? s2.data<T>() : nullptr;
    visit_optim_update<opmath_t<T>>(cfg, [&](const auto& update, auto fa, auto fb, auto fc) {
      optim_kernel<T, std::decay_t<decltype(update)>, decltype(fa)::value, decltype(fb)::value,
                   decltype(fc)::value>
          <<<flat_blocks(n), kFlatBlock, 0, stream>>>(param.data<T>(), grad.data<T>(), a, b, c, update, n);
      TANDEM_CUDA_CHECK_LAUNCH();
    });
  });
}

}  // namespace

void register_optim_kernels(NnKernels& k) {
  k.sgd_step = &sgd_step;
  k.adam_step = &adam_step;
  optim_step_kernel(DeviceType::CUDA) = &optim_step;
}

}  // namespace tandem::cuda
