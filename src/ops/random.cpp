#include "ops/random.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/error.h"
#include "core/profiler.h"
#include "core/warning.h"
#include "kernels/floating_dispatch.h"
#include "kernels/kernel_table.h"
#include "kernels/random_functors.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/random_cpu_stream.h"
#include "ops/reduce.h"
#include "ops/view.h"

namespace tandem {

Generator& pick_generator(Generator* gen, Device device) {
  if (!gen) return default_generator(device);
  TANDEM_CHECK(gen->device().type == device.type, Runtime, "Expected a '", device_type_name(device.type),
               "' device type for generator but found '", device_type_name(gen->device().type),
               "'\nhint: create the generator with tandem.Generator(device='", device_type_name(device.type),
               "') or drop generator=");
  return *gen;
}

namespace {

// The order in which PyTorch's serial CPU kernels visit the elements of a strided `x`: its dims sorted by
// stride, largest first (TensorIterator's order for a lone output), so a transposed tensor is filled in
// memory order.
DimVector iteration_order(const Tensor& x) {
  DimVector order(x.dim());
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return x.stride(a) > x.stride(b); });
  return order;
}

// Fills `x` on its device. CPU: cpu_fill(out, generator, order) fills a contiguous `out` in PyTorch's order
// from the generator's MT19937 stream (out is x itself, or a temporary holding x's dims in `order`, copied
// back). Other devices: fill(out, state) from `blocks` reserved Philox blocks, through a contiguous
// temporary when x is strided.
template <typename CpuFill>
Tensor fill_cpu_stream(const Tensor& x, Generator& g, const CpuFill& cpu_fill) {
  if (x.is_contiguous()) {
    cpu_fill(x, g, IntArrayRef());
    x.bump_version();
    return x;
  }
  const DimVector order = iteration_order(x);
  Tensor view = permute(x, order);
  Tensor tmp = empty(view.sizes(), x.dtype(), x.device());
  cpu_fill(tmp, g, IntArrayRef(order));
  copy_(view, tmp);
  return x;
}

template <typename Fill, typename CpuFill>
Tensor fill_random(const Tensor& x, const char* op, Generator* gen, uint64_t blocks, const Fill& fill,
                   const CpuFill& cpu_fill) {
  check_writeable(x, op);
  if (x.numel() == 0) return x;
  Generator& g = pick_generator(gen, x.device());
  if (x.device().is_cpu()) return fill_cpu_stream(x, g, cpu_fill);
  PhiloxState state = g.reserve(blocks);
  if (x.is_contiguous()) {
    fill(x, state);
    x.bump_version();
  } else {
    Tensor tmp = empty(x.sizes(), x.dtype(), x.device());
    fill(tmp, state);
    copy_(x, tmp);
  }
  return x;
}

void check_floating(const Tensor& x, const char* kernel) {
  TANDEM_CHECK(is_floating(x.dtype()), NotImplemented, "\"", kernel, "\" not implemented for '",
               dtype_title(x.dtype()),
               "'\nhint: this draw needs a floating-point tensor; pass dtype=tandem.float32");
}

// Largest finite value of a floating dtype.
double floating_max(DType d) {
  switch (d) {
    case DType::Float16:
      return 65504.0;
    case DType::BFloat16:
      return 3.3895313892515355e38;
    case DType::Float32:
      return std::numeric_limits<float>::max();
    default:
      return std::numeric_limits<double>::max();
  }
}

// [min, max] of an integral dtype, as int64 (uint64's max capped at int64's: bounds arrive as int64).
void integral_bounds(DType d, int64_t& lo, int64_t& hi) {
  dispatch_dtype_with_uint(d, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      lo = static_cast<int64_t>(std::numeric_limits<T>::min());
      if constexpr (std::is_same_v<T, uint64_t>)
        hi = INT64_MAX;
      else
        hi = static_cast<int64_t>(std::numeric_limits<T>::max());
    }
  });
}

// An integer through the floating type T and back, as PyTorch's static_casts do on x86: int64 -> float (for
// float16/bfloat16 then rounded again), and a value past int64's range (inf) back as INT64_MIN.
template <typename T>
int64_t through_floating(int64_t v) {
  double d;
  if constexpr (std::is_same_v<T, double>)
    d = static_cast<double>(v);
  else if constexpr (std::is_same_v<T, float>)
    d = static_cast<float>(v);
  else
    d = static_cast<float>(T(static_cast<float>(v)));
  return cpu_stream::x86_integer<int64_t>(d);
}

