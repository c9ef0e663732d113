// The batch walk and the cuBLAS operand mapping of the CUDA gemm (kernels/cuda/gemm_plan.h) are host code:
// they are checked here, where they run, the mapping against a host model of what cuBLAS computes and
// accepts.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "kernels/cuda/gemm_plan.h"

namespace tandem::cuda {
namespace {

GemmArgs batched(DimVector sizes, DimVector a, DimVector b, DimVector out) {
  GemmArgs g;
  g.batch_sizes = std::move(sizes);
  g.a.batch_strides = std::move(a);
  g.b.batch_strides = std::move(b);
  g.out.batch_strides = std::move(out);
  return g;
}

std::vector<GemmLaunch> launches(const GemmBatchPlan& plan) {
  std::vector<GemmLaunch> out;
  plan.for_each_launch([&](const GemmLaunch& l) { out.push_back(l); });
  return out;
}

TEST(GemmBatchPlan, SingleProductIsOneLaunch) {
  const auto ls = launches(GemmBatchPlan(batched({}, {}, {}, {})));
  ASSERT_EQ(ls.size(), 1u);
  EXPECT_EQ(ls[0].count, 1);
  EXPECT_EQ(ls[0].a_offset + ls[0].b_offset + ls[0].out_offset, 0);
}

TEST(GemmBatchPlan, ContiguousBatchDimsMergeIntoOneStridedLaunch) {
  // (2, 3) batches of 4x5 @ 5x6 -> 4x6, all contiguous.
  const auto ls = launches(GemmBatchPlan(batched({2, 3}, {60, 20}, {90, 30}, {72, 24})));
  ASSERT_EQ(ls.size(), 1u);
  EXPECT_EQ(ls[0].count, 6);
  EXPECT_EQ(ls[0].a_stride, 20);
  EXPECT_EQ(ls[0].b_stride, 30);
  EXPECT_EQ(ls[0].out_stride, 24);
}

TEST(GemmBatchPlan, BroadcastOperandKeepsStrideZeroAndSizeOneDimsVanish) {
  const auto ls = launches(GemmBatchPlan(batched({1, 4, 1}, {7, 0, 3}, {99, 30, 5}, {88, 24, 2})));
  ASSERT_EQ(ls.size(), 1u);
  EXPECT_EQ(ls[0].count, 4);
  EXPECT_EQ(ls[0].a_stride, 0);
  EXPECT_EQ(ls[0].b_stride, 30);
}

TEST(GemmBatchPlan, UnmergeableDimsAreWalkedOnTheHost) {
  // a broadcast over the inner dim only: (3, 2) cannot merge, so 3 launches of 2 products each.
  const auto ls = launches(GemmBatchPlan(batched({3, 2}, {10, 0}, {40, 20}, {12, 6})));
  ASSERT_EQ(ls.size(), 3u);
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ls[i].count, 2);
    EXPECT_EQ(ls[i].a_offset, 10 * i);
    EXPECT_EQ(ls[i].b_offset, 40 * i);
    EXPECT_EQ(ls[i].out_offset, 12 * i);
    EXPECT_EQ(ls[i].a_stride, 0);
  }
}

TEST(GemmBatchPlan, OuterDimsAreWalkedInOrder) {
  // Three dims, none mergeable (a transposed batch layout): 2*3 launches over the first two, last dim inner.
  const auto ls = launches(GemmBatchPlan(batched({2, 3, 5}, {1, 2, 6}, {15, 5, 1}, {1, 2, 6})));
  ASSERT_EQ(ls.size(), 6u);
  EXPECT_EQ(ls[1].a_offset, 2);   // idx (0, 1)
  EXPECT_EQ(ls[3].a_offset, 1);   // idx (1, 0)
  EXPECT_EQ(ls[5].b_offset, 25);  // idx (1, 2)
  EXPECT_EQ(ls[5].count, 5);
}

// ---- The operand mapping of gemm_cublas (blas_view, blas_ldc), checked against a host model of cuBLAS ----

