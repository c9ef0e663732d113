// Matrix products for dtypes BLAS does not cover (integers, float16, bfloat16; complex beyond BLAS's int
// sizes or in a build without BLAS), accumulating as GemmAccumulator says.
#include <algorithm>
#include <vector>

#include "core/parallel.h"
#include "kernels/cpu/gemm_batch.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/gemm_math.h"

TANDEM_CPU_KERNELS_BEGIN

namespace {

// Columns per block: the accumulator row stays in L1 while the inner dim streams past.
constexpr int64_t kColumnBlock = 256;

template <typename T>
void gemm_rows(const GemmArgs& g, const T* a, const T* b, T* out, int64_t row_begin, int64_t row_end) {
  using Acc = GemmAccumulator<T>;
  using A = typename Acc::type;
  const A alpha = Acc::scalar(g.alpha), beta = Acc::scalar(g.beta);
  A acc[kColumnBlock];
  for (int64_t i = row_begin; i < row_end; ++i) {
    const T* arow = a + i * g.a.row_stride;
    T* orow = out + i * g.out.row_stride;
    for (int64_t j0 = 0; j0 < g.n; j0 += kColumnBlock) {
      const int64_t nj = std::min(kColumnBlock, g.n - j0);
      std::fill(acc, acc + nj, A(0));
      for (int64_t p = 0; p < g.k; ++p) {
        const A av = Acc::load(arow[p * g.a.col_stride]);
        const T* brow = b + p * g.b.row_stride + j0 * g.b.col_stride;
        if (g.b.col_stride == 1) {
          for (int64_t j = 0; j < nj; ++j) acc[j] += av * Acc::load(brow[j]);
        } else {
          for (int64_t j = 0; j < nj; ++j) acc[j] += av * Acc::load(brow[j * g.b.col_stride]);
        }
      }
      for (int64_t j = 0; j < nj; ++j) {
        A v = alpha * acc[j];
        if (g.beta != 0) v += beta * Acc::load(orow[j0 + j]);
        orow[j0 + j] = Acc::store(v);
      }
    }
  }
}

}  // namespace

void gemm_loop(const GemmArgs& g) {
  dispatch_dtype_with_complex(g.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, g.n * g.k));
      for_each_batch<T>(g, [&](T* a, T* b, T* out) {
        parallel_for(0, g.m, grain, [&](int64_t r0, int64_t r1) { gemm_rows<T>(g, a, b, out, r0, r1); });
      });
    }
  });
}

TANDEM_CPU_KERNELS_END