int floor_log2(int64_t v) {
  int n = 0;
  while (v >>= 1) ++n;
  return n;
}

const char* bounds_hint(DType d) {
  return d == DType::Bool ? "\nhint: a bool tensor holds only 0 and 1; use low=0, high=2"
                          : "\nhint: choose bounds the dtype can hold, or a wider dtype";
}

// A CPU fill of x in place (the draws random_/randint and the Python fills cannot express through the
// device-independent front ends).
template <typename CpuFill>
Tensor cpu_only_fill(const Tensor& x, const char* op, Generator* gen, const CpuFill& cpu_fill) {
  TANDEM_CHECK(x.device().is_cpu(), Runtime, op, ": the CPU stream's draws need a CPU tensor, got ",
               x.device().str(), "\nhint: tensors on other devices draw through uniform_/normal_/randint");
  check_writeable(x, op);
  if (x.numel() == 0) return x;
  return fill_cpu_stream(x, pick_generator(gen, x.device()), cpu_fill);
}
}  // namespace

Tensor cpu_double_draws_(const Tensor& x, cpu_stream::DoubleDraw kind, double a, double b, const char* op,
                         Generator* gen) {
  return cpu_only_fill(x, op, gen, [&](const Tensor& out, Generator& g, IntArrayRef) {
    cpu_stream::double_draws(out, g, kind, a, b);
  });
}

Tensor cpu_random_range_(const Tensor& x, int64_t low, uint64_t range, bool one_word, Generator* gen) {
  TANDEM_CHECK(!is_complex(x.dtype()), Runtime,
               "check_random_bounds handles only integral, floating-point and boolean types");
  return cpu_only_fill(x, "random_", gen, [&](const Tensor& out, Generator& g, IntArrayRef) {
    cpu_stream::random(out, g, low, range, one_word);
  });
}

void floating_random_bounds(DType dtype, int64_t& low, int64_t& high, bool to_given) {
  dispatch_floating(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr int digits = std::is_same_v<T, double>  ? 53
                           : std::is_same_v<T, float> ? 24
                           : std::is_same_v<T, Half>  ? 11
                                                      : 8;
    // update_from: a from the dtype rounds below moves up to the next value it holds
    if (const int64_t from_plus_1 = through_floating<T>(low + 1); from_plus_1 < low)
      low = from_plus_1 + (int64_t{1} << (floor_log2(std::abs(low + 1)) - digits + 1));
    if (to_given) {  // update_to: a to - 1 the dtype rounds up to or past to moves down
      if (const int64_t to_minus_1 = through_floating<T>(high - 1); to_minus_1 >= high)
        high = to_minus_1 - (int64_t{1} << (floor_log2(std::abs(high - 1)) - digits + 1));
      TANDEM_CHECK(
          low < high, Runtime,
          "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got from=", low,
          " >= to=", high, "\nhint: the dtype cannot tell these bounds apart; use a wider dtype");
    } else {
      TANDEM_CHECK(
          low < high - 1, Runtime,
          "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to dtype, but "
          "got from=",
          low, " > to_inc=", high - 1,
          "\nhint: the dtype cannot tell these bounds apart; use a "
          "wider dtype");
    }
    const std::string_view type = dtype_cpp_name(dtype);
    const double max = floating_max(dtype), lowest = -max;
    const int64_t to_inc = high - 1;
    TANDEM_CHECK(static_cast<double>(low) >= lowest && static_cast<double>(low) <= max, Runtime,
                 "from is out of bounds for ", type, bounds_hint(dtype));
    TANDEM_CHECK(static_cast<double>(to_inc) >= lowest && static_cast<double>(to_inc) <= max, Runtime,
                 "to - 1 is out of bounds for ", type, bounds_hint(dtype));
    constexpr int64_t exact = int64_t{1} << digits;
    for (const auto& [value, name] : {std::pair{low, "from"}, std::pair{to_inc, "to - 1"}})
      if (value < -exact || value > exact)
        warn(std::string(name) + " is out of bounds [-(2^" + std::to_string(digits) + "), 2^" +
             std::to_string(digits) + "]. Due to precision limitations " + std::string(type) +
             " can support discrete uniform distribution only within this range. This warning will become an "
             "error in version 1.7 release, please fix the code in advance");
  });
}

