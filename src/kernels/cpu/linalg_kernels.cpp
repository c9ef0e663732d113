// CPU kernels of the linalg family: gemm routes float32/float64 to OpenBLAS (when the build found it),
// float16/bfloat16 to linalg_half.cpp and other dtypes to a loop.
#include <climits>

#include "kernels/cpu/cpu_kernels.h"
#include "kernels/cpu/gemm_batch.h"
#include "kernels/cpu/isa_region.h"
#include "kernels/gemm_math.h"
#include "kernels/kernel_table.h"

TANDEM_CPU_KERNELS_BEGIN

namespace {

// A product over an empty inner dim, or scaled by alpha == 0, is beta * out.
void scale_output(const GemmArgs& g) {
  dispatch_dtype_with_complex(g.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for_each_batch<T>(g, [&](T*, T*, T* out) {
      for (int64_t i = 0; i < g.m; ++i) {
        T* row = out + i * g.out.row_stride;
        for (int64_t j = 0; j < g.n; ++j) row[j] = scale_by_beta(row[j], g.beta);
      }
    });
  });
}

bool fits_blas(const GemmArgs& g) {
  return g.m <= INT_MAX && g.n <= INT_MAX && g.k <= INT_MAX && g.out.row_stride <= INT_MAX;
}

void gemm(const GemmArgs& g) {
  if (g.m == 0 || g.n == 0) return;
  for (int64_t s : g.batch_sizes)
    if (s == 0) return;
  // alpha == 0 leaves beta * out: a and b are not read (NaN in them does not propagate), as in BLAS's
  // definition and PyTorch's addmm/addmv/addbmm.
  if (g.k == 0 || g.alpha == 0) return scale_output(g);
  if (g.dtype == DType::Float16 || g.dtype == DType::BFloat16) return gemm_half(g);
#if TANDEM_HAS_BLAS
  if (g.dtype == DType::Float32 || g.dtype == DType::Float64) return gemm_blas(g);
  if (is_complex(g.dtype) && fits_blas(g)) return gemm_blas_complex(g);
#endif
  gemm_loop(g);
}

}  // namespace

void register_linalg_kernels(KernelTable& table) { table.linalg.gemm = &gemm; }

TANDEM_CPU_KERNELS_END
