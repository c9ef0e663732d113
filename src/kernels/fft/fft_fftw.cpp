// The CPU's FFT slots through FFTW 3 (libfftw3: fftw3f for float32, fftw3 for float64), or nothing when
// tandem is built without it (TANDEM_FFTW=OFF, or no libfftw3-dev: tandem.fft then raises "built without
// FFTW"). Linking FFTW makes a distributed build GPL (docs/fft.md).
//
// Plans: FFTW's planner is not thread-safe, so plans are made (and destroyed) under one mutex and cached by
// kind, precision, length, batch count, distances, in-place-ness and the alignment of the arrays; they are
// executed with FFTW's new-array functions, which are thread-safe, on any arrays with that alignment.
// FFTW_ESTIMATE plans never touch the arrays, so planning needs no scratch copy (FFTW_MEASURE was measured
// and does not pay: docs/fft.md). Every plan is 1-D: a k-dim transform is k passes (run_transform), rows and
// column blocks split over tandem's threads.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/complex.h"
#include "core/parallel.h"
#include "kernels/fft_kernels.h"

#ifdef TANDEM_HAS_FFTW
#include <fftw3.h>
#endif

namespace tandem {

#ifdef TANDEM_HAS_FFTW
namespace {

enum class Kind : uint8_t { C2CForward, C2CBackward, R2C, C2R };

// One overload set per precision, so the kernels below are written once as templates.
template <typename T>
struct Fftw;
template <>
struct Fftw<float> {
  using Plan = fftwf_plan;
  using Complex = fftwf_complex;
  static Plan dft(int rank, const fftw_iodim64* dims, const fftw_iodim64* batch, void* in, void* out,
                  int sign) {
    return fftwf_plan_guru64_dft(rank, dims, 1, batch, static_cast<Complex*>(in), static_cast<Complex*>(out),
                                 sign, FFTW_ESTIMATE);
  }
  static Plan r2c(int rank, const fftw_iodim64* dims, const fftw_iodim64* batch, void* in, void* out) {
    return fftwf_plan_guru64_dft_r2c(rank, dims, 1, batch, static_cast<float*>(in),
                                     static_cast<Complex*>(out), FFTW_ESTIMATE);
  }
  static Plan c2r(int rank, const fftw_iodim64* dims, const fftw_iodim64* batch, void* in, void* out) {
    return fftwf_plan_guru64_dft_c2r(rank, dims, 1, batch, static_cast<Complex*>(in),
                                     static_cast<float*>(out), FFTW_ESTIMATE);
  }
  static void execute(Kind kind, Plan p, void* in, void* out) {
    if (kind == Kind::R2C)
      fftwf_execute_dft_r2c(p, static_cast<float*>(in), static_cast<Complex*>(out));
    else if (kind == Kind::C2R)
      fftwf_execute_dft_c2r(p, static_cast<Complex*>(in), static_cast<float*>(out));
    else
      fftwf_execute_dft(p, static_cast<Complex*>(in), static_cast<Complex*>(out));
  }
  static void destroy(void* p) { fftwf_destroy_plan(static_cast<Plan>(p)); }
  static int alignment_of(const void* p) {
    return fftwf_alignment_of(static_cast<float*>(const_cast<void*>(p)));
  }
};
template <>
struct Fftw<double> {
  using Plan = fftw_plan;
  using Complex = fftw_complex;
  static Plan dft(int rank, const fftw_iodim64* dims, const fftw_iodim64* batch, void* in, void* out,
                  int sign) {
    return fftw_plan_guru64_dft(rank, dims, 1, batch, static_cast<Complex*>(in), static_cast<Complex*>(out),
                                sign, FFTW_ESTIMATE);
  }
  static Plan r2c(int rank, const fftw_iodim64* dims, const fftw_iodim64* batch, void* in, void* out) {
    return fftw_plan_guru64_dft_r2c(rank, dims, 1, batch, static_cast<double*>(in),
                                    static_cast<Complex*>(out), FFTW_ESTIMATE);
  }
  static Plan c2r(int rank, const fftw_iodim64* dims, const fftw_iodim64* batch, void* in, void* out) {
    return fftw_plan_guru64_dft_c2r(rank, dims, 1, batch, static_cast<Complex*>(in),
                                    static_cast<double*>(out), FFTW_ESTIMATE);
  }
  static void execute(Kind kind, Plan p, void* in, void* out) {
    if (kind == Kind::R2C)
      fftw_execute_dft_r2c(p, static_cast<double*>(in), static_cast<Complex*>(out));
    else if (kind == Kind::C2R)
      fftw_execute_dft_c2r(p, static_cast<Complex*>(in), static_cast<double*>(out));
    else
      fftw_execute_dft(p, static_cast<Complex*>(in), static_cast<Complex*>(out));
  }
  static void destroy(void* p) { fftw_destroy_plan(static_cast<Plan>(p)); }
  static int alignment_of(const void* p) {
    return fftw_alignment_of(static_cast<double*>(const_cast<void*>(p)));
  }
};

// FFTW's planner (creating and destroying plans) is not thread-safe; executing a plan is.
std::mutex& planner_mutex() {
  static auto* m = new std::mutex;  // never destroyed: plans may be released during exit
  return *m;
}

// A plan, destroyed under the planner mutex when the cache and every running call have let go of it.
struct CachedPlan {
  void* plan = nullptr;
  void (*destroy)(void*) = nullptr;
  ~CachedPlan() {
    std::lock_guard<std::mutex> lock(planner_mutex());
    if (plan) destroy(plan);
  }
};

struct PlanKey {
  Kind kind;
  bool is_double;
  int in_alignment, out_alignment;
  bool in_place;
  int64_t howmany;
  DimVector shape;            // the logical (real-side) transform sizes
  int64_t in_dist, out_dist;  // elements between consecutive transforms
  bool operator==(const PlanKey& o) const {
    return kind == o.kind && is_double == o.is_double && in_alignment == o.in_alignment &&
           out_alignment == o.out_alignment && in_place == o.in_place && howmany == o.howmany &&
           shape == o.shape && in_dist == o.in_dist && out_dist == o.out_dist;
  }
};
struct PlanKeyHash {
  size_t operator()(const PlanKey& k) const {
    size_t h = static_cast<size_t>(k.kind) * 31 + k.is_double * 2 + k.in_place;
    h = h * 131 + static_cast<size_t>(k.in_alignment * 7 + k.out_alignment);
    h = h * 1000003 + static_cast<size_t>(k.howmany);
    h = h * 1000003 + static_cast<size_t>(k.in_dist * 17 + k.out_dist);
    for (int64_t s : k.shape) h = h * 1000003 + static_cast<size_t>(s);
    return h;
  }
};
using PlanCache = std::unordered_map<PlanKey, std::shared_ptr<CachedPlan>, PlanKeyHash>;

// Enough plans for the shapes a program uses; past this the cache starts over (plans in use live on).
constexpr size_t kMaxCachedPlans = 256;

// Row-major strides of `shape` in elements.
DimVector row_major(const DimVector& shape) {
  DimVector s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

// The complex side of r2c/c2r holds n_rank / 2 + 1 values along the last dim.
DimVector half_shape(DimVector shape) {
  shape[shape.size() - 1] = shape.back() / 2 + 1;
  return shape;
}

// A new plan for `key` on arrays aligned as in/out (FFTW_ESTIMATE: the arrays are not touched).
template <typename T>
std::shared_ptr<CachedPlan> make_plan(const PlanKey& key, void* in, void* out) {
  const DimVector half = half_shape(key.shape);
  const DimVector& in_shape = key.kind == Kind::C2R ? half : key.shape;
  const DimVector& out_shape = key.kind == Kind::R2C ? half : key.shape;
  const DimVector is = row_major(in_shape), os = row_major(out_shape);
  std::vector<fftw_iodim64> dims(key.shape.size());
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = {key.shape[i], is[i], os[i]};
  const fftw_iodim64 batch{key.howmany, key.in_dist, key.out_dist};
  const int rank = static_cast<int>(dims.size());
  auto plan = std::make_shared<CachedPlan>();
  std::lock_guard<std::mutex> lock(planner_mutex());
  switch (key.kind) {
    case Kind::C2CForward:
      plan->plan = Fftw<T>::dft(rank, dims.data(), &batch, in, out, FFTW_FORWARD);
      break;
    case Kind::C2CBackward:
      plan->plan = Fftw<T>::dft(rank, dims.data(), &batch, in, out, FFTW_BACKWARD);
      break;
    case Kind::R2C:
      plan->plan = Fftw<T>::r2c(rank, dims.data(), &batch, in, out);
      break;
    case Kind::C2R:
      plan->plan = Fftw<T>::c2r(rank, dims.data(), &batch, in, out);
      break;
  }
  plan->destroy = &Fftw<T>::destroy;
  return plan;
}

template <typename T>
std::shared_ptr<CachedPlan> plan_for(const PlanKey& key, void* in, void* out) {
  static auto* cache_mutex = new std::mutex;
  static auto* cache = new PlanCache;  // never destroyed, like the mutex
  {
    std::lock_guard<std::mutex> lock(*cache_mutex);
    auto it = cache->find(key);
    if (it != cache->end()) return it->second;
  }
  std::shared_ptr<CachedPlan> plan = make_plan<T>(key, in, out);
  PlanCache evicted;  // released after the lock (their destructors take the planner mutex)
  std::lock_guard<std::mutex> lock(*cache_mutex);
  if (cache->size() >= kMaxCachedPlans) evicted.swap(*cache);
  auto [it, inserted] = cache->emplace(key, plan);
  return inserted ? plan : it->second;  // another thread may have planned the same key meanwhile
}

// Bytes of one input/output element of `kind`.
template <typename T>
size_t in_element(Kind kind) {
  return kind == Kind::R2C ? sizeof(T) : 2 * sizeof(T);
}
template <typename T>
size_t out_element(Kind kind) {
  return kind == Kind::C2R ? sizeof(T) : 2 * sizeof(T);
}

// x[0, count) *= scale, on tandem's threads.
template <typename T>
void scale_values(T* x, int64_t count, double scale) {
  if (scale == 1.0) return;
  const T s = static_cast<T>(scale);
  parallel_for(0, count, int64_t{1} << 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) x[i] *= s;
  });
}

// `batch` contiguous 1-D transforms of length n (the real-side length for r2c/c2r), in_step/out_step elements
// apart, from in to out (in == out: in place), chunks of the batch on tandem's threads, each result scaled.
template <typename T>
void run_rows(Kind kind, void* in, void* out, int64_t batch, int64_t n, int64_t in_step, int64_t out_step,
              double scale) {
  const bool in_place = in == out;
  char* in_base = static_cast<char*>(in);
  char* out_base = static_cast<char*>(out);
  // A thread gets at least ~64K elements of transforms: below that, splitting costs more than it saves.
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(n, 1));
  parallel_for(0, batch, grain, [&](int64_t b, int64_t e) {
    void* src = in_base + static_cast<size_t>(b * in_step) * in_element<T>(kind);
    void* dst = out_base + static_cast<size_t>(b * out_step) * out_element<T>(kind);
    PlanKey key{kind,
                sizeof(T) == sizeof(double),
                Fftw<T>::alignment_of(src),
                Fftw<T>::alignment_of(dst),
                in_place,
                e - b,
                DimVector{n},
                in_step,
                out_step};
    std::shared_ptr<CachedPlan> plan = plan_for<T>(key, src, dst);
    Fftw<T>::execute(kind, static_cast<typename Fftw<T>::Plan>(plan->plan), src, dst);
    const int64_t per_row = kind == Kind::C2R ? n : 2 * (kind == Kind::R2C ? n / 2 + 1 : n);
    if (scale != 1.0) {
      // Rows are out_step apart; scale each row's values while they are in cache.
      const T s = static_cast<T>(scale);
      const int64_t step = kind == Kind::C2R ? out_step : 2 * out_step;
      for (int64_t r = 0; r < e - b; ++r) {
        T* o = static_cast<T*>(dst) + r * step;
        for (int64_t i = 0; i < per_row; ++i) o[i] *= s;
      }
    }
  });
}