Tensor uniform_(const Tensor& x, double from, double to, Generator* gen) {
  profiler::RecordScope profile_scope("aten::uniform_", x, from, to, gen);
  if (is_complex(x.dtype())) {  // each part drawn from [from, to), as PyTorch
    uniform_(view_as_real(x), from, to, gen);
    return x;
  }
  check_floating(x, "check_uniform_bounds");
  double max = floating_max(x.dtype());
  const std::string_view type = dtype_cpp_name(x.dtype());
  TANDEM_CHECK(from >= -max && from <= max, Runtime, "from is out of bounds for ", type,
               "\nhint: uniform_ needs finite bounds the tensor's dtype can hold");
  TANDEM_CHECK(to >= -max && to <= max, Runtime, "to is out of bounds for ", type,
               "\nhint: uniform_ needs finite bounds the tensor's dtype can hold");
  TANDEM_CHECK(from <= to, Runtime, "uniform_ expects to return a [from, to) range, but found from=", from,
               " > to=", to, "\nhint: swap the two bounds");
  TANDEM_CHECK(
      to - from <= max, Runtime, "uniform_ expects to-from <= std::numeric_limits<", dtype_title(x.dtype()),
      ">::max(), but found to=", to, " and from=", from,
      " which result in to-from to exceed the limit\nhint: draw from a narrower range, or in float64 and "
      "scale");
  uint64_t blocks = philox_blocks(x.numel(), float_dist_per_block(x.dtype()));
  return fill_random(
      x, "uniform_", gen, blocks,
      [&](const Tensor& out, PhiloxState s) {
        kernel_table(out.device().type).random.uniform(out, s, from, to);
      },
      [&](const Tensor& out, Generator& g, IntArrayRef) { cpu_stream::uniform(out, g, from, to); });
}

Tensor normal_(const Tensor& x, double mean, double std, Generator* gen) {
  profiler::RecordScope profile_scope("aten::normal_", x, mean, std, gen);
  if (is_complex(x.dtype())) {  // each part N(mean, std^2 / 2), so |z - mean|^2 has mean std^2, as PyTorch
    TANDEM_CHECK(std >= 0.0, Runtime, "normal expects std >= 0.0, but found std ", std,
                 "\nhint: std is a standard deviation; pass its absolute value");
    normal_(view_as_real(x), mean, std / std::sqrt(2.0), gen);
    return x;
  }
  check_floating(x, "normal_kernel_cpu");
  TANDEM_CHECK(std >= 0.0, Runtime, "normal expects std >= 0.0, but found std ", std,
               "\nhint: std is a standard deviation; pass its absolute value");
  uint64_t blocks = philox_blocks(x.numel(), float_dist_per_block(x.dtype()));
  // PyTorch's block-of-16 path takes a contiguous tensor of 16 or more elements, its pairwise path the rest.
  const bool blockwise = x.is_contiguous() && x.numel() >= 16;
  return fill_random(
      x, "normal_", gen, blocks,
      [&](const Tensor& out, PhiloxState s) {
        kernel_table(out.device().type).random.normal(out, s, mean, std);
      },
      [&](const Tensor& out, Generator& g, IntArrayRef) {
        cpu_stream::normal(out, g, mean, std, blockwise);
      });
}

Tensor random_(const Tensor& x, int64_t low, int64_t high, Generator* gen) {
  profiler::RecordScope profile_scope("aten::random_", x, low, high, gen);
  TANDEM_CHECK(low < high, Runtime, "random_ expects 'from' to be less than 'to', but got from=", low,
               " >= to=", high, "\nhint: randint draws from [low, high); make high larger than low");
  TANDEM_CHECK(!is_complex(x.dtype()), Runtime,
               "check_random_bounds handles only integral, floating-point and boolean types");
  if (is_floating(x.dtype())) {
    floating_random_bounds(x.dtype(), low, high);
  } else {
    int64_t lo, hi;
    integral_bounds(x.dtype(), lo, hi);
    const std::string_view type = dtype_cpp_name(x.dtype());
    TANDEM_CHECK(low >= lo && low <= hi, Runtime, "from is out of bounds for ", type, bounds_hint(x.dtype()));
    TANDEM_CHECK(high - 1 >= lo && high - 1 <= hi, Runtime, "to - 1 is out of bounds for ", type,
                 bounds_hint(x.dtype()));
  }
  // high - low can exceed INT64_MAX (e.g. the full int64 range); it always fits in uint64.
  uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  uint64_t blocks = philox_blocks(
      x.numel(), randint_is_wide(range) ? RandintDist<true>::kPerBlock : RandintDist<false>::kPerBlock);
  return fill_random(
      x, "random_", gen, blocks,
      [&](const Tensor& out, PhiloxState s) {
        kernel_table(out.device().type).random.randint(out, s, low, range);
      },
      [&](const Tensor& out, Generator& g, IntArrayRef) { cpu_stream::random(out, g, low, range); });
}

