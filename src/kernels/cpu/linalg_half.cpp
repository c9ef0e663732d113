// float16 and bfloat16 matrix products on the CPU. They accumulate in float and round once, as PyTorch's do.
// A matrix-vector product (one row or one column of output: a Linear layer on one token) streams the 16-bit
// matrix once, widening it in registers, so it reads half float32's bytes. A larger product goes to oneDNN's
// matmul primitive where the build and the CPU have one for the dtype (linalg_onednn_half.cpp), else widens
// its operands to float copies, takes float32's BLAS path and rounds the output. The element loop these
// replace (linalg_loop.cpp) read a Linear layer's transposed weight across rows: 10x (one token) to 400x
// (128 tokens) slower than PyTorch (docs/core.md, "Matrix products on the CPU").
#include <algorithm>
#include <vector>

#include "backend/cpu/cpu_allocator.h"
#include "core/parallel.h"
#include "kernels/cpu/gemm_batch.h"
#include "kernels/cpu/half_blocks.h"
#include "kernels/cpu/isa_region.h"
#if TANDEM_HAS_BLAS
#include "kernels/blas_threads.h"
#endif

TANDEM_CPU_KERNELS_BEGIN

namespace {

// Work per task of a parallel loop, in multiply-adds or widened elements: below it a thread costs more than
// it saves.
constexpr int64_t kGrainWork = int64_t{1} << 15;

#if TANDEM_CPU_CAPABILITY_LEVEL >= 1
TANDEM_INLINE float sum_of_lanes(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

// sums[r] = sum_p row_r[p] * x[p] for `Rows` rows `rs` elements apart: x is loaded once for all of them, and
// their independent sums hide the latency of the multiply-adds.
template <int Rows, typename T>
void dot_row_group(const T* row, int64_t rs, const float* x, int64_t k, float* sums) {
  __m256 acc[Rows];
  for (int r = 0; r < Rows; ++r) acc[r] = _mm256_setzero_ps();
  int64_t p = 0;
  for (; p + 8 <= k; p += 8) {
    const __m256 xv = _mm256_loadu_ps(x + p);
    for (int r = 0; r < Rows; ++r) acc[r] = _mm256_fmadd_ps(widen8(row + r * rs + p), xv, acc[r]);
  }
  for (int r = 0; r < Rows; ++r) {
    float sum = sum_of_lanes(acc[r]);
    for (int64_t q = p; q < k; ++q) sum += static_cast<float>(row[r * rs + q]) * x[q];
    sums[r] = sum;
  }
}

template <typename T>
void dot_rows(const T* mat, int64_t rs, int64_t rows, const float* x, int64_t k, float* sums) {
  int64_t i = 0;
  for (; i + 4 <= rows; i += 4) dot_row_group<4>(mat + i * rs, rs, x, k, sums + i);
  for (; i < rows; ++i) dot_row_group<1>(mat + i * rs, rs, x, k, sums + i);
}

// sums[i] = sum_j x[j] * mat[j * cs + i] for i < len (columns contiguous, `cs` elements apart). Four columns
// at a time stream through the L1-resident sums: the matrix is read row after row, as it lies in memory.
template <typename T>
void sum_columns(const T* mat, int64_t cs, const float* x, int64_t cols, int64_t len, float* sums) {
  std::fill(sums, sums + len, 0.0f);
  int64_t j = 0;
  for (; j + 4 <= cols; j += 4) {
    const T *c0 = mat + j * cs, *c1 = c0 + cs, *c2 = c1 + cs, *c3 = c2 + cs;
    const __m256 x0 = _mm256_set1_ps(x[j]), x1 = _mm256_set1_ps(x[j + 1]);
    const __m256 x2 = _mm256_set1_ps(x[j + 2]), x3 = _mm256_set1_ps(x[j + 3]);
    int64_t i = 0;
    for (; i + 8 <= len; i += 8) {
      __m256 acc = _mm256_loadu_ps(sums + i);
      acc = _mm256_fmadd_ps(widen8(c0 + i), x0, acc);
      acc = _mm256_fmadd_ps(widen8(c1 + i), x1, acc);
      acc = _mm256_fmadd_ps(widen8(c2 + i), x2, acc);
      acc = _mm256_fmadd_ps(widen8(c3 + i), x3, acc);
      _mm256_storeu_ps(sums + i, acc);
    }
    for (; i < len; ++i)
      sums[i] += x[j] * static_cast<float>(c0[i]) + x[j + 1] * static_cast<float>(c1[i]) +
                 x[j + 2] * static_cast<float>(c2[i]) + x[j + 3] * static_cast<float>(c3[i]);
  }
  for (; j < cols; ++j)
    for (int64_t i = 0; i < len; ++i) sums[i] += x[j] * static_cast<float>(mat[j * cs + i]);
}
#else
// Partial sums kept side by side: GCC vectorizes a loop over them without reassociating one float sum.
constexpr int kLanes = 64;

template <typename T>
float sum_widened_product(const T* row, const float* x, int64_t k) {
  float lanes[kLanes] = {};
  float block[kHalfBlock];
  for (int64_t p0 = 0; p0 < k; p0 += kHalfBlock) {
    const int64_t len = std::min(kHalfBlock, k - p0);
    widen_halves(row + p0, block, len);
    const float* xp = x + p0;
    int64_t p = 0;
    for (; p + kLanes <= len; p += kLanes)
      for (int j = 0; j < kLanes; ++j) lanes[j] += block[p + j] * xp[p + j];
    for (; p < len; ++p) lanes[0] += block[p] * xp[p];
  }
  float sum = 0.0f;
  for (float v : lanes) sum += v;
  return sum;
}

// sums[r] = sum_p mat[r * rs + p] * x[p] for r < rows.
template <typename T>
void dot_rows(const T* mat, int64_t rs, int64_t rows, const float* x, int64_t k, float* sums) {
  for (int64_t i = 0; i < rows; ++i) sums[i] = sum_widened_product(mat + i * rs, x, k);
}

// sums[i] = sum_j x[j] * mat[j * cs + i] for i < len (columns contiguous, `cs` elements apart).
template <typename T>
void sum_columns(const T* mat, int64_t cs, const float* x, int64_t cols, int64_t len, float* sums) {
  float block[kHalfBlock];
  std::fill(sums, sums + len, 0.0f);
  for (int64_t j = 0; j < cols; ++j) {
    for (int64_t i0 = 0; i0 < len; i0 += kHalfBlock) {
      const int64_t n = std::min(kHalfBlock, len - i0);
      widen_halves(mat + j * cs + i0, block, n);
      for (int64_t i = 0; i < n; ++i) sums[i0 + i] += x[j] * block[i];
    }
  }
}
#endif

// y[i] = alpha * sum_j M[i, j] x[j] + beta * y[i] for a rows x cols matrix M with element strides (rs, cs),
// x with stride incx and y with stride incy. beta == 0 does not read y.
template <typename T>
void matrix_vector(const T* mat, int64_t rows, int64_t cols, int64_t rs, int64_t cs, const T* x, int64_t incx,
                   T* y, int64_t incy, double alpha, double beta, bool threads) {
  std::vector<float> xf(static_cast<size_t>(cols));
  if (incx == 1) {
    widen_halves(x, xf.data(), cols);
  } else {
    for (int64_t j = 0; j < cols; ++j) xf[j] = static_cast<float>(x[j * incx]);
  }
  const auto finish = [&](int64_t i, float acc) {
    float v = static_cast<float>(alpha) * acc;
    if (beta != 0) v += static_cast<float>(beta) * static_cast<float>(y[i * incy]);
    y[i * incy] = static_cast<T>(v);
  };
  const int64_t grain = threads ? std::max<int64_t>(1, kGrainWork / std::max<int64_t>(1, cols)) : rows + 1;
  if (cs == 1 || cols == 1) {  // each output is the dot product of a contiguous row with x
    parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
      float sums[64];
      for (int64_t i0 = r0; i0 < r1; i0 += 64) {
        const int64_t count = std::min<int64_t>(64, r1 - i0);
        dot_rows(mat + i0 * rs, rs, count, xf.data(), cols, sums);
        for (int64_t i = 0; i < count; ++i) finish(i0 + i, sums[i]);
      }
    });
  } else if (rs == 1 || rows == 1) {  // columns are contiguous: add x[j] times column j, for a range of rows
    parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
      float sums[2048];
      for (int64_t i0 = r0; i0 < r1; i0 += 2048) {
        const int64_t count = std::min<int64_t>(2048, r1 - i0);
        sum_columns(mat + i0, cs, xf.data(), cols, count, sums);
        for (int64_t i = 0; i < count; ++i) finish(i0 + i, sums[i]);
      }
    });
  } else {  // neither stride is 1 (a view taking every other element): element by element
    parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
      for (int64_t i = r0; i < r1; ++i) {
        float acc = 0.0f;
        for (int64_t j = 0; j < cols; ++j) acc += static_cast<float>(mat[i * rs + j * cs]) * xf[j];
        finish(i, acc);
      }
    });
  }
}

