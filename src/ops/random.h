// Front ends of the random ops. Each checks its arguments, reserves the Philox blocks the draw consumes
// from the generator (the device's default one when `gen` is null) and calls the output device's kernel.
#pragma once
#include "core/generator.h"
#include "core/tensor.h"
#include "ops/random_cpu_stream.h"

namespace tandem {

// The generator for a draw on `device`: `gen`, which must be for that device type, or the device's default.
Generator& pick_generator(Generator* gen, Device device);

Tensor rand(IntArrayRef sizes, DType dtype, Device device, Generator* gen = nullptr);
Tensor randn(IntArrayRef sizes, DType dtype, Device device, Generator* gen = nullptr);
// Integers in [low, high).
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, DType dtype, Device device,
               Generator* gen = nullptr);
Tensor randperm(int64_t n, DType dtype, Device device, Generator* gen = nullptr);

// In place; `x` may be non-contiguous (values follow its row-major element order).
Tensor uniform_(const Tensor& x, double from, double to, Generator* gen = nullptr);
Tensor normal_(const Tensor& x, double mean, double std, Generator* gen = nullptr);
Tensor random_(const Tensor& x, int64_t low, int64_t high, Generator* gen = nullptr);
// PyTorch's bounds of random_ for a floating dtype: `low` and `high` (high excluded; with to_given false,
// high - 1 is the dtype's default top) moved to integers the dtype holds (its update_from/update_to), its
// errors for bounds past the dtype's range or crossing after the move, and its UserWarning for bounds past
// 2^digits, where not every integer is representable.
void floating_random_bounds(DType dtype, int64_t& low, int64_t& high, bool to_given = true);
// x (a CPU tensor, any real dtype) filled in place, in PyTorch's order, with low + draw % range (range 0: the
// whole int64 range), after random_'s checks made by the caller: the forms of random_ that randint cannot
// spell (spans past int64, the no-argument draw, `one_word`: ops/random_cpu_stream.h).
Tensor cpu_random_range_(const Tensor& x, int64_t low, uint64_t range, bool one_word,
                         Generator* gen = nullptr);
// x (a CPU tensor) filled in place, in PyTorch's order, with one of the distributions its CPU kernels draw as
// a float64 per element (ops/random_cpu_stream.h), after `op`'s writeability check. The Python fills
// (exponential_, cauchy_, log_normal_, geometric_) take this path on the CPU and compose uniform_/normal_
// draws on other devices.
Tensor cpu_double_draws_(const Tensor& x, cpu_stream::DoubleDraw kind, double a, double b, const char* op,
                         Generator* gen = nullptr);
Tensor bernoulli_(const Tensor& x, double p, Generator* gen = nullptr);
Tensor bernoulli_(const Tensor& x, const Tensor& p, Generator* gen = nullptr);  // p broadcasts to x
// A tensor like `p` (floating) holding 1 with probability p[i].
Tensor bernoulli(const Tensor& p, Generator* gen = nullptr);
// N(mean, std^2) elementwise, where mean and/or std are tensors (they broadcast). The result takes the
// dtype of the tensor mean, else of std.
Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen = nullptr);
Tensor normal(const Tensor& mean, double std, Generator* gen = nullptr);
Tensor normal(double mean, const Tensor& std, Generator* gen = nullptr);
// Category indices (int64) drawn from the weights in each row of a 1-D or 2-D `probs`.
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement = false,
                   Generator* gen = nullptr);

}  // namespace tandem