Tensor bernoulli_(const Tensor& x, double p, Generator* gen) {
  profiler::RecordScope profile_scope("aten::bernoulli_", x, p, gen);
  TANDEM_CHECK(p >= 0.0 && p <= 1.0, Runtime, "bernoulli_ expects p to be in [0, 1], but got p=", p,
               "\nhint: p is a probability");
  return fill_random(
      x, "bernoulli_", gen, philox_blocks(x.numel(), Uniform32Dist::kPerBlock),
      [&](const Tensor& out, PhiloxState s) {
        kernel_table(out.device().type).random.bernoulli_scalar(out, s, p);
      },
      [&](const Tensor& out, Generator& g, IntArrayRef) { cpu_stream::bernoulli(out, g, p); });
}

Tensor bernoulli_(const Tensor& x, const Tensor& p, Generator* gen) {
  profiler::RecordScope profile_scope("aten::bernoulli_", x, p, gen);
  TANDEM_CHECK(is_floating(p.dtype()), NotImplemented, "\"bernoulli_tensor_cpu_p_\" not implemented for '",
               dtype_title(p.dtype()),
               "'\nhint: probabilities must be a floating-point tensor; use p.float()");
  if (p.device() != x.device()) throw_device_mismatch("bernoulli_", x.device(), p.device(), "p", x.device());
  // A fresh float64 copy: contiguous, in x's shape, readable by every device's kernel.
  Tensor probs = to_dtype(expand(p, x.sizes()), DType::Float64, true);
  bool valid = true;
  fill_random(
      x, "bernoulli_", gen, philox_blocks(x.numel(), Uniform32Dist::kPerBlock),
      [&](const Tensor& out, PhiloxState s) {
        valid = kernel_table(out.device().type).random.bernoulli_tensor(out, probs, s);
      },
      [&](const Tensor& out, Generator& g, IntArrayRef order) {
        // PyTorch checks every probability before drawing (its kernel's TORCH_CHECK, per element).
        valid = item(all(logical_and(ge(probs, Scalar(0.0)), le(probs, Scalar(1.0))))).to_bool();
        if (!valid) return;
        const Tensor ordered = order.empty() ? probs : contiguous(permute(probs, order));
        cpu_stream::bernoulli(out, g, ordered, p.dtype() == DType::Float64);
      });
  TANDEM_CHECK(
      valid, Runtime,
      "Expected p_in >= 0 && p_in <= 1 to be true, but got false.\nhint: every probability in p must lie "
      "in [0, 1]; clamp it with p.clamp(0, 1)");
  return x;
}

Tensor bernoulli(const Tensor& p, Generator* gen) {
  profiler::RecordScope profile_scope("aten::bernoulli", p, gen);
  Tensor out = empty(p.sizes(), p.dtype(), p.device());
  return bernoulli_(out, p, gen);
}

namespace {
void check_std_tensor(const Tensor& std) {
  TANDEM_CHECK(!is_complex(std.dtype()), Runtime, "normal expects standard deviation to be non-complex");
  check_floating(std, "normal_kernel_cpu");
  TANDEM_CHECK(!item(any(lt(std, Scalar(0.0)))).to_bool(), Runtime,
               "normal expects all elements of std >= 0.0",
               "\nhint: std holds standard deviations; pass std.abs()");
}
}  // namespace

// As PyTorch: draw N(0, 1) into the output, then scale and shift it with the public elementwise ops.
Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen) {
  profiler::RecordScope profile_scope("aten::normal", mean, std, gen);
  if (!is_complex(mean.dtype())) check_floating(mean, "normal_kernel_cpu");  // a complex mean: complex draws
  check_std_tensor(std);
  check_same_device("normal", mean, std, "mean", "std");
  Tensor out =
      normal_(empty(broadcast_shapes(mean.sizes(), std.sizes()), mean.dtype(), mean.device()), 0.0, 1.0, gen);
  return add_(mul_(out, std), mean);
}