// One output row or column: out = a @ b as matrix_vector sees it (an output row a_row @ B is B^T a_row).
template <typename T>
void matrix_vector_product(const GemmArgs& g, const T* a, const T* b, T* out, bool threads) {
  if (g.n == 1) {
    matrix_vector<T>(a, g.m, g.k, g.a.row_stride, g.a.col_stride, b, g.b.row_stride, out, g.out.row_stride,
                     g.alpha, g.beta, threads);
  } else {
    matrix_vector<T>(b, g.n, g.k, g.b.col_stride, g.b.row_stride, a, g.a.col_stride, out, 1, g.alpha, g.beta,
                     threads);
  }
}

template <typename T>
void batched_matrix_vector(const GemmArgs& g) {
  int64_t count = 1;
  for (int64_t s : g.batch_sizes) count *= s;
  if (count == 1)
    return matrix_vector_product<T>(g, static_cast<T*>(g.a.data), static_cast<T*>(g.b.data),
                                    static_cast<T*>(g.out.data), true);
  // Several small products (attention over a batch of heads for one token): one product per task.
  const int64_t grain = std::max<int64_t>(1, kGrainWork / std::max<int64_t>(1, g.m * g.n * g.k));
  parallel_for(0, count, grain, [&](int64_t begin, int64_t end) {
    for_batch_range<T>(g, begin, end,
                       [&](T* a, T* b, T* out) { matrix_vector_product<T>(g, a, b, out, false); });
  });
}

