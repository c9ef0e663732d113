// Regression tests for what the libFuzzer targets (fuzz/fuzz_*.cpp, docs/reliability.md "Fuzzing") found:
// each is the minimised input reduced to the call that failed. Before the fixes these were signed overflows
// (undefined behaviour, reported by UBSan) that computed wrong sizes or strides.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "ops/copy.h"
#include "ops/dlpack.h"
#include "ops/view.h"

using namespace tandem;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// [0, 1, ..., n-1] as float64 in the given shape.
Tensor iota(const DimVector& sizes) {
  Tensor t = empty(sizes, DType::Float64);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = static_cast<double>(i);
  return t;
}

std::vector<double> values(const Tensor& t) {
  Tensor c = contiguous(t);
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}

template <typename F>
void expect_error(F f, ErrorKind kind, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind);
    EXPECT_EQ(std::string(e.what()), message);
  }
}

}  // namespace

TEST(FuzzFindings, SliceWithAStepPastTheEndKeepsOneElement) {
  Tensor x = iota({4, 2});
  // fuzz_views: stride * step overflowed; (stop - start + step - 1) overflowed for step 2**63 - 1.
  Tensor rows = python_slice(x, 0, 0, kMax, int64_t{1} << 62);
  EXPECT_EQ(rows.sizes(), (DimVector{1, 2}));
  EXPECT_EQ(values(rows), (std::vector<double>{0, 1}));
  Tensor cols = python_slice(x, 1, 0, 2, kMax);
  EXPECT_EQ(cols.sizes(), (DimVector{4, 1}));
  EXPECT_EQ(cols.strides(), (DimVector{2, kMax}));  // PyTorch's stride * step, which fits here
  // The iterator multiplied the size-1 dim's stride by the element size.
  EXPECT_EQ(values(cols), (std::vector<double>{0, 2, 4, 6}));
}

TEST(FuzzFindings, UnsqueezeBeforeAHugeDimOfAnEmptyTensor) {
  // fuzz_views: the new dim's stride, size * stride of the dim it precedes, overflowed.
  Tensor u = unsqueeze(view(iota({0}), DimVector{kMax, 0, 60}), 0);
  EXPECT_EQ(u.sizes(), (DimVector{1, kMax, 0, 60}));
  EXPECT_EQ(u.numel(), 0);
}

TEST(FuzzFindings, ViewToAShapeWhoseSizesOverflowIsRefused) {
  expect_error(
      [] {
        view(iota({0}), DimVector{int64_t{1} << 62, 4, 0});
      },
      ErrorKind::Runtime,
      "numel: integer multiplication overflow\nhint: the shape [4611686018427387904, 4, 0] has more elements "
      "than "
      "int64 holds");
  expect_error(
      [] {
        view(iota({16}), DimVector{int64_t{1} << 62, 4, -1});
      },
      ErrorKind::Runtime, "shape '[4611686018427387904, 4, -1]' is invalid for input of size 16");
}

TEST(FuzzFindings, EmptyShapeWhoseContiguousStridesOverflowIsRefused) {
  // fuzz_views: view(x, {2, 9, 0, 2**63 - 1}) of an empty x computed its contiguous strides with an overflow.
  expect_error(
      [] {
        empty(DimVector{0, int64_t{1} << 62, 4}, DType::Float32);
      },
      ErrorKind::Runtime,
      "Stride calculation overflowed\nhint: shape [0, 4611686018427387904, 4] has no elements, but the "
      "strides of a contiguous tensor of that shape do not fit in int64");
  EXPECT_EQ(empty(DimVector{int64_t{1} << 62, 0, 4}, DType::Float32).strides(),
            (DimVector{4, 4, 1}));  // the outermost size is never part of a stride
}

TEST(FuzzFindings, SplitSizesThatOverflowAreRefused) {
  expect_error(
      [] {
        split_with_sizes(iota({4}), DimVector{kMax, 2}, 0);
      },
      ErrorKind::Runtime,
      "split_with_sizes expects split_sizes to sum exactly to 4 (input tensor's size at dimension 0), "
      "but got split_sizes=[9223372036854775807, 2]");
}

TEST(FuzzFindings, ChunkIntoMoreChunksThanElements) {
  std::vector<Tensor> pieces = chunk(iota({4, 3}), kMax, 0);  // (size + chunks - 1) overflowed
  ASSERT_EQ(pieces.size(), 4u);
  EXPECT_EQ(values(pieces[3]), (std::vector<double>{9, 10, 11}));
}

TEST(FuzzFindings, DLPackNullDataWithAnOffsetAndNoElements) {
  // fuzz_dlpack: data + byte_offset was pointer arithmetic on a null pointer (UB) for an empty tensor.
  int64_t shape[] = {0, 3};
  dlpack::DLTensor dl{nullptr, {dlpack::kDLCPU, 0}, 2, {dlpack::kDLFloat, 32, 1}, shape, nullptr, 16};
  DLPackImport import = check_dltensor(dl);
  EXPECT_EQ(import.nbytes, 0u);
  EXPECT_EQ(import.sizes, (DimVector{0, 3}));
}

TEST(FuzzFindings, DLPackMisalignedElementsAreRefused) {
  // fuzz_dlpack: an int64 tensor at byte_offset 1 was read as misaligned int64 (UB, and unsafe for the
  // vectorised loops).
  alignas(8) int64_t data[3] = {1, 2, 3};
  int64_t shape[] = {2};
  dlpack::DLTensor dl{data, {dlpack::kDLCPU, 0}, 1, {dlpack::kDLInt, 64, 1}, shape, nullptr, 1};
  expect_error(
      [&] { check_dltensor(dl); }, ErrorKind::Value,
      "from_dlpack(): the first element (data + byte_offset 1) is not aligned to the element size (8 "
      "bytes)\nhint: copy the tensor to an aligned buffer in the producing framework first");
  dl.byte_offset = 8;
  EXPECT_EQ(check_dltensor(dl).data, static_cast<void*>(data + 1));
}

TEST(FuzzFindings, SelectFarIntoAHugeDimOfAnEmptyTensor) {
  // fuzz_views: view() of a 0-element tensor to [2**63-1, 0, 2**63-1, 0, 1] gives dim 0 a stride of 2**63-1;
  // index * stride for select overflowed. The result is empty, so it keeps the input's offset.
  Tensor x = view(iota({0}), DimVector{kMax, 0, kMax, 0, 1});
  Tensor y = select(x, 0, -7);
  EXPECT_EQ(y.sizes(), (DimVector{0, kMax, 0, 1}));
  EXPECT_EQ(y.storage_offset(), 0);
  EXPECT_EQ(y.numel(), 0);
}

TEST(FuzzFindings, FlattenOfSizesWhoseProductOverflowsIsRefused) {
  // fuzz_views: flatten multiplied the flattened dims' sizes of an empty tensor past int64 (the 0 lay outside
  // them). A 0 among them makes the product 0 whatever overflowed before it.
  Tensor x = expand(view(iota({0}), DimVector{0, 1, 1}), DimVector{0, kMax / 3, 33});
  expect_error([&] { flatten(x, 1, 2); }, ErrorKind::Runtime,
               "flatten(): the sizes of dims 1 to 2 of a tensor of shape [0, 3074457345618258602, 33] multiply "
               "past int64\nhint: the tensor has no elements; make it with sizes whose product fits in int64");
  Tensor y = expand(view(iota({0}), DimVector{0, 1, 1, 0}), DimVector{0, kMax / 3, 33, 0});
  EXPECT_EQ(flatten(y, 1, 3).sizes(), (DimVector{0, 0}));
}
