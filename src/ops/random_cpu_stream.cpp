// Built with -ffp-contract=off (CMakeLists.txt): every fused multiply-add below is written as std::fma where
// PyTorch's build fuses one, and nothing else may be fused, or the last bit would differ from PyTorch's.
#include "ops/random_cpu_stream.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "core/error.h"
#include "core/half.h"
#include "kernels/gamma_samplers.h"
#include "kernels/kernel_table.h"

namespace tandem::cpu_stream {

namespace {

using Stream = Generator::CpuStream;

// PyTorch's unit uniform in the type it accumulates in: double for float64, float otherwise.
template <typename T>
auto unit_uniform(Stream& s) {
  if constexpr (std::is_same_v<T, double>)
    return s.uniform_double();
  else
    return s.uniform_float();
}

template <typename T>
T* data(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

// A float64 result in a floating dtype, as PyTorch's static_cast<scalar_t>(double): float16 and bfloat16
// through float.
template <typename T>
T to_value(double v) {
  if constexpr (std::is_same_v<T, double>)
    return v;
  else
    return T(static_cast<float>(v));
}

// One float64 N(0, 1) sample: the cached second value of the last pair, or a new pair (u1 the angle, u2
// the radius), caching its sine half.
double standard_normal_double(Stream& s) {
  if (s.next_double_normal) {
    const double v = *s.next_double_normal;
    s.next_double_normal.reset();
    return v;
  }
  const double u1 = unit_uniform<double>(s);
  const double u2 = unit_uniform<double>(s);
  const double r = std::sqrt(-2.0 * std::log1p(-u2));
  const double theta = 2.0 * std::numbers::pi * u1;
  s.next_double_normal = r * std::sin(theta);
  return r * std::cos(theta);
}

// float32: PyTorch's AVX2 kernel's blocks (kernels/cpu/cpu_stream_kernels.cpp, built per CPU capability).
void normal_blocks(float* d, int64_t blocks, float mean, float std) {
  kernel_table(DeviceType::CPU);  // registers the CPU kernels, the stream's among them
  cpu_stream_kernels().box_muller_blocks(d, blocks, mean, std);
}

// from + (to - from) * u, fused as PyTorch's build fuses it: loops in the CPU capability's build, where the
// fused multiply-add is one instruction (kernels/cpu/cpu_stream_kernels.cpp).
void uniform_values(Stream& s, double* values, int64_t n, double lo, double span) {
  kernel_table(DeviceType::CPU);
  cpu_stream_kernels().uniform_f64(s, values, n, lo, span);
}
void uniform_values(Stream& s, float* values, int64_t n, float lo, float span) {
  kernel_table(DeviceType::CPU);
  cpu_stream_kernels().uniform_f32(s, values, n, lo, span);
}

// float64: PyTorch's scalar kernel, libm's functions.
void normal_blocks(double* data, int64_t blocks, double mean, double std) {
  for (int64_t b = 0; b < blocks; ++b) {
    double* d = data + 16 * b;
    for (int j = 0; j < 8; ++j) {
      const double radius = std::sqrt(-2.0 * std::log(1.0 - d[j]));
      const double theta = 2.0 * std::numbers::pi * d[j + 8];
      d[j] = std::fma(radius * std::cos(theta), std, mean);
      d[j + 8] = std::fma(radius * std::sin(theta), std, mean);
    }
  }
}

template <typename T, typename M>
void normal_blockwise(Stream& s, T* d, int64_t n, M mean, M std) {
  for (int64_t i = 0; i < n; ++i) d[i] = T(unit_uniform<T>(s));
  normal_blocks(d, n / 16, mean, std);
  if (n % 16 != 0) {  // the last 16 again, from fresh uniforms
    T* tail = d + n - 16;
    for (int i = 0; i < 16; ++i) tail[i] = T(unit_uniform<T>(s));
    normal_blocks(tail, 1, mean, std);
  }
}

// float16/bfloat16: PyTorch draws and transforms block by block in float (a buffer of 16, rounded into the
// tensor), so the last block's 16 uniforms follow the full blocks' directly (float's path draws all n first).
void normal_blockwise_in_float(Stream& s, float* d, int64_t n, float mean, float std) {
  const int64_t full = n / 16;
  for (int64_t i = 0; i < full * 16; ++i) d[i] = unit_uniform<float>(s);
  normal_blocks(d, full, mean, std);
  if (n % 16 != 0) {
    float tail[16];
    for (float& u : tail) u = unit_uniform<float>(s);
    normal_blocks(tail, 1, mean, std);
    std::copy(tail, tail + 16, d + n - 16);
  }
}

template <typename Fn>
void floating_dispatch(const Tensor& out, const char* op, Fn&& fn) {
  switch (out.dtype()) {
    case DType::Float32:
      return fn(TypeTag<float>{});
    case DType::Float64:
      return fn(TypeTag<double>{});
    case DType::Float16:
      return fn(TypeTag<Half>{});
    case DType::BFloat16:
      return fn(TypeTag<BFloat16>{});
    default:
      throw_dtype_not_implemented(op, out.dtype());
  }
}

}  // namespace

void uniform(const Tensor& out, Generator& g, double from, double to) {
  floating_dispatch(out, "uniform_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* d = data<T>(out);
    const int64_t n = out.numel();
    // The arithmetic in float64 for float64, else in float with float bounds, then rounded to T. A value
    // that rounds to `to` becomes `from`, as in PyTorch, so the range stays half-open.
    using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const Acc lo = static_cast<Acc>(from), hi = static_cast<Acc>(to);
    const T top = T(hi), bottom = T(lo);
    if constexpr (std::is_same_v<T, Acc>) {
      g.with_cpu_stream([&](Stream& s) { uniform_values(s, d, n, lo, hi - lo); });
      for (int64_t i = 0; i < n; ++i)
        if (d[i] == top) d[i] = bottom;
    } else {
      std::vector<float> values(static_cast<size_t>(n));
      g.with_cpu_stream([&](Stream& s) { uniform_values(s, values.data(), n, lo, hi - lo); });
      for (int64_t i = 0; i < n; ++i) {
        const T v = T(values[i]);
        d[i] = v == top ? bottom : v;
      }
    }
  });
}

void normal(const Tensor& out, Generator& g, double mean, double std, bool blockwise) {
  floating_dispatch(out, "normal_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* d = data<T>(out);
    const int64_t n = out.numel();
    g.with_cpu_stream([&](Stream& s) {
      if (blockwise) {
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          normal_blockwise(s, d, n, static_cast<T>(mean), static_cast<T>(std));
        } else {
          std::vector<float> values(static_cast<size_t>(n));
          normal_blockwise_in_float(s, values.data(), n, static_cast<float>(mean), static_cast<float>(std));
          for (int64_t i = 0; i < n; ++i) d[i] = T(values[i]);
        }
        return;
      }
      for (int64_t i = 0; i < n; ++i) {
        const double v = std::fma(standard_normal_double(s), std, mean);
        if constexpr (std::is_same_v<T, double>)
          d[i] = v;
        else
          d[i] = T(static_cast<float>(v));
      }
    });
  });
}