namespace blas_model {

// A strided tensor of doubles over its own storage: batch dims, then rows and columns.
struct Strided {
  DimVector sizes, strides;
  std::vector<double> storage;
  Strided(DimVector sz, DimVector st, double fill_from) : sizes(std::move(sz)), strides(std::move(st)) {
    int64_t extent = 1;
    for (size_t d = 0; d < sizes.size(); ++d) extent += (sizes[d] - 1) * strides[d];
    storage.resize(static_cast<size_t>(extent));
    // Small integers, so every product and sum below is exact in double.
    for (size_t i = 0; i < storage.size(); ++i) storage[i] = fill_from + static_cast<double>(i % 7) - 3;
  }
  MatrixOperand operand() {
    const size_t nb = sizes.size() - 2;
    MatrixOperand o;
    o.data = storage.data();
    o.row_stride = strides[nb];
    o.col_stride = strides[nb + 1];
    o.batch_strides = DimVector(IntArrayRef(strides).first(nb));
    return o;
  }
};

// One operand as gemm_cublas hands it to cuBLAS: in place through blas_view, or packed into contiguous
// matrices (once for a broadcast operand) exactly as OperandSource::for_launch does.
struct BlasOperand {
  const double* data;
  bool transposed;
  int64_t ld, batch_stride;
  std::vector<double> packed;
};
void operand_for(BlasOperand& o, const MatrixOperand& m, int64_t rows, int64_t cols, int64_t offset,
                 int64_t count, int64_t stride) {
  const double* first = static_cast<const double*>(m.data) + offset;
  const BlasView v = blas_view(rows, cols, m.row_stride, m.col_stride);
  if (v.usable) {
    o = {first, v.transposed, v.ld, stride, {}};
    return;
  }
  const int64_t matrices = stride == 0 ? 1 : count;
  o.packed.assign(static_cast<size_t>(matrices * rows * cols), 0.0);
  for (int64_t b = 0; b < matrices; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        o.packed[static_cast<size_t>((b * rows + r) * cols + c)] =
            first[b * stride + r * m.row_stride + c * m.col_stride];
  o.data = o.packed.data();
  o.transposed = false;
  o.ld = cols > 1 ? cols : 1;
  o.batch_stride = stride == 0 ? 0 : rows * cols;
}

// cublasGemmStridedBatchedEx(transa, transb, M, N, K, 1, A, lda, sA, B, ldb, sB, 0, C, ldc, sC, count) on
// column-major data, after the argument checks that make cuBLAS return CUBLAS_STATUS_INVALID_VALUE.
void column_major_gemm(int64_t M, int64_t N, int64_t K, const BlasOperand& A, const BlasOperand& B, double* C,
                       int64_t ldc, int64_t sc, int64_t count) {
  ASSERT_GE(A.ld, std::max<int64_t>(1, A.transposed ? K : M)) << "lda";
  ASSERT_GE(B.ld, std::max<int64_t>(1, B.transposed ? N : K)) << "ldb";
  ASSERT_GE(ldc, std::max<int64_t>(1, M)) << "ldc";
  for (int64_t z = 0; z < count; ++z)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0;
        for (int64_t p = 0; p < K; ++p) {
          const double a = A.transposed ? A.data[z * A.batch_stride + p + i * A.ld]
                                        : A.data[z * A.batch_stride + i + p * A.ld];
          const double b = B.transposed ? B.data[z * B.batch_stride + j + p * B.ld]
                                        : B.data[z * B.batch_stride + p + j * B.ld];
          s += a * b;
        }
        C[z * sc + i + j * ldc] = s;
      }
}

// Runs gemm_cublas's plan for out = a @ b on the model and compares every output element with the
// row-major definition. Sizes are (batch..., m, k), (batch..., k, n), (batch..., m, n); strides likewise.
void expect_product(const DimVector& batch, int64_t m, int64_t n, int64_t k, const DimVector& a_strides,
                    const DimVector& b_strides, const DimVector& out_strides) {
  auto with = [&](int64_t r, int64_t c) {
    DimVector s = batch;
    s.push_back(r);
    s.push_back(c);
    return s;
  };
  Strided a(with(m, k), a_strides, 1), b(with(k, n), b_strides, 2), out(with(m, n), out_strides, 0);
  const double sentinel = -1000;
  std::fill(out.storage.begin(), out.storage.end(), sentinel);
  GemmArgs g;
  g.dtype = DType::Float64;
  g.batch_sizes = batch;
  g.m = m, g.n = n, g.k = k;
  g.a = a.operand(), g.b = b.operand(), g.out = out.operand();
  const GemmBatchPlan plan(g);
  plan.for_each_launch([&](const GemmLaunch& l) {
    BlasOperand ca, cb;
    // Column-major out^T (n x m) = (b viewed n x k) (a viewed k x m): b is cuBLAS's A, a its B.
    operand_for(cb, g.b, k, n, l.b_offset, l.count, l.b_stride);
    operand_for(ca, g.a, m, k, l.a_offset, l.count, l.a_stride);
    column_major_gemm(n, m, k, cb, ca, out.storage.data() + l.out_offset, blas_ldc(m, n, g.out.row_stride),
                      l.out_stride, l.count);
  });
  const size_t nb = batch.size();
  int64_t batches = 1;
  for (int64_t s : batch) batches *= s;
  DimVector idx(nb, 0);
  for (int64_t q = 0; q < batches; ++q) {
    int64_t ao = 0, bo = 0, oo = 0;
    for (size_t d = 0; d < nb; ++d) {
      ao += idx[d] * a_strides[d];
      bo += idx[d] * b_strides[d];
      oo += idx[d] * out_strides[d];
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t p = 0; p < k; ++p)
          s += a.storage[ao + i * a_strides[nb] + p * a_strides[nb + 1]] *
               b.storage[bo + p * b_strides[nb] + j * b_strides[nb + 1]];
        EXPECT_EQ(out.storage[oo + i * out_strides[nb] + j * out_strides[nb + 1]], s)
            << "batch " << q << " at (" << i << ", " << j << ")";
      }
    for (size_t d = nb; d-- > 0 && ++idx[d] == batch[d];) idx[d] = 0;
  }
}

}  // namespace blas_model

