// How the CUDA gemm walks a GemmArgs batch: batch dims are merged wherever all three operands allow it, the
// innermost merged dim becomes one batched launch (`count` products at uniform strides, which cuBLAS's
// strided-batched calls and the tiled kernel's z-grid take as they are), and any dims left before it are
// walked on the host. A broadcast operand keeps stride 0; nothing is materialised.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "core/small_vector.h"
#include "kernels/linalg_kernels.h"

namespace tandem::cuda {

// How a rows x cols matrix with element strides (rs, cs) is handed to a column-major BLAS (cuBLAS). With unit
// column stride its memory is the column-major cols x rows matrix with leading dim rs, read as it is
// (`transposed` false: CUBLAS_OP_N); with unit row stride it is the column-major rows x cols matrix with
// leading dim cs, read transposed (CUBLAS_OP_T). cuBLAS rejects a leading dim below the stored matrix's
// row count with CUBLAS_STATUS_INVALID_VALUE even where it never steps by it, so a stride along a size-1 dim
// (which never matters) becomes the smallest valid leading dim. Anything else (no unit stride, a zero
// stride of a broadcast) is not `usable`: gemm_cublas packs it into contiguous scratch first.
struct BlasView {
  bool usable;
  bool transposed;
  int64_t ld;
};
inline BlasView blas_view(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  const int64_t min_row_ld = cols > 1 ? cols : 1, min_col_ld = rows > 1 ? rows : 1;
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= min_row_ld))
    return {true, false, rows == 1 ? min_row_ld : rs};
  if ((rs == 1 || rows == 1) && (cols == 1 || cs >= min_col_ld))
    return {true, true, cols == 1 ? min_col_ld : cs};
  return {false, false, 0};
}

// The leading dim of an m x n output with unit column stride (the column-major n x m matrix out^T): its row
// stride, except for a single row, whose row stride never matters (and may be anything).
inline int64_t blas_ldc(int64_t m, int64_t n, int64_t row_stride) {
  return m == 1 ? (n > 1 ? n : 1) : row_stride;
}

// Element offsets of one batched launch's first product, and the strides between its products.
struct GemmLaunch {
  int64_t a_offset = 0, b_offset = 0, out_offset = 0;
  int64_t count = 1;
  int64_t a_stride = 0, b_stride = 0, out_stride = 0;
};

struct GemmBatchPlan {
  struct Dim {
    int64_t size, a, b, out;
  };
  std::vector<Dim> outer;  // walked on the host, outermost first
  Dim inner{1, 0, 0, 0};   // one launch

  explicit GemmBatchPlan(const GemmArgs& g) {
    std::vector<Dim> dims;
    for (size_t d = 0; d < g.batch_sizes.size(); ++d) {
      const Dim dim{g.batch_sizes[d], g.a.batch_strides[d], g.b.batch_strides[d], g.out.batch_strides[d]};
      if (dim.size == 1) continue;  // its strides never matter
      if (!dims.empty()) {
        Dim& last = dims.back();
        // The outer dim steps exactly over the inner one in every operand: the two are one dim.
        if (last.a == dim.a * dim.size && last.b == dim.b * dim.size && last.out == dim.out * dim.size) {
          last = {last.size * dim.size, dim.a, dim.b, dim.out};
          continue;
        }
      }
      dims.push_back(dim);
    }
    if (!dims.empty()) {
      inner = dims.back();
      dims.pop_back();
    }
    outer = std::move(dims);
  }

  // Calls fn(GemmLaunch) once per index of the outer dims.
  template <typename Fn>
  void for_each_launch(const Fn& fn) const {
    const size_t nd = outer.size();
    DimVector idx(nd, 0);
    int64_t launches = 1;
    for (const Dim& d : outer) launches *= d.size;
    for (int64_t l = 0; l < launches; ++l) {
      GemmLaunch launch{0, 0, 0, inner.size, inner.a, inner.b, inner.out};
      for (size_t d = 0; d < nd; ++d) {
        launch.a_offset += idx[d] * outer[d].a;
        launch.b_offset += idx[d] * outer[d].b;
        launch.out_offset += idx[d] * outer[d].out;
      }
      fn(launch);
      for (size_t d = nd; d-- > 0 && ++idx[d] == outer[d].size;) idx[d] = 0;
    }
  }
};

}  // namespace tandem::cuda