void random(const Tensor& out, Generator& g, int64_t low, uint64_t range, bool one_word) {
  dispatch_dtype_with_uint(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* d = data<T>(out);
    const int64_t n = out.numel();
    const bool wide = !one_word && (range == 0 || range >= (uint64_t{1} << 28));
    // A power-of-two range (random_()'s 2^31, 2^63, bool's 2) is a mask: the same value as %, without a
    // division.
    const uint64_t mask = range && (range & (range - 1)) == 0 ? range - 1 : 0;
    g.with_cpu_stream([&](Stream& s) {
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t draw = wide ? s.random64() : s.random();
        const uint64_t wrapped =
            range == 0 ? draw : (mask ? draw & mask : draw % range) + static_cast<uint64_t>(low);
        const int64_t v = static_cast<int64_t>(wrapped);
        if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
          d[i] = T(static_cast<float>(v));
        else
          d[i] = static_cast<T>(v);
      }
    });
  });
}

namespace {
template <typename Draw>
void fill_bits(const Tensor& out, Generator& g, Draw&& draw) {
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* d = data<T>(out);
    const int64_t n = out.numel();
    g.with_cpu_stream([&](Stream& s) {
      for (int64_t i = 0; i < n; ++i) {
        const bool bit = draw(s, i);
        if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
          d[i] = T(bit ? 1.0f : 0.0f);
        else
          d[i] = static_cast<T>(bit);
      }
    });
  });
}
}  // namespace

