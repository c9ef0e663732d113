// Kernel slots of the random family (filled per device type at backend registration): random draws and the
// range factories. Every output is contiguous and already allocated; element i of a draw is computed from
// (state.seed, state.offset, i) by the distributions in kernels/random_functors.h.
#pragma once
#include "core/generator.h"
#include "core/philox.h"
#include "core/scalar.h"
#include "core/tensor.h"

namespace tandem {

enum class MultinomialStatus : int8_t { kOk, kBadProbability, kZeroSum };

// U[from, to) into a floating `out`.
using UniformKernel = void (*)(const Tensor& out, PhiloxState state, double from, double to);
// N(mean, std^2) into a floating `out`.
using NormalKernel = void (*)(const Tensor& out, PhiloxState state, double mean, double std);
// Integers in [low, low + range) into `out` of any dtype.
using RandintKernel = void (*)(const Tensor& out, PhiloxState state, int64_t low, uint64_t range);
// 1 with probability p, else 0, into `out` of any dtype.
using BernoulliScalarKernel = void (*)(const Tensor& out, PhiloxState state, double p);
// The same with a per-element probability `p` (float64, out's shape). Returns false when some p lies
// outside [0, 1] so the front end can raise.
using BernoulliTensorKernel = bool (*)(const Tensor& out, const Tensor& p, PhiloxState state);
// A random permutation of 0..numel-1 into `out` (sorting indices by 64-bit random keys).
using RandpermKernel = void (*)(const Tensor& out, PhiloxState state);
// out.size(-1) category indices per row of `probs` (float64, rows x categories) into int64 `out`
// (rows x samples). Reports rows with a negative/non-finite weight or a zero sum instead of drawing.
using MultinomialKernel = MultinomialStatus (*)(const Tensor& out, const Tensor& probs, bool replacement,
                                                PhiloxState state);
// The rejection samplers (kernels/gamma_samplers.h). Their operands are contiguous, in out's shape and dtype
// (floating); element i reads its own Philox stream (block state.offset + i, see PhiloxStream), so a draw
// reserves one block per element whatever number of words each element consumes.
// Gamma(alpha[i], 1), at least the dtype's smallest normal value as in PyTorch.
using StandardGammaKernel = void (*)(const Tensor& out, const Tensor& alpha, PhiloxState state);
// d sample / d alpha of a Gamma(alpha, 1) sample x (implicit reparameterisation); deterministic.
using StandardGammaGradKernel = void (*)(const Tensor& out, const Tensor& alpha, const Tensor& x);
// Poisson(rate[i]) (rates already checked to be >= 0).
using PoissonKernel = void (*)(const Tensor& out, const Tensor& rate, PhiloxState state);
// Binomial(count[i], prob[i]).
using BinomialKernel = void (*)(const Tensor& out, const Tensor& count, const Tensor& prob,
                                PhiloxState state);
// out[i] = start + i * step, computed in PyTorch's accumulate type for out's dtype.
using ArangeKernel = void (*)(const Tensor& out, const Scalar& start, const Scalar& step);
// numel evenly spaced values from start to end (numel >= 2), symmetric from both ends as in PyTorch.
using LinspaceKernel = void (*)(const Tensor& out, const Scalar& start, const Scalar& end);

// CPU only, outside the per-device table: the loops of the draws in PyTorch's order
// (ops/random_cpu_stream.cpp) that need the capability's instructions (kernels/cpu/cpu_stream_kernels.cpp),
// set when the CPU kernels of the chosen capability register, so call kernel_table(DeviceType::CPU) first.
struct CpuStreamKernels {
  // PyTorch's float32 Box-Muller transform in place over `blocks` blocks of 16 uniforms.
  void (*box_muller_blocks)(float* data, int64_t blocks, float mean, float std) = nullptr;
  // values[i] = lo + span * u_i (one fused multiply-add, as PyTorch's build), u_i the stream's unit uniforms.
  void (*uniform_f32)(Generator::CpuStream& s, float* values, int64_t n, float lo, float span) = nullptr;
  void (*uniform_f64)(Generator::CpuStream& s, double* values, int64_t n, double lo, double span) = nullptr;
};
CpuStreamKernels& cpu_stream_kernels();

// The slots, listed in kernels/kernel_slots.def.
struct RandomKernels {
#define TANDEM_RANDOM_SLOT(name, Type) Type name = nullptr;
#include "kernels/kernel_slots.def"
#undef TANDEM_RANDOM_SLOT
};

}  // namespace tandem
