// The host/device index arithmetic and launch shapes of the CUDA reduce and index kernels, checked on the
// CPU (the kernels themselves only run on a GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "kernels/cuda/reduce_config.h"
#include "kernels/cuda/sort_keys.h"
#include "kernels/cuda/strided_offsets.h"
#include "ops/view.h"

using namespace tandem;
using namespace tandem::cuda;

namespace {

Tensor iota(IntArrayRef shape) {
  Tensor t = empty(shape, DType::Int64);
  int64_t* p = t.data<int64_t>();
  std::iota(p, p + t.numel(), int64_t(0));
  return t;
}

// Element offsets of every element of t in row-major order, walked dim by dim.
std::vector<int64_t> walk(const Tensor& t) {
  std::vector<int64_t> out;
  DimVector idx(static_cast<size_t>(t.dim()), 0);
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t off = 0;
    for (int64_t d = 0; d < t.dim(); ++d) off += idx[d] * t.strides()[d];
    out.push_back(off);
    for (int64_t d = t.dim() - 1; d >= 0 && ++idx[d] == t.sizes()[d]; --d) idx[d] = 0;
  }
  return out;
}

}  // namespace

TEST(CudaStridedOffsets, MergesContiguousDimsAndDropsUnitDims) {
  Tensor x = iota(DimVector{2, 1, 3, 4});
  StridedOffsets o = merged_offsets(x.sizes().data(), x.strides().data(), x.dim());
  EXPECT_EQ(o.ndim, 1);
  EXPECT_EQ(o.sizes[0], 24);
  EXPECT_EQ(o.strides[0], 1);
  StridedOffsets none = merged_offsets(nullptr, nullptr, 0);
  EXPECT_EQ(none(0), 0);
}

TEST(CudaStridedOffsets, MatchesRowMajorWalkOfPermutedAndSlicedViews) {
  Tensor x = iota(DimVector{3, 4, 5, 2});
  for (const Tensor& v : {permute(x, DimVector{2, 0, 3, 1}), transpose(x, 1, 2), select(x, 2, 3),
                          narrow(permute(x, DimVector{3, 1, 0, 2}), 2, 1, 2)}) {
    StridedOffsets o = merged_offsets(v.sizes().data(), v.strides().data(), v.dim());
    std::vector<int64_t> expected = walk(v);
    for (int64_t i = 0; i < v.numel(); ++i) EXPECT_EQ(o(i), expected[static_cast<size_t>(i)]) << i;
  }
}

TEST(CudaStridedOffsets, RejectsMoreDimsThanKernelsTake) {
  DimVector sizes(kMaxDims + 1, 2), strides(kMaxDims + 1, 3);  // stride 3 everywhere: nothing merges
  EXPECT_THROW(merged_offsets(sizes.data(), strides.data(), kMaxDims + 1), Error);
}

TEST(CudaIndexGeometry, GathersAlongADimWithNegativeIndices) {
  // other[i, j] = self[i, index[j]] for a 3x4 self and index [3, -4, 1] (as index_select(self, 1, index)).
  Tensor self = iota(DimVector{3, 4});
  std::vector<int64_t> index = {3, -4, 1};
  IndexPlan plan;
  plan.shape = DimVector{3, 3};
  plan.self_strides = DimVector{4, 0};
  plan.other_strides = DimVector{3, 1};
  plan.indices.push_back(IndexOperand{index.data(), DimVector{0, 1}, 4, 1});
  IndexGeometry<1> g = make_index_geometry<1>(plan);
  const int64_t* s = self.data<int64_t>();
  for (int64_t i = 0; i < 9; ++i) {
    int64_t so, oo;
    g.offsets(i, so, oo);
    EXPECT_EQ(oo, i);
    int64_t col = index[static_cast<size_t>(i % 3)];
    EXPECT_EQ(s[so], (i / 3) * 4 + (col < 0 ? col + 4 : col));
  }
}

