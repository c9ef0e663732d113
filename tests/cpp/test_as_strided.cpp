#include <gtest/gtest.h>

#include <cstdint>

#include "core/error.h"
#include "ops/as_strided.h"
#include "ops/copy.h"
#include "ops/resize.h"

using namespace tandem;

namespace {
Tensor iota(int64_t n) {
  Tensor t = empty(DimVector{n}, DType::Float32);
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}
}  // namespace

TEST(AsStrided, StorageSizeIsPyTorchs) {
  EXPECT_EQ(storage_nbytes_for(DimVector{2, 2}, DimVector{1, 2}, 4, 0), 16);
  EXPECT_EQ(storage_nbytes_for(DimVector{2, 2}, DimVector{1, 2}, 4, 1), 20);
  EXPECT_EQ(storage_nbytes_for(DimVector{0, 2}, DimVector{1, 2}, 4, 100), 0);
  EXPECT_EQ(storage_nbytes_for(DimVector{}, DimVector{}, 8, 3), 32);
}

TEST(AsStrided, HostileGeometriesOverflowInsteadOfWrapping) {
  const int64_t big = int64_t{1} << 62;
  EXPECT_THROW(storage_nbytes_for(DimVector{big, big}, DimVector{1, 2}, 4, 0), Error);
  EXPECT_THROW(storage_nbytes_for(DimVector{2}, DimVector{big}, 4, 0), Error);
  EXPECT_THROW(storage_nbytes_for(DimVector{2}, DimVector{1}, 4, big), Error);
  EXPECT_THROW(storage_nbytes_for(DimVector{-2}, DimVector{1}, 4, 0),
               Error);  // a negative size wraps to huge
  EXPECT_THROW(storage_nbytes_for(DimVector{3}, DimVector{-1}, 4, 0), Error);
}

TEST(AsStrided, ViewsAreCheckedAgainstTheWholeStorage) {
  Tensor x = iota(6);
  Tensor head = as_strided(x, DimVector{2}, DimVector{1}, 0);
  Tensor all = as_strided(head, DimVector{6}, DimVector{1}, 0);  // the view is small, the storage is not
  EXPECT_EQ(all.data<float>()[5], 5.0f);
  EXPECT_THROW(as_strided(x, DimVector{7}, DimVector{1}, 0), Error);
  EXPECT_THROW(as_strided(x, DimVector{3}, DimVector{2}, 2), Error);  // last element at 2 + 4 = 6
  EXPECT_NO_THROW(as_strided(x, DimVector{3}, DimVector{2}, 1));      // last element at 5
}

TEST(Resize, GrowingKeepsTheBytesForEveryView) {
  Tensor x = iota(6);
  Tensor tail = as_strided(x, DimVector{2}, DimVector{1}, 4);
  resize_(x, DimVector{100});
  EXPECT_EQ(x.storage().get(), tail.storage().get());
  EXPECT_GE(x.storage()->nbytes(), 400u);
  EXPECT_EQ(tail.data<float>()[1], 5.0f);
  EXPECT_EQ(x.data<float>()[3], 3.0f);
}

TEST(Resize, ShrunkStorageKeepsItsPrefixAndRefusesTensorsPastItsEnd) {
  Tensor x = iota(6);
  Tensor head = as_strided(x, DimVector{2}, DimVector{1}, 0);
  Tensor tail = as_strided(x, DimVector{2}, DimVector{1}, 4);
  resize_storage(x.storage(), 8);  // two floats left
  EXPECT_EQ(x.storage()->nbytes(), 8u);
  EXPECT_EQ(head.data<float>()[1], 1.0f);
  EXPECT_THROW(tail.data_ptr(), Error);
  EXPECT_THROW(x.data_ptr(), Error);
  resize_storage(x.storage(), 24);  // grown back: every tensor on it reads again
  EXPECT_NO_THROW(tail.data_ptr());
  EXPECT_EQ(head.data<float>()[0], 0.0f);
  EXPECT_NO_THROW(
      as_strided(x, DimVector{0}, DimVector{1}, 100).data_ptr());  // an empty tensor reads nothing
}