Tensor normal(const Tensor& mean, double std, Generator* gen) {
  profiler::RecordScope profile_scope("aten::normal", mean, std, gen);
  if (!is_complex(mean.dtype())) check_floating(mean, "normal_kernel_cpu");  // a complex mean: complex draws
  Tensor out = normal_(empty_like(mean), 0.0, std, gen);
  return add_(out, mean);
}

Tensor normal(double mean, const Tensor& std, Generator* gen) {
  profiler::RecordScope profile_scope("aten::normal", mean, std, gen);
  check_std_tensor(std);
  Tensor out = normal_(empty_like(std), 0.0, 1.0, gen);
  return add_(mul_(out, std), Scalar(mean));
}

namespace {
// PyTorch's CPU samplers, from the MT19937 stream. Without replacement, or for one sample, the exponential
// race: q ~ Exp(1) per weight, then the largest probs / q (argmax, or topk for several samples); otherwise
// one uniform per sample against the running sums. The weights are checked first (float64 copy `weights`).
MultinomialStatus multinomial_cpu(Tensor& out, const Tensor& probs, const Tensor& weights,
                                  int64_t num_samples, bool replacement, Generator& g) {
  if (!item(all(logical_and(ge(weights, Scalar(0.0)), isfinite(weights)))).to_bool())
    return MultinomialStatus::kBadProbability;
  const Tensor row_sums = probs.dim() == 2 ? sum(weights, DimVector{1}) : sum(weights);
  if (item(any(le(row_sums, Scalar(0.0)))).to_bool()) return MultinomialStatus::kZeroSum;
  if (!replacement || num_samples == 1) {
    Tensor q = empty(probs.sizes(), probs.dtype(), probs.device());
    cpu_stream::double_draws(q, g, cpu_stream::DoubleDraw::Exponential, 1.0);
    q = div(probs, q);
    out = num_samples == 1 ? argmax(q, -1, true) : topk(q, num_samples).second;
    return MultinomialStatus::kOk;
  }
  cpu_stream::multinomial_with_replacement(out, g, contiguous(probs));
  return MultinomialStatus::kOk;
}
}  // namespace

Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement, Generator* gen) {
  profiler::RecordScope profile_scope("aten::multinomial", probs, num_samples, replacement, gen);
  TANDEM_CHECK(probs.dim() == 1 || probs.dim() == 2, Runtime, "prob_dist must be 1 or 2 dim",
               "\nhint: pass one row of weights, or a batch of rows; got shape ", probs.shape_str());
  TANDEM_CHECK(is_floating(probs.dtype()), Runtime,
               "multinomial only supports floating-point dtypes for input, got: ", dtype_title(probs.dtype()),
               "\nhint: convert the weights with .float()");
  TANDEM_CHECK(num_samples > 0, Runtime, "cannot sample n_sample <= 0 samples",
               "\nhint: ask for at least one sample");
  int64_t k = probs.size(-1);
  TANDEM_CHECK(replacement || num_samples <= k, Runtime,
               "cannot sample n_sample > prob_dist.size(-1) samples without replacement",
               "\nhint: pass replacement=True, or at most ", k, " samples");
  TANDEM_CHECK(k <= (int64_t{1} << 24), Runtime, "number of categories cannot exceed 2^24",
               "\nhint: split the categories into groups");
  DimVector shape = probs.sizes();
  shape[shape.size() - 1] = num_samples;
  Tensor out = empty(shape, DType::Int64, probs.device());
  Generator& g = pick_generator(gen, probs.device());
  if (out.numel() == 0) return out;
  int64_t rows = probs.dim() == 2 ? probs.size(0) : 1;
  Tensor weights = contiguous(to_dtype(probs, DType::Float64));
  MultinomialStatus status = MultinomialStatus::kOk;
  if (out.device().is_cpu()) {
    status = multinomial_cpu(out, probs, weights, num_samples, replacement, g);
  } else {
    PhiloxState s =
        g.reserve(philox_blocks(rows * (replacement ? num_samples : k),
                                replacement ? Uniform32Dist::kPerBlock : OpenUniform32Dist::kPerBlock));
    status = kernel_table(out.device().type).random.multinomial(out, weights, replacement, s);
  }
  if (status == MultinomialStatus::kBadProbability) {
    // PyTorch's texts: its sampler with replacement (more than one sample) names the fault it found, its
    // other samplers all three.
    TANDEM_CHECK(replacement && num_samples > 1, Runtime,
                 "probability tensor contains either `inf`, `nan` or element < 0",
                 "\nhint: weights must be finite and non-negative");
    // PyTorch checks each weight in order, first `>= 0` (which a NaN fails too), then finiteness: the first
    // bad weight decides the message.
    Tensor flat = reshape(weights, DimVector{weights.numel()});
    Tensor bad = logical_or(logical_not(ge(flat, Scalar(0.0))),
                            eq(flat, Scalar(std::numeric_limits<double>::infinity())));
    const double first =
        item(select(flat, 0, item(argmax(to_dtype(bad, DType::Int32))).to_int())).to_double();
    TANDEM_THROW(Runtime, "invalid multinomial distribution (encountering probability entry ",
                 !(first >= 0) ? "< 0" : "= infinity or NaN",
                 ")\nhint: weights must be finite and non-negative");
  }
  TANDEM_CHECK(status != MultinomialStatus::kZeroSum, Runtime,
               "invalid multinomial distribution (sum of probabilities <= 0)",
               "\nhint: every row needs at least one positive weight");
  return out;
}

