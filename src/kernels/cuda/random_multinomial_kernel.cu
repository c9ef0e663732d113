// CUDA kernel of multinomial, with the CPU kernel's algorithm and numbers (multinomial_kernel.cpp): the same
// row checks, the inverse CDF summed in the same order with replacement, and without replacement the
// exponential race, ordered by (key, category) through two stable sorts.
#include <cmath>

#include "backend/transfer.h"
#include "kernels/cuda/random_launch.cuh"
#include "kernels/cuda/random_parts.h"
#include "kernels/kernel_table.h"

namespace tandem::cuda {
namespace {

constexpr unsigned long long kNoBadRow = ~0ull;

// One thread per row, summing in the CPU's order. The first row (by index) with a problem decides the
// status, as in the CPU's row-by-row scan: *first_bad gets min(row * 4 + status).
__global__ void check_rows_kernel(const double* p, int64_t rows, int64_t k, unsigned long long* first_bad) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows; r += step) {
    unsigned status = 0;
    double sum = 0;
    for (int64_t j = 0; j < k; ++j) {
      double w = p[r * k + j];
      if (!(w >= 0) || isinf(w)) {
        status = static_cast<unsigned>(MultinomialStatus::kBadProbability);
        break;
      }
      sum += w;
    }
    if (status == 0 && !(sum > 0)) status = static_cast<unsigned>(MultinomialStatus::kZeroSum);
    if (status) atomicMin(first_bad, static_cast<unsigned long long>(r) * 4 + status);
  }
}

MultinomialStatus check_rows(const double* p, int64_t rows, int64_t k, Device device, cudaStream_t stream) {
  DataPtr flag = allocate_scratch(sizeof(unsigned long long), device);
  auto* first_bad = static_cast<unsigned long long*>(flag.ptr);
  TANDEM_CUDA_CHECK(cudaMemsetAsync(first_bad, 0xff, sizeof(unsigned long long), stream));
  check_rows_kernel<<<random_grid(rows), kRandomThreads, 0, stream>>>(p, rows, k, first_bad);
  TANDEM_CUDA_CHECK_LAUNCH();
  unsigned long long host = kNoBadRow;
  copy_device_to_host(&host, first_bad, device, sizeof host);
  return host == kNoBadRow ? MultinomialStatus::kOk : static_cast<MultinomialStatus>(host % 4);
}

// Running sums of each row, one thread per row in the CPU's order (so the same doubles).
__global__ void cumulative_kernel(const double* p, int64_t rows, int64_t k, double* cum) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows; r += step) {
    double run = 0;
    for (int64_t j = 0; j < k; ++j) cum[r * k + j] = run += p[r * k + j];
  }
}

// Sample s of row r: the first category whose running sum exceeds u * total (std::upper_bound).
__global__ void inverse_cdf_kernel(const double* cum, const double* u, int64_t rows, int64_t k,
                                   int64_t samples, int64_t* out) {
  const int64_t n = rows * samples;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const double* row = cum + (i / samples) * k;
    const double target = u[i] * row[k - 1];
    int64_t lo = 0, hi = k;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (target < row[mid])
        hi = mid;
      else
        lo = mid + 1;
    }
    out[i] = lo < k - 1 ? lo : k - 1;
  }
}

// The race key's bits: keys are positive (or +inf), so their bit patterns sort like the doubles.
struct StoreRaceKey {
  uint64_t* keys;
  const double* p;
  __device__ TANDEM_INLINE void operator()(int64_t i, double u) const {
    keys[i] = static_cast<uint64_t>(__double_as_longlong(exponential_race_key(u, p[i])));
  }
};

__global__ void row_of_kernel(const int64_t* flat, int64_t n, int64_t k, uint64_t* rows) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    rows[i] = static_cast<uint64_t>(flat[i] / k);
}