using blas_model::expect_product;

TEST(GemmBlasView, UnitColumnStrideIsReadAsItIsAndUnitRowStrideTransposed) {
  const BlasView rows = blas_view(3, 4, 4, 1);
  EXPECT_TRUE(rows.usable);
  EXPECT_FALSE(rows.transposed);
  EXPECT_EQ(rows.ld, 4);
  const BlasView cols = blas_view(3, 4, 1, 3);
  EXPECT_TRUE(cols.usable);
  EXPECT_TRUE(cols.transposed);
  EXPECT_EQ(cols.ld, 3);
}

TEST(GemmBlasView, StridesOfSizeOneDimsNeverGiveAnInvalidLeadingDim) {
  // A single row whose row stride is 0 (expanded) or smaller than its length: ld is the row length.
  EXPECT_EQ(blas_view(1, 5, 0, 1).ld, 5);
  EXPECT_EQ(blas_view(1, 5, 2, 1).ld, 5);
  // A single column with a strided row walk: read as it is, ld = the row stride.
  const BlasView col = blas_view(4, 1, 3, 0);
  EXPECT_TRUE(col.usable);
  EXPECT_EQ(col.ld, 3);
  // A single row with a column stride: its transpose, ld = the column stride.
  const BlasView row = blas_view(1, 4, 7, 2);
  EXPECT_TRUE(row.usable);
  EXPECT_TRUE(row.transposed);
  EXPECT_EQ(row.ld, 2);
  EXPECT_EQ(blas_view(1, 1, 0, 0).ld, 1);
  EXPECT_EQ(blas_ldc(1, 5, 0), 5);
  EXPECT_EQ(blas_ldc(1, 1, 0), 1);
  EXPECT_EQ(blas_ldc(3, 1, 1), 1);
}