#if TANDEM_HAS_BLAS
// n floats of scratch from the caching host allocator (a product's float copies are megabytes: fresh pages
// from malloc would be faulted in on every call), owned by `holder`. Not initialised.
float* float_scratch(DataPtr& holder, int64_t n) {
  holder = cpu_allocate(static_cast<size_t>(std::max<int64_t>(1, n)) * sizeof(float));
  return static_cast<float*>(holder.ptr);
}

// Calls fn(batch element number, offset) for every element of a batch whose operand has `strides` (0 along a
// broadcast dim): each distinct operand matrix once.
template <typename Fn>
void for_each_distinct_matrix(const DimVector& sizes, const DimVector& strides, const Fn& fn) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  DimVector idx(static_cast<size_t>(nd), 0);
  int64_t count = 1;
  for (int64_t d = 0; d < nd; ++d) count *= strides[d] == 0 ? 1 : sizes[d];
  for (int64_t i = 0; i < count; ++i) {
    int64_t offset = 0;
    for (int64_t d = 0; d < nd; ++d) offset += idx[d] * strides[d];
    fn(i, offset);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (strides[d] == 0) continue;
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
}

// A float copy of one operand of a batched product that BLAS reads as it would the original: rows contiguous
// or, for a transposed view, columns contiguous; batch dims packed, a broadcast dim (stride 0) kept at
// stride 0 and copied once.
template <typename T>
MatrixOperand widen_operand(const GemmArgs& g, const MatrixOperand& src, int64_t rows, int64_t cols,
                            DataPtr& holder) {
  const bool by_columns = src.col_stride != 1 && cols > 1 && src.row_stride == 1;
  MatrixOperand dst;
  dst.row_stride = by_columns ? 1 : cols;
  dst.col_stride = by_columns ? rows : 1;
  const int64_t nd = static_cast<int64_t>(g.batch_sizes.size());
  dst.batch_strides = DimVector(static_cast<size_t>(nd), 0);
  int64_t packed = rows * cols;
  for (int64_t d = nd - 1; d >= 0; --d) {
    if (src.batch_strides[d] == 0) continue;
    dst.batch_strides[d] = packed;
    packed *= g.batch_sizes[d];
  }
  float* buffer = float_scratch(holder, packed);
  dst.data = buffer;
  const T* base = static_cast<const T*>(src.data);
  // Runs of `run` elements: rows, or columns of a transposed view; `lines` of them per matrix.
  const int64_t lines = by_columns ? cols : rows, run = by_columns ? rows : cols;
  const int64_t line_stride = by_columns ? src.col_stride : src.row_stride;
  const int64_t step = by_columns ? src.row_stride : src.col_stride;
  for_each_distinct_matrix(g.batch_sizes, src.batch_strides, [&](int64_t i, int64_t offset) {
    const T* from = base + offset;
    float* to = buffer + i * rows * cols;
    const int64_t grain = std::max<int64_t>(1, kGrainWork / std::max<int64_t>(1, run));
    parallel_for(0, lines, grain, [&](int64_t l0, int64_t l1) {
      for (int64_t l = l0; l < l1; ++l) {
        if (step == 1 || run == 1) {
          widen_halves(from + l * line_stride, to + l * run, run);
        } else {
          for (int64_t e = 0; e < run; ++e)
            to[l * run + e] = static_cast<float>(from[l * line_stride + e * step]);
        }
      }
    });
  });
  return dst;
}

#if defined(TANDEM_HAS_ONEDNN)
// Products of at least this many multiply-adds try oneDNN first: creating its primitive takes 3-12 us.
constexpr int64_t kOneDnnHalfGemm = int64_t{1} << 16;
#endif