// One complex 1-D pass, in place, along the middle dim of a contiguous (outer, n, inner) array with inner
// > 1. Blocks of columns are gathered into a contiguous scratch, transformed there and scattered back, as
// pocketfft does: FFTW on the strided columns directly is ~10x slower (a power-of-two stride maps a column
// onto a few cache sets; 1024x1024 complex64 measured 135 ms against 10 ms).
template <typename T>
void column_pass(T* data, int64_t outer, int64_t n, int64_t inner, bool forward) {
  // 16 columns a block, fewer when the columns are long (the scratch stays within ~1M values, or one column)
  // or few.
  const int64_t block = std::clamp<int64_t>((int64_t{1} << 20) / (2 * n), 1, std::min<int64_t>(16, inner));
  const Kind kind = forward ? Kind::C2CForward : Kind::C2CBackward;
  const int64_t blocks = (inner + block - 1) / block;
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / (n * block));
  parallel_for(0, outer * blocks, grain, [&](int64_t b, int64_t e) {
    std::vector<T> scratch(static_cast<size_t>(2 * block * n));
    T* buf = scratch.data();
    std::shared_ptr<CachedPlan> plan;
    int64_t plan_width = 0;
    for (int64_t task = b; task < e; ++task) {
      const int64_t o = task / blocks, j0 = (task % blocks) * block;
      const int64_t w = std::min(block, inner - j0);
      T* base = data + 2 * (o * n * inner + j0);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t c = 0; c < w; ++c) {
          buf[2 * (c * n + i)] = base[2 * (i * inner + c)];
          buf[2 * (c * n + i) + 1] = base[2 * (i * inner + c) + 1];
        }
      if (w != plan_width) {
        PlanKey key{kind,
                    sizeof(T) == sizeof(double),
                    Fftw<T>::alignment_of(buf),
                    Fftw<T>::alignment_of(buf),
                    true,
                    w,
                    DimVector{n},
                    n,
                    n};
        plan = plan_for<T>(key, buf, buf);
        plan_width = w;
      }
      Fftw<T>::execute(kind, static_cast<typename Fftw<T>::Plan>(plan->plan), buf, buf);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t c = 0; c < w; ++c) {
          base[2 * (i * inner + c)] = buf[2 * (c * n + i)];
          base[2 * (i * inner + c) + 1] = buf[2 * (c * n + i) + 1];
        }
    }
  });
}

