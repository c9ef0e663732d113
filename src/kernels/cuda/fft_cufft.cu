// The CUDA FFT slots through cuFFT: one batched plan per (device, kind, precision, shape, batch), cached per
// thread (a plan carries its stream and work area, so threads do not share them), executed on the calling
// thread's current stream with its work area from the caching allocator (freed in stream order). The
// front end hands contiguous (batch, n_1, ..., n_rank) tensors, cuFFT's basic layout; rank <= 3.
#include <cufft.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "core/error.h"
#include "kernels/cuda/flat_launch.cuh"
#include "kernels/fft_kernels.h"

namespace tandem::cuda {

namespace {

void check(cufftResult r, const char* what) {
  TANDEM_CHECK(r == CUFFT_SUCCESS, Runtime, "cuFFT error ", static_cast<int>(r), " in ", what);
}

enum class Kind : uint8_t { C2C, R2C, C2R };

struct PlanKey {
  int device;
  Kind kind;
  bool is_double;
  int64_t batch;
  DimVector shape;  // the logical (real-side) transform sizes
  bool operator==(const PlanKey& o) const {
    return device == o.device && kind == o.kind && is_double == o.is_double && batch == o.batch &&
           shape == o.shape;
  }
};
struct PlanKeyHash {
  size_t operator()(const PlanKey& k) const {
    size_t h = static_cast<size_t>(k.device) * 31 + static_cast<size_t>(k.kind) * 7 + k.is_double;
    h = h * 1000003 + static_cast<size_t>(k.batch);
    for (int64_t s : k.shape) h = h * 1000003 + static_cast<size_t>(s);
    return h;
  }
};

struct Plan {
  cufftHandle handle = 0;
  size_t work_bytes = 0;
  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() {
    if (handle) cufftDestroy(handle);
  }
};

// Enough plans for a program's shapes; past this a thread's cache starts over.
constexpr size_t kMaxCachedPlans = 64;

cufftType type_of(Kind kind, bool is_double) {
  switch (kind) {
    case Kind::C2C:
      return is_double ? CUFFT_Z2Z : CUFFT_C2C;
    case Kind::R2C:
      return is_double ? CUFFT_D2Z : CUFFT_R2C;
    default:
      return is_double ? CUFFT_Z2D : CUFFT_C2R;
  }
}

// The calling thread's plan for `key` (made on the current device, which the caller's guard has set).
Plan& plan_for(const PlanKey& key) {
  thread_local std::unordered_map<PlanKey, std::unique_ptr<Plan>, PlanKeyHash> cache;
  auto it = cache.find(key);
  if (it != cache.end()) return *it->second;
  if (cache.size() >= kMaxCachedPlans) cache.clear();
  auto plan = std::make_unique<Plan>();
  check(cufftCreate(&plan->handle), "cufftCreate");
  check(cufftSetAutoAllocation(plan->handle, 0), "cufftSetAutoAllocation");
  std::vector<long long> n(key.shape.begin(), key.shape.end());
  // Null embeds: cuFFT's basic layout, i.e. contiguous transforms (the r2c/c2r complex side n / 2 + 1 long
  // in the last dim), consecutive in the batch.
  check(cufftMakePlanMany64(plan->handle, static_cast<int>(n.size()), n.data(), nullptr, 1, 0, nullptr, 1, 0,
                            type_of(key.kind, key.is_double), key.batch, &plan->work_bytes),
        "cufftMakePlanMany64");
  return *cache.emplace(key, std::move(plan)).first->second;
}

template <typename T>
__global__ void scale_kernel(T* data, int64_t count, T scale) {
  for (int64_t i = flat_begin(); i < count; i += flat_stride()) data[i] *= scale;
}

void run(Kind kind, const Tensor& in, const Tensor& out, bool forward, double scale) {
  const Device device = in.device();
  DeviceGuard guard(device);
  cudaStream_t stream = current_stream(device);
  const Tensor& real_side = kind == Kind::C2R ? out : in;
  const bool is_double = in.dtype() == DType::Float64 || in.dtype() == DType::Complex128;
  const auto& sizes = real_side.sizes();
  PlanKey key{device.index, kind, is_double, sizes[0],
              DimVector(std::span<const int64_t>(sizes.data() + 1, sizes.size() - 1))};
  Plan& plan = plan_for(key);
  DataPtr work = allocate_scratch(std::max<size_t>(plan.work_bytes, 1), device);  // never a null area
  check(cufftSetWorkArea(plan.handle, work.ptr), "cufftSetWorkArea");
  check(cufftSetStream(plan.handle, stream), "cufftSetStream");
  void* src = in.data_ptr();
  void* dst = out.data_ptr();
  const int direction = forward ? CUFFT_FORWARD : CUFFT_INVERSE;
  switch (type_of(kind, is_double)) {
    case CUFFT_C2C:
      check(cufftExecC2C(plan.handle, static_cast<cufftComplex*>(src), static_cast<cufftComplex*>(dst),
                         direction),
            "cufftExecC2C");
      break;
    case CUFFT_Z2Z:
      check(cufftExecZ2Z(plan.handle, static_cast<cufftDoubleComplex*>(src),
                         static_cast<cufftDoubleComplex*>(dst), direction),
            "cufftExecZ2Z");
      break;
    case CUFFT_R2C:
      check(cufftExecR2C(plan.handle, static_cast<cufftReal*>(src), static_cast<cufftComplex*>(dst)),
            "cufftExecR2C");
      break;
    case CUFFT_D2Z:
      check(cufftExecD2Z(plan.handle, static_cast<cufftDoubleReal*>(src),
                         static_cast<cufftDoubleComplex*>(dst)),
            "cufftExecD2Z");
      break;
    case CUFFT_C2R:
      check(cufftExecC2R(plan.handle, static_cast<cufftComplex*>(src), static_cast<cufftReal*>(dst)),
            "cufftExecC2R");
      break;
    default:
      check(cufftExecZ2D(plan.handle, static_cast<cufftDoubleComplex*>(src),
                         static_cast<cufftDoubleReal*>(dst)),
            "cufftExecZ2D");
      break;
  }
  if (scale != 1.0) {
    // The normalization, as one pass over the output's real numbers (cuFFT has no scaling of its own).
    const int64_t count = out.numel() * (kind == Kind::C2R ? 1 : 2);
    if (is_double) {
      scale_kernel<double>
          <<<flat_blocks(count), kFlatBlock, 0, stream>>>(static_cast<double*>(dst), count, scale);
    } else {
      scale_kernel<float><<<flat_blocks(count), kFlatBlock, 0, stream>>>(static_cast<float*>(dst), count,
                                                                         static_cast<float>(scale));
    }
    TANDEM_CUDA_CHECK_LAUNCH();
  }
}

void cufft_c2c(const Tensor& in, const Tensor& out, bool forward, double scale) {
  run(Kind::C2C, in, out, forward, scale);
}
void cufft_r2c(const Tensor& in, const Tensor& out, double scale) { run(Kind::R2C, in, out, true, scale); }
void cufft_c2r(const Tensor& in, const Tensor& out, double scale) { run(Kind::C2R, in, out, false, scale); }

}  // namespace

void register_fft_cufft_kernels(FftKernels& table) {
  table.c2c = &cufft_c2c;
  table.r2c = &cufft_r2c;
  table.c2r = &cufft_c2r;
  table.max_rank = 3;  // cuFFT plans transform at most three dims
  table.library = "cuFFT";
}

}  // namespace tandem::cuda