// out = a @ b for a whose float copy is made (a_wide): b widened, the float product, the output rounded.
template <typename T>
void product_with_wide_a(const GemmArgs& g, const MatrixOperand& a_wide) {
  DataPtr b_buffer, out_buffer;
  GemmArgs wide = g;
  wide.dtype = DType::Float32;
  wide.a = a_wide;
  wide.b = widen_operand<T>(g, g.b, g.k, g.n, b_buffer);
  // The float output: packed rows, each batch element its own matrix. beta != 0 reads the old output.
  const int64_t nd = static_cast<int64_t>(g.batch_sizes.size());
  wide.out.row_stride = g.n;
  wide.out.col_stride = 1;
  wide.out.batch_strides = DimVector(static_cast<size_t>(nd), 0);
  int64_t packed = g.m * g.n;
  for (int64_t d = nd - 1; d >= 0; --d) {
    wide.out.batch_strides[d] = packed;
    packed *= g.batch_sizes[d];
  }
  float* wide_outputs = float_scratch(out_buffer, packed);
  wide.out.data = wide_outputs;
  const int64_t grain = std::max<int64_t>(1, kGrainWork / std::max<int64_t>(1, g.n));
  // Batch element i of the output: the 16-bit one at `out`, the float one at i * m * n.
  const auto rows_of_output = [&](const auto& fn) {
    int64_t i = 0;
    for_each_batch<T>(g, [&](T*, T*, T* out) {
      float* wide_out = wide_outputs + (i++) * g.m * g.n;
      parallel_for(0, g.m, grain, [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) fn(out + r * g.out.row_stride, wide_out + r * g.n);
      });
    });
  };
  if (g.beta != 0) rows_of_output([&](const T* row, float* wide_row) { widen_halves(row, wide_row, g.n); });
  gemm_blas(wide);
  rows_of_output([&](T* row, const float* wide_row) { narrow_to_halves(wide_row, row, g.n); });
}

// Bytes of b's float copy that one product widens at a time: about an L2 cache, so the copy is read back
// from cache by the product rather than written to memory and read again.
constexpr int64_t kWidePanelBytes = int64_t{1} << 20;

template <typename T>
void product_through_float(const GemmArgs& g) {
#if defined(TANDEM_HAS_ONEDNN)
  if (g.m * g.n * g.k >= kOneDnnHalfGemm && onednn_half_gemm(g)) return;
#endif
  DataPtr a_buffer;
  const MatrixOperand a_wide = widen_operand<T>(g, g.a, g.m, g.k, a_buffer);
  // A single product with a wide b (a Linear layer's weight: 768 x 3072) runs panel by panel of b's columns:
  // b's whole float copy cost twice b's bytes of memory traffic on top of the product.
  int64_t batch = 1;
  for (int64_t s : g.batch_sizes) batch *= s;
  const int64_t panel = std::max<int64_t>(
      64, kWidePanelBytes / static_cast<int64_t>(sizeof(float)) / std::max<int64_t>(1, g.k) / 64 * 64);
  if (batch != 1 || g.n <= 2 * panel) return product_with_wide_a<T>(g, a_wide);
  const auto product_of_panel = [&](int64_t j0) {
    GemmArgs part = g;
    part.n = std::min(panel, g.n - j0);
    part.b.data = static_cast<T*>(g.b.data) + j0 * g.b.col_stride;
    part.out.data = static_cast<T*>(g.out.data) + j0 * g.out.col_stride;
    product_with_wide_a<T>(part, a_wide);
  };
  const int64_t panels = (g.n + panel - 1) / panel;
  if (get_num_threads() > 1) {
    // One panel's product (128 x 768 x 320 for a Linear layer's weight) is too small for BLAS's own threads
    // to gain: it took as long on 2 threads as on 1. tandem's threads take whole panels instead, each
    // widening, multiplying and rounding its own (the parallel loops inside run inline). BLAS is told one
    // thread before the region, so no worker changes OpenBLAS's count while another calls it.
    blas_threads::single();
    parallel_for(0, panels, 1, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) product_of_panel(p * panel);
    });
    return;
  }
  for (int64_t p = 0; p < panels; ++p) product_of_panel(p * panel);
}
#endif

template <typename T>
void half_product(const GemmArgs& g) {
  if (g.m == 1 || g.n == 1) return batched_matrix_vector<T>(g);
#if TANDEM_HAS_BLAS
  product_through_float<T>(g);
#else
  gemm_loop(g);
#endif
}

}  // namespace

void gemm_half(const GemmArgs& g) {
  if (g.dtype == DType::Float16) return half_product<Half>(g);
  half_product<BFloat16>(g);
}

TANDEM_CPU_KERNELS_END