TEST(GemmBlasView, NoUnitStrideOrABroadcastIsPacked) {
  EXPECT_FALSE(blas_view(3, 4, 8, 2).usable);  // every other column
  EXPECT_FALSE(blas_view(3, 4, 0, 1).usable);  // rows broadcast
  EXPECT_FALSE(blas_view(3, 4, 1, 0).usable);  // columns broadcast
  EXPECT_FALSE(blas_view(3, 1, 0, 1).usable);  // a column broadcast from one element
  EXPECT_FALSE(blas_view(3, 4, 1, 2).usable);  // overlapping columns: ld below the row count
}

TEST(GemmCublasModel, ContiguousAndTransposedOperands) {
  expect_product({}, 3, 5, 4, {4, 1}, {5, 1}, {5, 1});
  expect_product({}, 3, 5, 4, {1, 3}, {5, 1}, {5, 1});  // a = a_storage.T
  expect_product({}, 3, 5, 4, {4, 1}, {1, 4}, {5, 1});  // b = b_storage.T
  expect_product({}, 3, 5, 4, {1, 3}, {1, 4}, {5, 1});
}

TEST(GemmCublasModel, NonContiguousOperands) {
  expect_product({}, 3, 5, 4, {10, 1}, {8, 1}, {7, 1});   // column slices of wider matrices
  expect_product({}, 3, 5, 4, {1, 6}, {1, 9}, {5, 1});    // row slices of transposed ones
  expect_product({}, 3, 5, 4, {16, 2}, {12, 2}, {5, 1});  // every other column: packed
  expect_product({}, 3, 5, 4, {0, 1}, {1, 0}, {5, 1});    // broadcast rows / columns: packed
}

TEST(GemmCublasModel, VectorShapedProducts) {
  expect_product({}, 3, 1, 4, {4, 1}, {3, 1}, {1, 1});  // mv with a strided vector
  expect_product({}, 3, 1, 4, {1, 3}, {1, 1}, {1, 1});  // mv with a transposed matrix
  expect_product({}, 1, 1, 4, {4, 2}, {2, 1}, {1, 1});  // dot of strided vectors
  expect_product({}, 1, 5, 4, {0, 1}, {1, 4}, {3, 1});  // one row; out's row stride below n
  expect_product({}, 3, 5, 1, {1, 1}, {5, 1}, {5, 1});  // k == 1 (outer product)
  expect_product({}, 3, 5, 1, {1, 0}, {0, 1}, {5, 1});  // k == 1 with expanded operands
  expect_product({}, 1, 5, 1, {0, 0}, {0, 1}, {5, 1});
}

TEST(GemmCublasModel, BatchedProducts) {
  // Contiguous (2, 3) batch: one strided launch.
  expect_product({2, 3}, 3, 5, 4, {36, 12, 4, 1}, {60, 20, 5, 1}, {45, 15, 5, 1});
  // a broadcast over the whole batch (stride 0), b transposed per matrix.
  expect_product({2, 3}, 3, 5, 4, {0, 0, 4, 1}, {60, 20, 1, 4}, {45, 15, 5, 1});
  // A packed operand broadcast over the inner batch dim only: launches walked on the host, packed once each.
  expect_product({3, 2}, 3, 5, 4, {40, 0, 10, 2}, {40, 20, 1, 4}, {30, 15, 5, 1});
  // A packed operand with a batch stride: every matrix of the launch packed.
  expect_product({4}, 3, 5, 4, {50, 10, 2}, {20, 5, 1}, {15, 5, 1});
  // Batch dim innermost in memory (a permuted batch): batch stride 1.
  expect_product({2}, 3, 5, 4, {1, 8, 2}, {1, 2, 10}, {15, 5, 1});
  // Size-1 batch dims with arbitrary strides, and a batched matrix-vector product.
  expect_product({1, 3, 1}, 3, 1, 4, {99, 12, 7, 4, 1}, {5, 4, 3, 1, 1}, {0, 3, 8, 1, 1});
}

}  // namespace
}  // namespace tandem::cuda