TEST(CudaIndexGeometry, CombinesSeveralIndexOperands) {
  // other[i] = self[rows[i], cols[i]] (advanced indexing x[rows, cols]) on a 4x5 self.
  std::vector<int64_t> rows = {0, 3, -1}, cols = {4, 0, 2};
  IndexPlan plan;
  plan.shape = DimVector{3};
  plan.self_strides = DimVector{0};
  plan.other_strides = DimVector{1};
  plan.indices.push_back(IndexOperand{rows.data(), DimVector{1}, 4, 5});
  plan.indices.push_back(IndexOperand{cols.data(), DimVector{1}, 5, 1});
  IndexGeometry<kMaxDims> g = make_index_geometry<kMaxDims>(plan);
  const int64_t expected[3] = {4, 15, 17};
  for (int64_t i = 0; i < 3; ++i) {
    int64_t so, oo;
    g.offsets(i, so, oo);
    EXPECT_EQ(so, expected[i]);
    EXPECT_EQ(oo, i);
  }
}

namespace {

// Every config must cover [0, n_red) with its slices, use whole warps when shuffling, and fit CUDA's limits.
void expect_valid(const ReduceConfig& c, int64_t n_out, int64_t n_red) {
  EXPECT_LE(c.block_x * c.block_y, kReduceThreads);
  if (c.x_is_reduce) {
    EXPECT_EQ(c.block_x * c.block_y, kReduceThreads);
  }
  EXPECT_LE(c.grid_y, kMaxGridY);
  EXPECT_EQ(c.red_chunk % c.vector, 0);
  EXPECT_GE(c.grid_y * c.red_chunk, n_red);
  if (n_red) {
    EXPECT_LT((c.grid_y - 1) * c.red_chunk, n_red);
  }
  EXPECT_GE(c.grid_x * (c.x_is_reduce ? c.block_y : c.block_x), n_out);
}

StridedOffsets dims(std::initializer_list<int64_t> sizes, std::initializer_list<int64_t> strides) {
  DimVector s(sizes), t(strides);
  return merged_offsets(s.data(), t.data(), static_cast<int64_t>(s.size()));
}

}  // namespace

TEST(CudaReduceConfig, RowReductionsUseVectorLoadsAlongTheRow) {
  // sum(dim=-1) of a contiguous 4096 x 4096 float tensor.
  ReduceConfig c =
      choose_reduce_config(dims({4096}, {4096}), dims({4096}, {1}), 4096, 4096, 4, 132, true, true);
  EXPECT_TRUE(c.x_is_reduce);
  EXPECT_TRUE(c.vectorized);
  EXPECT_EQ(c.vector, 4);
  EXPECT_EQ(c.grid_y, 1);
  expect_valid(c, 4096, 4096);
}

TEST(CudaReduceConfig, ColumnReductionsPutNeighbouringOutputsOnNeighbouringThreads) {
  // sum(dim=0) of a contiguous 4096 x 1000 float tensor: kept stride 1, reduced stride 1000.
  ReduceConfig c =
      choose_reduce_config(dims({1000}, {1}), dims({4096}, {1000}), 1000, 4096, 4, 132, true, true);
  EXPECT_FALSE(c.x_is_reduce);
  EXPECT_FALSE(c.vectorized);
  EXPECT_EQ(c.block_x, 32);
  expect_valid(c, 1000, 4096);
}

TEST(CudaReduceConfig, WholeTensorReductionsSplitOverBlocks) {
  const int64_t n = int64_t(1) << 26;  // 256 MiB of float
  ReduceConfig c = choose_reduce_config(dims({}, {}), dims({n}, {1}), 1, n, 4, 132, true, true);
  EXPECT_TRUE(c.x_is_reduce);
  EXPECT_EQ(c.block_x, kReduceThreads);
  EXPECT_GT(c.grid_y, 132);
  expect_valid(c, 1, n);
  ReduceConfig second =
      choose_reduce_config(dims({}, {}), dims({c.grid_y}, {1}), 1, c.grid_y, 8, 132, false, false);
  EXPECT_EQ(second.grid_y, 1);
  expect_valid(second, 1, c.grid_y);
}