void bernoulli(const Tensor& out, Generator& g, double p) {
  fill_bits(out, g, [p](Stream& s, int64_t) { return unit_uniform<double>(s) < p; });
}

void bernoulli(const Tensor& out, Generator& g, const Tensor& probs, bool float64_probs) {
  const double* p = data<double>(probs);
  if (float64_probs)
    fill_bits(out, g, [p](Stream& s, int64_t i) { return unit_uniform<double>(s) < p[i]; });
  else
    fill_bits(out, g,
              [p](Stream& s, int64_t i) { return unit_uniform<float>(s) < static_cast<float>(p[i]); });
}

namespace {
// out[i] = draw(stream) per element, in out's dtype (integers: geometric's counts).
template <typename Draw>
void fill_double_draws(const Tensor& out, Generator& g, const Draw& draw) {
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      T* d = data<T>(out);
      const int64_t n = out.numel();
      g.with_cpu_stream([&](Stream& s) {
        for (int64_t i = 0; i < n; ++i) {
          const double v = draw(s);
          if constexpr (std::is_integral_v<T>)  // geometric's counts, converted as PyTorch's x86 build does
            d[i] = x86_integer<T>(v);
          else
            d[i] = to_value<T>(v);
        }
      });
    }
  });
}
}  // namespace

void double_draws(const Tensor& out, Generator& g, DoubleDraw kind, double a, double b) {
  switch (kind) {  // (outside the loop: one instantiation per distribution)
    case DoubleDraw::Exponential:
      return fill_double_draws(out, g,
                               [a](Stream& s) { return -1.0 / a * std::log1p(-unit_uniform<double>(s)); });
    case DoubleDraw::Cauchy:
      return fill_double_draws(out, g, [a, b](Stream& s) {
        return a + b * std::tan(std::numbers::pi * (unit_uniform<double>(s) - 0.5));
      });
    case DoubleDraw::LogNormal:
      return fill_double_draws(
          out, g, [a, b](Stream& s) { return std::exp(std::fma(standard_normal_double(s), b, a)); });
    case DoubleDraw::Geometric:
      return fill_double_draws(
          out, g, [a](Stream& s) { return std::ceil(std::log(unit_uniform<double>(s)) / std::log1p(-a)); });
  }
}

void multinomial_with_replacement(const Tensor& out, Generator& g, const Tensor& probs) {
  floating_dispatch(probs, "multinomial", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const T* p = data<T>(probs);
    int64_t* result = data<int64_t>(out);
    const int64_t k = probs.size(-1), rows = probs.numel() / k, samples = out.size(-1);
    std::vector<Acc> cum(static_cast<size_t>(k));
    g.with_cpu_stream([&](Stream& s) {
      for (int64_t r = 0; r < rows; ++r) {
        Acc sum = 0;
        for (int64_t j = 0; j < k; ++j) cum[j] = sum = sum + static_cast<Acc>(p[r * k + j]);
        for (int64_t j = 0; j < k; ++j) cum[j] /= sum;
        cum[k - 1] = 1;
        for (int64_t j = 0; j < samples; ++j) {
          const double u = unit_uniform<double>(s);
          int64_t left = 0, right = k;
          while (right > left) {
            const int64_t mid = left + (right - left) / 2;
            if (static_cast<double>(cum[mid]) < u)
              left = mid + 1;
            else
              right = mid;
          }
          result[r * samples + j] = left;
        }
      }
    });
  });
}

