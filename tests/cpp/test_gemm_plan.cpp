// The batch walk of the CUDA gemm (kernels/cuda/gemm_plan.h) is host code: it is checked here, where it runs.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tandem::cuda
