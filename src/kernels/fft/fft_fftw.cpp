// The CPU's FFT slots through FFTW 3 (libfftw3: fftw3f for float32, fftw3 for float64), or nothing when
// tandem is built without it (TANDEM_FFTW=OFF, or no libfftw3-dev: tandem.fft then raises "built without
// FFTW"). Linking FFTW makes a distributed build GPL (docs/fft.md).
//
// Plans: FFTW's planner is not thread-safe, so plans are made (and destroyed) under one mutex and cached by
// kind, precision, shape, batch count and the alignment of the arrays; they are executed with FFTW's
// new-array functions, which are thread-safe, on any arrays with that alignment. FFTW_ESTIMATE plans never
// touch the arrays, so planning needs no scratch copy (FFTW_MEASURE gained little on the benchmark sizes
// for its first-call cost: docs/fft.md). Batches are split over tandem's threads, one plan per chunk size.
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
  int64_t howmany;
  DimVector shape;  // the logical (real-side) transform sizes
  bool operator==(const PlanKey& o) const {
    return kind == o.kind && is_double == o.is_double && in_alignment == o.in_alignment &&
           out_alignment == o.out_alignment && howmany == o.howmany && shape == o.shape;
  }
};
struct PlanKeyHash {
  size_t operator()(const PlanKey& k) const {
    size_t h = static_cast<size_t>(k.kind) * 31 + k.is_double;
    h = h * 131 + static_cast<size_t>(k.in_alignment * 7 + k.out_alignment);
    h = h * 1000003 + static_cast<size_t>(k.howmany);
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
  const fftw_iodim64 batch{key.howmany, compute_numel(in_shape), compute_numel(out_shape)};
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

// Runs `kind` over the batch of contiguous (batch, ...) tensors in/out, chunks of it on tandem's threads.
// `shape` is the logical transform shape; in_step/out_step are the elements of one batch entry.
template <typename T>
void run_batched(Kind kind, const Tensor& in, const Tensor& out, const DimVector& shape, double scale) {
  const int64_t batch = in.size(0);
  const int64_t in_step = batch ? in.numel() / batch : 0, out_step = batch ? out.numel() / batch : 0;
  const bool out_complex = kind != Kind::C2R;
  const size_t in_bytes = in.element_size(), out_bytes = out.element_size();
  char* in_base = static_cast<char*>(in.data_ptr());
  char* out_base = static_cast<char*>(out.data_ptr());
  // A thread gets at least ~64K elements of transforms: below that, splitting costs more than it saves.
  const int64_t work = std::max<int64_t>(1, compute_numel(shape));
  const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / work);
  parallel_for(0, batch, grain, [&](int64_t b, int64_t e) {
    void* src = in_base + static_cast<size_t>(b * in_step) * in_bytes;
    void* dst = out_base + static_cast<size_t>(b * out_step) * out_bytes;
    PlanKey key{
        kind, sizeof(T) == sizeof(double), Fftw<T>::alignment_of(src), Fftw<T>::alignment_of(dst), e - b,
        shape};
    std::shared_ptr<CachedPlan> plan = plan_for<T>(key, src, dst);
    Fftw<T>::execute(kind, static_cast<typename Fftw<T>::Plan>(plan->plan), src, dst);
    if (scale != 1.0) {
      T* o = static_cast<T*>(dst);
      const int64_t count = (e - b) * out_step * (out_complex ? 2 : 1);
      const T s = static_cast<T>(scale);
      for (int64_t i = 0; i < count; ++i) o[i] *= s;
    }
  });
}

// The transform shape of a (batch, n_1, ..., n_rank) tensor.
DimVector transform_shape(const Tensor& t) {
  const auto& s = t.sizes();
  return DimVector(IntArrayRef(s.data() + 1, s.size() - 1));
}

void fftw_c2c(const Tensor& in, const Tensor& out, bool forward, double scale) {
  const Kind kind = forward ? Kind::C2CForward : Kind::C2CBackward;
  if (in.dtype() == DType::Complex64)
    run_batched<float>(kind, in, out, transform_shape(in), scale);
  else
    run_batched<double>(kind, in, out, transform_shape(in), scale);
}

void fftw_r2c(const Tensor& in, const Tensor& out, double scale) {
  if (in.dtype() == DType::Float32)
    run_batched<float>(Kind::R2C, in, out, transform_shape(in), scale);
  else
    run_batched<double>(Kind::R2C, in, out, transform_shape(in), scale);
}

void fftw_c2r(const Tensor& in, const Tensor& out, double scale) {
  if (out.dtype() == DType::Float32)
    run_batched<float>(Kind::C2R, in, out, transform_shape(out), scale);
  else
    run_batched<double>(Kind::C2R, in, out, transform_shape(out), scale);
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