namespace {
// Marsaglia and Tsang's gamma sampler as PyTorch writes it: alpha and the boost in T (float for float32), the
// rest in float64, its constants single-precision literals (1/3 and 0.0331 as floats).
template <typename T>
double gamma_sample(Stream& s, T alpha) {
  double scale = 1.0;
  if (alpha < T(1)) {
    if (alpha == T(0)) return 0.0;
    scale *= std::pow(1 - unit_uniform<double>(s), static_cast<double>(T(1) / alpha));
    alpha += T(1);
  }
  const double d = alpha - T(1.0f / 3.0f);
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, y;
    do {
      x = standard_normal_double(s);
      y = 1.0 + c * x;
    } while (y <= 0);
    const double v = y * y * y;
    const double u = 1 - unit_uniform<double>(s);
    const double xx = x * x;
    if (u < 1.0 - double{0.0331f} * xx * xx) return scale * d * v;
    if (std::log(u) < 0.5 * xx + d * (1.0 - v + std::log(v))) return scale * d * v;
  }
}

// PyTorch's Poisson and binomial samplers (kernels/gamma_samplers.h) as its CPU kernels run them: libm's
// functions, and the stream's unit uniforms as doubles.
struct LibmMath {
  template <typename T>
  static T log(T x) {
    return std::log(x);
  }
  template <typename T>
  static T log1p(T x) {
    return std::log1p(x);
  }
  static double exp(double x) { return std::exp(x); }
  static double log_factorial(double k) { return std::lgamma(k + 1); }
};
struct StreamUniforms {
  Stream& stream;
  double uniform() { return unit_uniform<double>(stream); }
};

}  // namespace

void standard_gamma(const Tensor& out, Generator& g, const Tensor& alpha) {
  floating_dispatch(out, "gamma_cpu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Alpha = std::conditional_t<std::is_same_v<T, double>, double, float>;
    T* d = data<T>(out);
    const T* a = data<T>(alpha);
    const int64_t n = out.numel();
    const float smallest = std::is_same_v<T, Half>       ? 0x1p-14f
                           : std::is_same_v<T, BFloat16> ? 0x1p-126f
                                                         : std::numeric_limits<float>::min();
    g.with_cpu_stream([&](Stream& s) {
      for (int64_t i = 0; i < n; ++i) {
        const T v = to_value<T>(gamma_sample<Alpha>(s, static_cast<Alpha>(a[i])));
        if constexpr (std::is_same_v<T, double>)
          d[i] = std::max(std::numeric_limits<double>::min(), v);
        else
          d[i] = smallest < static_cast<float>(v) ? v : T(smallest);  // std::max's order: NaN gives the bound
      }
    });
  });
}

void poisson(const Tensor& out, Generator& g, const Tensor& rates) {
  floating_dispatch(out, "poisson_cpu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* d = data<T>(out);
    const T* r = data<T>(rates);
    const int64_t n = out.numel();
    g.with_cpu_stream([&](Stream& s) {
      for (int64_t i = 0; i < n; ++i) {
        StreamUniforms u{s};
        d[i] = to_value<T>(sample_poisson<LibmMath>(static_cast<double>(r[i]), u));
      }
    });
  });
}

void binomial(const Tensor& out, Generator& g, const Tensor& count, const Tensor& prob) {
  floating_dispatch(out, "binomial_cpu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Work = std::conditional_t<std::is_same_v<T, double>, double, float>;
    T* d = data<T>(out);
    const T* c = data<T>(count);
    const T* p = data<T>(prob);
    const int64_t n = out.numel();
    g.with_cpu_stream([&](Stream& s) {
      for (int64_t i = 0; i < n; ++i) {
        StreamUniforms u{s};
        const Work v = sample_binomial<LibmMath>(static_cast<Work>(c[i]), static_cast<Work>(p[i]), u);
        if constexpr (std::is_same_v<T, double>)
          d[i] = v;
        else
          d[i] = T(static_cast<float>(v));
      }
    });
  });
}

void randperm(const Tensor& out, Generator& g) {
  dispatch_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      T* d = data<T>(out);
      const int64_t n = out.numel();
      std::vector<int64_t> order(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) order[i] = i;
      g.with_cpu_stream([&](Stream& s) {
        for (int64_t i = 0; i + 1 < n; ++i) {
          const int64_t z = static_cast<int64_t>(s.random() % static_cast<uint64_t>(n - i));
          std::swap(order[i], order[z + i]);
        }
      });
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
          d[i] = T(static_cast<float>(order[i]));
        else
          d[i] = static_cast<T>(order[i]);
      }
    }
  });
}

}  // namespace tandem::cpu_stream