// Complex passes over dims [first, last) (indices into `shape`, the complex-side sizes of a contiguous
// (batch, n_1, ..., n_k) array), each along one dim with the dims after it as columns.
template <typename T>
void column_passes(T* data, const DimVector& shape, size_t first, size_t last, bool forward) {
  for (size_t axis = first; axis < last; ++axis) {
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < axis; ++i) outer *= shape[i];
    for (size_t i = axis + 1; i < shape.size(); ++i) inner *= shape[i];
    column_pass<T>(data, outer, shape[axis], inner, forward);
  }
}

// A k-dim transform of a (batch, n_1, ..., n_k) tensor as k 1-D passes: the last dim as contiguous rows
// (where r2c/c2r happen), the others as column passes over the complex side.
template <typename T>
void run_transform(Kind kind, const Tensor& in, const Tensor& out, double scale) {
  const Tensor& real_side = kind == Kind::C2R ? out : in;
  const DimVector shape(real_side.sizes());  // (batch, n_1, ..., n_k)
  const size_t k = shape.size() - 1;
  const int64_t n = shape.back();
  DimVector complex_shape = shape;
  complex_shape[k] = kind == Kind::C2CForward || kind == Kind::C2CBackward ? n : n / 2 + 1;
  const int64_t rows = real_side.numel() / std::max<int64_t>(n, 1);
  const int64_t in_step = kind == Kind::C2R ? n / 2 + 1 : n, out_step = kind == Kind::R2C ? n / 2 + 1 : n;
  const bool forward = kind != Kind::C2CBackward && kind != Kind::C2R;
  if (kind == Kind::C2R) {
    // The leading dims first, in place on the input (a scratch copy the front end handed over).
    column_passes<T>(static_cast<T*>(in.data_ptr()), complex_shape, 1, k, false);
    run_rows<T>(kind, in.data_ptr(), out.data_ptr(), rows, n, in_step, out_step, scale);
    return;
  }
  run_rows<T>(kind, in.data_ptr(), out.data_ptr(), rows, n, in_step, out_step, k == 1 ? scale : 1.0);
  if (k > 1) {
    column_passes<T>(static_cast<T*>(out.data_ptr()), complex_shape, 1, k, forward);
    scale_values<T>(static_cast<T*>(out.data_ptr()), 2 * out.numel(), scale);
  }
}

