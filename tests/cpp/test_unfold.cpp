#include <gtest/gtest.h>

#include "core/error.h"
#include "ops/copy.h"
#include "ops/unfold.h"
#include "ops/view.h"

using namespace tandem;

namespace {
Tensor iota(DimVector shape) {
  Tensor t = empty(shape, DType::Float32);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}
}  // namespace

TEST(Unfold, OverlappingWindowsAreAViewWithAStepStride) {
  Tensor x = iota({2, 7});
  Tensor u = unfold(x, 1, 3, 2);
  EXPECT_EQ(u.sizes(), (DimVector{2, 3, 3}));
  EXPECT_EQ(u.strides(), (DimVector{7, 2, 1}));
  EXPECT_EQ(u.storage().get(), x.storage().get());
  // window 1 of row 1 starts at element 7 + 2
  EXPECT_EQ(contiguous(u).data<float>()[9 + 3], 9.0f);
}

TEST(Unfold, TransposedInputKeepsItsStrides) {
  Tensor x = t(iota({3, 4}));  // (4, 3) with strides (1, 4)
  Tensor u = unfold(x, 0, 2, 1);
  EXPECT_EQ(u.sizes(), (DimVector{3, 3, 2}));
  EXPECT_EQ(u.strides(), (DimVector{1, 4, 1}));
}

TEST(Unfold, ZeroDimTensorHasOneWindow) {
  Tensor x = reshape(iota({1}), DimVector{});
  EXPECT_EQ(unfold(x, 0, 1, 1).sizes(), (DimVector{1}));
  EXPECT_EQ(unfold(x, -1, 0, 3).sizes(), (DimVector{0}));
}

TEST(Unfold, BadArgumentsRaisePyTorchsErrors) {
  Tensor x = iota({7});
  EXPECT_THROW(unfold(x, 0, 8, 1), Error);
  EXPECT_THROW(unfold(x, 0, -1, 1), Error);
  EXPECT_THROW(unfold(x, 0, 2, 0), Error);
  EXPECT_THROW(unfold(x, 1, 1, 1), Error);
}