Tensor rand(IntArrayRef sizes, DType dtype, Device device, Generator* gen) {
  profiler::RecordScope profile_scope("aten::rand", sizes, dtype, device, gen);
  return fresh_result(uniform_(empty(sizes, dtype, device), 0.0, 1.0, gen));
}

Tensor randn(IntArrayRef sizes, DType dtype, Device device, Generator* gen) {
  profiler::RecordScope profile_scope("aten::randn", sizes, dtype, device, gen);
  return fresh_result(normal_(empty(sizes, dtype, device), 0.0, 1.0, gen));
}

Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, DType dtype, Device device, Generator* gen) {
  profiler::RecordScope profile_scope("aten::randint", low, high, sizes, dtype, device, gen);
  return fresh_result(random_(empty(sizes, dtype, device), low, high, gen));
}

Tensor randperm(int64_t n, DType dtype, Device device, Generator* gen) {
  profiler::RecordScope profile_scope("aten::randperm", n, dtype, device, gen);
  TANDEM_CHECK(n >= 0, Runtime, "Trying to create tensor with negative dimension ", n, ": [", n, "]",
               "\nhint: randperm(n) needs n >= 0");
  TANDEM_CHECK(!is_complex(dtype), NotImplemented, "\"randperm\" not implemented for '", dtype_title(dtype),
               "'");
  TANDEM_CHECK(dtype != DType::Bool, NotImplemented, "\"randperm\" not implemented for 'Bool'",
               "\nhint: use an integer dtype such as tandem.int64");
  if (is_floating(dtype)) {
    // Beyond 2^digits + 1 consecutive integers are no longer all representable.
    const char* limit = dtype == DType::Float16    ? "2049"
                        : dtype == DType::BFloat16 ? "257"
                        : dtype == DType::Float32  ? "2^24+1"
                                                   : "2^53+1";
    double max = dtype == DType::Float16    ? 2049.0
                 : dtype == DType::BFloat16 ? 257.0
                 : dtype == DType::Float32  ? 16777217.0
                                            : 9007199254740993.0;
    TANDEM_CHECK(static_cast<double>(n) <= max, Runtime, "n cannot be greater than ", limit, " for ",
                 dtype_title(dtype), " type.\nhint: use dtype=tandem.int64");
  } else if (n > 0) {
    int64_t lo, hi;
    integral_bounds(dtype, lo, hi);
    TANDEM_CHECK(n - 1 <= hi, Runtime, "value cannot be converted to type ", dtype_name(dtype),
                 "_t without overflow\nhint: use dtype=tandem.int64");
  }
  const int64_t size[1] = {n};
  Tensor out = empty(size, dtype, device);
  Generator& g = pick_generator(gen, device);
  if (n == 0) return out;
  if (device.is_cpu()) {
    cpu_stream::randperm(out, g);
    return out;
  }
  PhiloxState s = g.reserve(philox_blocks(n, Key64Dist::kPerBlock));
  kernel_table(device.type).random.randperm(out, s);
  return out;
}

}  // namespace tandem