void fftw_c2c(const Tensor& in, const Tensor& out, bool forward, double scale) {
  const Kind kind = forward ? Kind::C2CForward : Kind::C2CBackward;
  if (in.dtype() == DType::Complex64)
    run_transform<float>(kind, in, out, scale);
  else
    run_transform<double>(kind, in, out, scale);
}

void fftw_r2c(const Tensor& in, const Tensor& out, double scale) {
  if (in.dtype() == DType::Float32)
    run_transform<float>(Kind::R2C, in, out, scale);
  else
    run_transform<double>(Kind::R2C, in, out, scale);
}

void fftw_c2r(const Tensor& in, const Tensor& out, double scale) {
  if (out.dtype() == DType::Float32)
    run_transform<float>(Kind::C2R, in, out, scale);
  else
    run_transform<double>(Kind::C2R, in, out, scale);
}

}  // namespace
#endif

void register_fft_cpu_kernels(FftKernels& table) {
#ifdef TANDEM_HAS_FFTW
  table.c2c = &fftw_c2c;
  table.r2c = &fftw_r2c;
  table.c2r = &fftw_c2r;
  table.max_rank = 64;  // FFTW's guru interface takes any rank
  table.library = "FFTW";
#else
  (void)table;
#endif
}

}  // namespace tandem