// The first `samples` finishers of each row, as category indices.
__global__ void first_finishers_kernel(const int64_t* order, int64_t rows, int64_t k, int64_t samples,
                                       int64_t* out) {
  const int64_t n = rows * samples;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const int64_t r = i / samples, s = i - r * samples;
    out[i] = order[r * k + s] - r * k;
  }
}

void without_replacement(const double* p, int64_t rows, int64_t k, int64_t samples, PhiloxState state,
                         int64_t* out, Device device, cudaStream_t stream) {
  const int64_t n = rows * k;
  const size_t bytes = static_cast<size_t>(n) * sizeof(uint64_t);
  DataPtr keys = allocate_scratch(2 * bytes, device), values = allocate_scratch(2 * bytes, device);
  uint64_t* key_a = static_cast<uint64_t*>(keys.ptr);
  uint64_t* key_b = key_a + n;
  int64_t* val_a = static_cast<int64_t*>(values.ptr);
  int64_t* val_b = val_a + n;
  launch_draw(device, state, n, OpenUniform32Dist{}, StoreRaceKey{key_a, p});
  fill_iota(val_a, n, stream);
  // By key over the flat index order (ties by category), then stably by row: (row, key, category) order.
  sort_pairs(key_a, key_b, val_a, val_b, n, 64, device, stream);
  const int64_t* order = val_b;
  if (rows > 1) {
    row_of_kernel<<<random_grid(n), kRandomThreads, 0, stream>>>(val_b, n, k, key_a);
    TANDEM_CUDA_CHECK_LAUNCH();
    int row_bits = 1;
    while (row_bits < 63 && (int64_t{1} << row_bits) < rows) ++row_bits;
    sort_pairs(key_a, key_b, val_b, val_a, n, row_bits, device, stream);
    order = val_a;
  }
  first_finishers_kernel<<<random_grid(rows * samples), kRandomThreads, 0, stream>>>(order, rows, k, samples,
                                                                                     out);
  TANDEM_CUDA_CHECK_LAUNCH();
}

void with_replacement(const double* p, int64_t rows, int64_t k, int64_t samples, PhiloxState state,
                      int64_t* out, Device device, cudaStream_t stream) {
  DataPtr cum = allocate_scratch(static_cast<size_t>(rows * k) * sizeof(double), device);
  DataPtr u = allocate_scratch(static_cast<size_t>(rows * samples) * sizeof(double), device);
  auto* cum_p = static_cast<double*>(cum.ptr);
  auto* u_p = static_cast<double*>(u.ptr);
  launch_draw(device, state, rows * samples, Uniform32Dist{}, StoreConverted<double>{u_p});
  cumulative_kernel<<<random_grid(rows), kRandomThreads, 0, stream>>>(p, rows, k, cum_p);
  TANDEM_CUDA_CHECK_LAUNCH();
  inverse_cdf_kernel<<<random_grid(rows * samples), kRandomThreads, 0, stream>>>(cum_p, u_p, rows, k, samples,
                                                                                 out);
  TANDEM_CUDA_CHECK_LAUNCH();
}

MultinomialStatus multinomial_kernel(const Tensor& out, const Tensor& probs, bool replacement,
                                     PhiloxState state) {
  const int64_t rows = probs.dim() == 2 ? probs.size(0) : 1, k = probs.size(-1), samples = out.size(-1);
  if (rows == 0) return MultinomialStatus::kOk;
  const Device device = out.device();
  DeviceGuard guard(device);
  cudaStream_t stream = current_stream(device);
  const double* p = probs.data<double>();
  if (MultinomialStatus s = check_rows(p, rows, k, device, stream); s != MultinomialStatus::kOk) return s;
  if (samples == 0) return MultinomialStatus::kOk;
  if (replacement)
    with_replacement(p, rows, k, samples, state, out.data<int64_t>(), device, stream);
  else
    without_replacement(p, rows, k, samples, state, out.data<int64_t>(), device, stream);
  return MultinomialStatus::kOk;
}

}  // namespace

void register_multinomial_kernel(KernelTable& table) { table.random.multinomial = multinomial_kernel; }

}  // namespace tandem::cuda
