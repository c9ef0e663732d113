// Shape and stride arithmetic: the input is a small base tensor's shape and then up to kMaxOps view ops with
// fuzzed arguments (view, reshape, flatten, permute, transpose, squeeze, unsqueeze, expand, narrow, select,
// Python-style slices, split/chunk/unbind, t/mT/T). Each op either throws a tandem::Error or returns a tensor
// that passes check_tensor (inside its storage, numel right, contiguous() and view(-1) round-trip); anything
// else (a sanitizer report, another exception, a broken invariant) is a finding.
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "tensor_checks.h"

namespace tandem::fuzz {
namespace {

constexpr int kMaxOps = 8;
constexpr int64_t kMaxEmptyChunks = 4096;

// Picks one of the pieces split/chunk/unbind return (all of them are checked).
Tensor pick(const std::vector<Tensor>& pieces, FuzzInput& in) {
  for (const Tensor& p : pieces) check_tensor(p);
  uint8_t b = in.byte();
  return pieces.empty() ? Tensor() : pieces[b % pieces.size()];
}

// split/chunk/unbind make one tensor per piece: on a dim of 2**40 (expand makes one cheaply) that is a long
// wait, not a bug, so they only run on tensors whose dims are all small.
bool small_dims(const Tensor& x) {
  for (int64_t s : x.sizes())
    if (s > 256) return false;
  return true;
}

Tensor apply_op(const Tensor& x, FuzzInput& in) {
  int op = in.choice(19);
  if (op >= 12 && op <= 15 && !small_dims(x)) return x;
  switch (op) {
    case 0:
      return view(x, in.int_list(5));
    case 1:
      return reshape(x, in.int_list(5));
    case 2: {
      int64_t start = in.integer();
      return flatten(x, start, in.integer());
    }
    case 3:
      return permute(x, in.int_list(5));
    case 4: {
      int64_t d0 = in.integer();
      return transpose(x, d0, in.integer());
    }
    case 5:
      return squeeze(x);
    case 6:
      return squeeze(x, in.int_list(3));
    case 7:
      return unsqueeze(x, in.integer());
    case 8:
      return expand(x, in.int_list(6));
    case 9: {
      int64_t dim = in.integer(), start = in.integer();
      return narrow(x, dim, start, in.integer());
    }
    case 10: {
      int64_t dim = in.integer();
      return select(x, dim, in.integer());
    }
    case 11: {
      // As Tensor.__getitem__ passes a slice: the dim is one the parser has already counted.
      if (x.dim() == 0) return x;
      int64_t dim = in.choice(static_cast<int>(x.dim()));
      int64_t start = in.integer(), stop = in.integer();
      return python_slice(x, dim, start, stop, in.integer());
    }
    case 12: {
      int64_t size = in.integer();
      return pick(split(x, size, in.integer()), in);
    }
    case 13: {
      DimVector sizes = in.int_list(4);
      return pick(split_with_sizes(x, sizes, in.integer()), in);
    }
    case 14: {
      int64_t chunks = in.integer();
      int64_t dim = in.integer();
      // An empty dim gives `chunks` empty pieces (as PyTorch's): millions of them are legal but outgrow the
      // fuzzer's memory limit under ASan, so only the small counts and the refused ones (past 2**24) run.
      if (chunks > kMaxEmptyChunks && chunks <= (int64_t{1} << 24)) return x;
      return pick(chunk(x, chunks, dim), in);
    }
    case 15:
      return pick(unbind(x, in.integer()), in);
    case 16:
      return t(x);
    case 17:
      return mT(x);
    default:
      return matrix_T(x);
  }
}

}  // namespace
}  // namespace tandem::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tandem;
  fuzz::FuzzInput in(data, size);
  DimVector sizes(in.choice(5));
  for (int64_t& s : sizes) s = in.choice(5);
  Tensor x = fuzz::iota(sizes);
  try {
    for (int i = 0; i < fuzz::kMaxOps && !in.empty(); ++i) {
      Tensor y = fuzz::apply_op(x, in);
      if (!y.defined()) break;
      fuzz::check_tensor(y);
      x = y;
    }
  } catch (const Error&) {
    // Refused with a typed tandem error: the outcome bad arguments should have.
  }
  return 0;
}
