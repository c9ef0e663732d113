#include <gtest/gtest.h>

#include <numeric>

#include "core/error.h"
#include "kernels/reduce_geometry.h"
#include "ops/reduce.h"
#include "ops/reduce_plan.h"
#include "ops/view.h"

using namespace tandem;

namespace {
// A contiguous float32 tensor holding 0, 1, 2, ...
Tensor iota(IntArrayRef shape) {
  Tensor t = empty(shape, DType::Float32);
  float* p = t.data<float>();
  std::iota(p, p + t.numel(), 0.0f);
  return t;
}
}  // namespace

TEST(ReduceGeometry, MergesContiguousBlocksAndDropsUnitDims) {
  Tensor x = iota(DimVector{2, 1, 3, 4});
  // Reducing the last two dims of a contiguous tensor: one kept dim, one merged reduced dim of 12.
  cpu::ReduceGeometry g = cpu::make_reduce_geometry(x, 2);
  EXPECT_EQ(g.kept_sizes, (DimVector{2}));
  EXPECT_EQ(g.red_sizes, (DimVector{12}));
  EXPECT_EQ(g.red_strides, (DimVector{1}));
  EXPECT_EQ(g.n_out, 2);
  EXPECT_EQ(g.n_red, 12);
}

TEST(ReduceGeometry, OuterDimReductionKeepsStrides) {
  Tensor x = iota(DimVector{5, 7});
  ReducePlan plan = plan_reduction(x, DimVector{0}, false);
  cpu::ReduceGeometry g = cpu::make_reduce_geometry(plan.permuted, plan.n_reduced);
  EXPECT_EQ(g.kept_sizes, (DimVector{7}));
  EXPECT_EQ(g.kept_strides, (DimVector{1}));
  EXPECT_EQ(g.red_sizes, (DimVector{5}));
  EXPECT_EQ(g.red_strides, (DimVector{7}));
}

TEST(ReducePlan, KeepdimShapesAndRepeatedDims) {
  Tensor x = iota(DimVector{2, 3, 4});
  ReducePlan plan = plan_reduction(x, DimVector{-1, 0}, true);
  EXPECT_EQ(plan.result_shape, (DimVector{1, 3, 1}));
  EXPECT_EQ(plan.kept_shape, (DimVector{3}));
  EXPECT_EQ(plan.reduced_numel, 8);
  EXPECT_THROW(plan_reduction(x, DimVector{1, -2}, false), Error);
  EXPECT_THROW(plan_reduction(x, DimVector{3}, false), Error);
}

TEST(Reductions, SumAndArgmaxOverEachDim) {
  Tensor x = iota(DimVector{3, 4});
  Tensor rows = sum(x, DimVector{1});
  EXPECT_FLOAT_EQ(rows.data<float>()[0], 0 + 1 + 2 + 3);
  EXPECT_FLOAT_EQ(rows.data<float>()[2], 8 + 9 + 10 + 11);
  Tensor cols = sum(transpose(x, 0, 1), DimVector{1});  // non-contiguous input
  EXPECT_FLOAT_EQ(cols.data<float>()[1], 1 + 5 + 9);
  EXPECT_EQ(argmax(x, 0).data<int64_t>()[3], 2);
  EXPECT_EQ(argmax(x).data<int64_t>()[0], 11);
  EXPECT_EQ(sum(empty(DimVector{0, 3}, DType::Int32)).dtype(), DType::Int64);
}