TEST(CudaReduceConfig, SeveralWarpsPerOutputComeInWholeWarpsWithSeveralOutputsPerBlock) {
  // sum(dim=-1) of a contiguous 4096 x 1000 float tensor: 64 threads (two warps) fold each row and a block
  // holds eight rows, so the kernel's cross-warp step (combine_in_block) must keep rows apart. It relies on
  // block_x being a multiple of 32 whenever it exceeds a warp, so that no warp straddles two rows.
  ReduceConfig c =
      choose_reduce_config(dims({4096}, {1000}), dims({1000}, {1}), 4096, 1000, 4, 132, true, true);
  EXPECT_TRUE(c.x_is_reduce);
  EXPECT_EQ(c.block_x, 64);
  EXPECT_EQ(c.block_y, 8);
  for (int64_t n_red = 1; n_red < 100000; n_red = n_red * 3 + 1) {
    for (int64_t elem : {1, 2, 4, 8}) {
      ReduceConfig r =
          choose_reduce_config(dims({64}, {n_red}), dims({n_red}, {1}), 64, n_red, elem, 132, true, true);
      if (r.block_x > 32) {
        EXPECT_EQ(r.block_x % 32, 0) << n_red << " " << elem;
      }
    }
  }
}

TEST(CudaReduceConfig, CoversOddShapes) {
  for (int64_t n_red : {0, 1, 3, 31, 33, 1000, 100003}) {
    for (int64_t n_out : {1, 2, 7, 5000}) {
      expect_valid(
          choose_reduce_config(dims({n_out}, {n_red}), dims({n_red}, {1}), n_out, n_red, 2, 8, true, true),
          n_out, n_red);
      expect_valid(
          choose_reduce_config(dims({n_out}, {1}), dims({n_red}, {n_out}), n_out, n_red, 8, 8, true, true),
          n_out, n_red);
      expect_valid(
          choose_reduce_config(dims({n_out}, {3}), dims({n_red}, {7}), n_out, n_red, 1, 8, true, true), n_out,
          n_red);
    }
  }
}

namespace {

// The CPU sort's order (kernels/cpu/reduce_scan_sort_kernels.cpp): NaN largest, ties by position.
template <typename T>
bool cpu_before(T a, T c, int64_t ia, int64_t ic, bool descending) {
  using V = opmath_t<T>;
  V x = static_cast<V>(a), y = static_cast<V>(c);
  bool xn = x != x, yn = y != y;
  if (xn || yn) return xn != yn ? (descending ? xn : yn) : ia < ic;
  if (x != y) return descending ? x > y : x < y;
  return ia < ic;
}

template <typename T>
void expect_key_order(const std::vector<T>& values) {
  for (bool descending : {false, true}) {
    std::vector<int64_t> by_cpu(values.size()), by_key(values.size());
    std::iota(by_cpu.begin(), by_cpu.end(), 0);
    std::iota(by_key.begin(), by_key.end(), 0);
    std::sort(by_cpu.begin(), by_cpu.end(),
              [&](int64_t a, int64_t c) { return cpu_before(values[a], values[c], a, c, descending); });
    std::stable_sort(by_key.begin(), by_key.end(), [&](int64_t a, int64_t c) {
      return sort_key(values[a], descending) < sort_key(values[c], descending);
    });
    EXPECT_EQ(by_key, by_cpu) << dtype_name(dtype_of<T>()) << (descending ? " descending" : " ascending");
  }
}

template <typename T>
std::vector<T> float_cases() {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<T> v;
  for (float f : {1.5f, -0.0f, nan, -inf, 0.0f, -2.0f, inf, 1.5f, -nan, 1e-6f, -1e-6f, 0.0f, -2.0f, 3.0f})
    v.push_back(static_cast<T>(f));
  return v;
}

template <typename T>
std::vector<T> int_cases() {
  // Negative literals wrap for unsigned types, which only adds more large values.
  return {
      T(3), std::numeric_limits<T>::max(), T(0), std::numeric_limits<T>::lowest(), T(3), T(1), T(-1), T(-100),
      T(-1)};
}

}  // namespace

TEST(CudaSortKeys, OrderLikeTheCpuSort) {
  expect_key_order(float_cases<float>());
  expect_key_order(float_cases<double>());
  expect_key_order(float_cases<Half>());
  expect_key_order(float_cases<BFloat16>());
  expect_key_order(int_cases<int8_t>());
  expect_key_order(int_cases<uint8_t>());
  expect_key_order(int_cases<int16_t>());
  expect_key_order(int_cases<int32_t>());
  expect_key_order(int_cases<int64_t>());
  expect_key_order(std::vector<bool>{true, false, true, false});
}
