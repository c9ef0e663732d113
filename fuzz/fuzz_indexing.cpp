// Index arithmetic: advanced indexing (index, index_put_), the index_select and gather/scatter families,
// take, masks and flip, on a small float64 tensor (sometimes a transposed view of one) with fuzzed index
// tensors: int64/int32 entries near and far outside the valid range, bool/uint8 masks of any shape, and
// wrong dtypes. Each call either throws a tandem::Error or returns tensors that pass check_tensor; take's
// result is also checked against the element it names. Out-of-bounds reads and writes show up as
// AddressSanitizer reports.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_input.h"
#include "tensor_checks.h"

namespace tandem::fuzz {
namespace {

// Index entries: mostly in [-5, 5] (valid or just outside for dims of size 0..4), sometimes anything.
int64_t index_value(FuzzInput& in) {
  uint8_t b = in.byte();
  return b < 0xC0 ? b % 11 - 5 : in.integer();
}

DimVector small_shape(FuzzInput& in, int max_dims) {
  DimVector sizes(in.choice(max_dims + 1));
  for (int64_t& s : sizes) s = in.choice(5);
  return sizes;
}

// An index tensor of a fuzzed kind and shape; the float64 kind is the wrong dtype on purpose.
Tensor make_index(FuzzInput& in) {
  int kind = in.choice(5);
  DType dtype = kind == 0   ? DType::Int64
                : kind == 1 ? DType::Int32
                : kind == 2 ? DType::Bool
                : kind == 3 ? DType::UInt8
                            : DType::Float64;
  Tensor t = empty(small_shape(in, 3), dtype);
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (dtype) {
      case DType::Int64:
        t.data<int64_t>()[i] = index_value(in);
        break;
      case DType::Int32:
        t.data<int32_t>()[i] = static_cast<int32_t>(index_value(in));
        break;
      case DType::Bool:
      case DType::UInt8:
        t.data<uint8_t>()[i] = in.byte() & 1;
        break;
      default:
        t.data<double>()[i] = static_cast<double>(index_value(in));
    }
  }
  return t;
}

// Indices for index()/index_put_(): per dim, the whole dim (undefined) or an index tensor.
std::vector<Tensor> make_indices(FuzzInput& in, int64_t ndim) {
  std::vector<Tensor> out(in.choice(static_cast<int>(ndim) + 2));
  for (Tensor& t : out)
    if (in.byte() & 1) t = make_index(in);
  return out;
}

// take(x, index)[i] is x's element number index[i] (row-major, negative from the end).
void check_take(const Tensor& x, const Tensor& index, const Tensor& out) {
  if (x.numel() > kMaxCheckedNumel) return;
  std::vector<int64_t> offsets;
  for_each_offset(x, [&](int64_t o) { offsets.push_back(o); });
  Tensor idx = contiguous(to_dtype(index, DType::Int64));
  Tensor got = contiguous(out);
  const auto* base = static_cast<const double*>(x.storage()->data());
  for (int64_t i = 0; i < idx.numel(); ++i) {
    int64_t k = idx.data<int64_t>()[i];
    if (k < 0) k += x.numel();
    if (got.data<double>()[i] != base[offsets[k]]) fail("take() returned another element", out);
  }
}

std::vector<Tensor> run_op(const Tensor& x, FuzzInput& in) {
  int64_t dim = in.integer();
  switch (in.choice(16)) {
    case 0:
      return {index(x, make_indices(in, x.dim()))};
    case 1: {
      std::vector<Tensor> indices = make_indices(in, x.dim());
      Tensor values = iota(small_shape(in, 2));
      return {index_put_(x, indices, values, in.byte() & 1)};
    }
    case 2:
      return {index_select(x, dim, make_index(in))};
    case 3: {
      Tensor idx = make_index(in);
      return {index_add_(x, dim, idx, iota(small_shape(in, 4)))};
    }
    case 4: {
      Tensor idx = make_index(in);
      return {index_copy_(x, dim, idx, iota(small_shape(in, 4)))};
    }
    case 5:
      return {index_fill_(x, dim, make_index(in), Scalar(-1.0))};
    case 6: {
      Tensor idx = make_index(in);
      Tensor out = take(x, idx);
      check_take(x, idx, out);
      return {out};
    }
    case 7:
      return {gather(x, dim, make_index(in))};
    case 8: {
      Tensor idx = make_index(in);
      return {scatter_(x, dim, idx, iota(small_shape(in, 4)))};
    }
    case 9: {
      Tensor idx = make_index(in);
      return {scatter_add_(x, dim, idx, iota(small_shape(in, 4)))};
    }
    case 10: {
      Tensor idx = make_index(in);
      return {take_along_dim(x, idx, in.byte() & 1 ? std::optional<int64_t>(dim) : std::nullopt)};
    }
    case 11:
      return {masked_fill_(x, make_index(in), Scalar(-2.0))};
    case 12:
      return {masked_select(x, make_index(in))};
    case 13:
      return {nonzero(x)};
    case 14:
      return {flip(x, in.int_list(4))};
    default: {
      // As the index parser calls it: at the first dim not yet consumed, in [0, x.dim()].
      Tensor mask = make_index(in);
      return mask_indices(x, in.choice(static_cast<int>(x.dim()) + 1), mask);
    }
  }
}

}  // namespace
}  // namespace tandem::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tandem;
  fuzz::FuzzInput in(data, size);
  Tensor x = fuzz::iota(fuzz::small_shape(in, 4));
  // Half the time a transposed view, so the kernels walk non-contiguous strides.
  if (in.byte() & 1 && x.dim() >= 2) x = transpose(x, 0, -1);
  try {
    for (const Tensor& out : fuzz::run_op(x, in)) fuzz::check_tensor(out);
  } catch (const Error&) {
    // Refused with a typed tandem error: the outcome bad arguments should have.
  }
  fuzz::check_tensor(x);
  return 0;
}
