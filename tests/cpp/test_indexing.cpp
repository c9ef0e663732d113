#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "core/error.h"
#include "ops/copy.h"
#include "ops/index_plan.h"
#include "ops/indexing.h"
#include "ops/join.h"
#include "ops/view.h"

using namespace tandem;

namespace {
Tensor arange_i64(int64_t n) {
  Tensor t = empty(DimVector{n}, DType::Int64);
  for (int64_t i = 0; i < n; ++i) t.data<int64_t>()[i] = i;
  return t;
}
Tensor ints(std::vector<int64_t> v) {
  Tensor t = empty(DimVector{static_cast<int64_t>(v.size())}, DType::Int64);
  for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
  return t;
}
std::vector<int64_t> values(const Tensor& t) {
  Tensor c = contiguous(t);
  return std::vector<int64_t>(c.data<int64_t>(), c.data<int64_t>() + c.numel());
}
ErrorKind kind_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no error";
  return ErrorKind::Runtime;
}
}  // namespace

TEST(IndexPlan, CoalesceMergesContiguousDimsAndDropsUnitDims) {
  IndexPlan plan;
  plan.shape = DimVector{2, 1, 3, 4};
  plan.self_strides = DimVector{12, 99, 4, 1};
  plan.other_strides = DimVector{12, 0, 4, 1};
  coalesce(plan);
  EXPECT_EQ(plan.shape, (DimVector{24}));
  EXPECT_EQ(plan.self_strides, (DimVector{1}));
}

TEST(IndexPlan, CoalesceKeepsDimsAnIndexWalksDifferently) {
  IndexPlan plan;
  plan.shape = DimVector{3, 4};
  plan.self_strides = DimVector{4, 1};
  plan.other_strides = DimVector{4, 1};
  int64_t dummy = 0;
  plan.indices.push_back({&dummy, DimVector{1, 0}, 5, 20});
  coalesce(plan);
  EXPECT_EQ(plan.shape, (DimVector{3, 4}));
}

TEST(Indexing, AdvancedIndexSeparatedIndicesGoFirst) {
  Tensor x = view(arange_i64(24), DimVector{2, 3, 4});
  Tensor r = index(x, {ints({0, 1}), Tensor(), ints({3, 2})});
  EXPECT_EQ(r.sizes(), (DimVector{2, 3}));
  EXPECT_EQ(values(r), (std::vector<int64_t>{3, 7, 11, 14, 18, 22}));
  Tensor adjacent = index(x, {Tensor(), ints({2, 0}), ints({1, 1})});
  EXPECT_EQ(adjacent.sizes(), (DimVector{2, 2}));
  EXPECT_EQ(values(adjacent), (std::vector<int64_t>{9, 1, 21, 13}));
}

TEST(Indexing, IndexPutWritesAndAccumulates) {
  Tensor x = full(DimVector{4}, Scalar(int64_t{0}), DType::Int64);
  index_put_(x, {ints({1, 1, 3})}, full(DimVector{}, Scalar(int64_t{2}), DType::Int64), true);
  EXPECT_EQ(values(x), (std::vector<int64_t>{0, 4, 0, 2}));
  EXPECT_GT(x.version(), 0u);
}

TEST(Indexing, CatGatherAndErrorsKinds) {
  Tensor a = view(arange_i64(6), DimVector{2, 3});
  Tensor c = cat({a, transpose(view(arange_i64(6), DimVector{3, 2}), 0, 1)}, 1);
  EXPECT_EQ(c.sizes(), (DimVector{2, 6}));
  EXPECT_EQ(values(c), (std::vector<int64_t>{0, 1, 2, 0, 2, 4, 3, 4, 5, 1, 3, 5}));
  Tensor g = gather(a, 1, view(ints({2, 0}), DimVector{2, 1}));
  EXPECT_EQ(values(g), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(kind_of([&] { index(a, {ints({7})}); }), ErrorKind::Index);
  EXPECT_EQ(kind_of([&] { cat({a, arange_i64(3)}); }), ErrorKind::Runtime);
  EXPECT_EQ(kind_of([&] { cat({}); }), ErrorKind::Value);
}
