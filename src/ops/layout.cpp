#include "ops/layout.h"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "ops/copy.h"

namespace tandem {

namespace {
// Strides exactly a fresh row-major tensor's (size-1 dims included, whose strides PyTorch's layout choice
// reads).
bool row_major(const Tensor& t) {
  if (!t.is_contiguous()) return false;
  const DimVector& sizes = t.sizes();
  const DimVector& strides = t.strides();
  int64_t expected = 1;
  for (int64_t i = t.dim() - 1; i >= 0; --i) {
    if (strides[i] != expected) return false;
    if (sizes[i] > 1) expected *= sizes[i];
  }
  return true;
}

// The dims of `shape` in memory order, innermost first, for operands whose strides (broadcast to `shape`: 0
// for a broadcast dim) are `operands`. PyTorch's rule: an insertion sort from the row-major order, where the
// first operand whose strides tell two dims apart decides (the smaller stride is inner; equal strides put
// the smaller size inner), and a pair no operand tells apart is left as it is.
DimVector memory_order(IntArrayRef shape, const std::vector<DimVector>& operands) {
  const int64_t ndim = static_cast<int64_t>(shape.size());
  DimVector perm(ndim);
  for (int64_t i = 0; i < ndim; ++i) perm[i] = ndim - 1 - i;
  // 1: d0 belongs outside d1; -1: inside; 0: no operand says.
  auto compare = [&](int64_t d0, int64_t d1) {
    for (const DimVector& s : operands) {
      if (s[d0] == 0 || s[d1] == 0) continue;
      if (s[d0] < s[d1]) return -1;
      if (s[d0] > s[d1]) return 1;
      if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
  };
  for (int64_t i = 1; i < ndim; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      const int c = compare(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  return perm;
}

// PyTorch's channels-last contiguity (4 dims: N, H, W, C innermost last; 5 dims: N, D, H, W, C), where
// size-1 dims may have any stride.
constexpr int64_t kChannelsLastOrder[2][5] = {{1, 3, 2, 0, -1}, {1, 4, 3, 2, 0}};

bool is_channels_last_contiguous(const Tensor& t) {
  if (t.dim() != 4 && t.dim() != 5) return false;
  int64_t expected = 1;
  for (int64_t d : kChannelsLastOrder[t.dim() - 4]) {
    if (d < 0) break;
    if (t.sizes()[d] == 1) continue;
    if (t.strides()[d] != expected || __builtin_mul_overflow(expected, t.sizes()[d], &expected)) return false;
  }
  return true;
}

DimVector channels_last_strides(IntArrayRef shape) {
  DimVector strides(shape.size());
  int64_t next = 1;
  for (int64_t d : kChannelsLastOrder[shape.size() - 4]) {
    if (d < 0) break;
    strides[d] = next;
    if (__builtin_mul_overflow(next, shape[d], &next)) return {};  // an empty shape only (see dense_strides)
  }
  return strides;
}

bool is_row_major_order(const DimVector& perm) {
  const int64_t ndim = static_cast<int64_t>(perm.size());
  for (int64_t i = 0; i < ndim; ++i)
    if (perm[i] != ndim - 1 - i) return false;
  return true;
}

// Dense strides for `shape` laid out in `perm` (innermost first). The elementwise iterator multiplies by
// every size (an empty dim gives the dims outside it stride 0); empty_like's inference counts a size below 2
// as 1.
DimVector dense_strides(IntArrayRef shape, const DimVector& perm, bool count_small_sizes_as_one) {
  DimVector strides(shape.size());
  int64_t next = 1;
  for (int64_t d : perm) {
    strides[d] = next;
    // Only a shape with no elements can overflow here ((0, 2**40, 2**30) expanded): row-major then, whose
    // strides raise PyTorch's overflow error.
    if (__builtin_mul_overflow(next, count_small_sizes_as_one && shape[d] < 2 ? 1 : shape[d], &next))
      return {};
  }
  return strides;
}
}  // namespace

bool is_non_overlapping_and_dense(const Tensor& x) {
  // PyTorch's flag starts from contiguity, which an empty tensor always has.
  if (x.is_contiguous() || is_channels_last_contiguous(x)) return true;
  const int64_t ndim = x.dim();
  const DimVector& sizes = x.sizes();
  const DimVector& strides = x.strides();
  if (ndim == 1) return sizes[0] < 2 || strides[0] == 1;
  std::vector<int64_t> order(ndim);
  std::iota(order.begin(), order.end(), 0);
  // Dims of fewer than 2 elements last: their strides do not matter.
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t expected = 1;
  for (int64_t d : order) {
    if (sizes[d] < 2) return true;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

DimVector preserved_strides(const Tensor& x) {
  if (x.numel() > 0 && row_major(x)) return {};
  if (is_non_overlapping_and_dense(x))
    return x.strides() == contiguous_strides(x.sizes()) ? DimVector{} : x.strides();
  const DimVector perm = memory_order(x.sizes(), {x.strides()});
  return is_row_major_order(perm) ? DimVector{} : dense_strides(x.sizes(), perm, true);
}

DimVector elementwise_strides(IntArrayRef shape, std::initializer_list<const Tensor*> inputs) {
  const int64_t ndim = static_cast<int64_t>(shape.size());
  if (ndim < 2) return {};
  // PyTorch's fast cases first, when every operand has the result's shape (a Python number is a 0-dim operand
  // there): all contiguous gives row-major, all channels-last (4 dims; its iterator does not look for the
  // 5-dim form) gives channels-last, all dense with one set of strides gives those strides.
  // The contiguous case (most ops) costs a shape compare and a flag per input.
  bool same_shape = true, contiguous = true;
  for (const Tensor* t : inputs) {
    same_shape = same_shape && t && t->sizes() == shape;
    contiguous = contiguous && same_shape && t->is_contiguous();
  }
  if (contiguous) return {};
  if (same_shape) {
    const Tensor& first = **inputs.begin();
    bool channels_last = ndim == 4, same_strides = true;
    for (const Tensor* t : inputs) {
      channels_last = channels_last && is_channels_last_contiguous(*t);
      same_strides = same_strides && t->strides() == first.strides();
    }
    if (channels_last) return channels_last_strides(shape);
    if (same_strides && is_non_overlapping_and_dense(first)) return first.strides();
  }
  bool all_row_major = true;
  for (const Tensor* t : inputs) all_row_major &= !t || row_major(*t);
  if (all_row_major && compute_numel(shape) > 0) return {};  // nothing to sort
  std::vector<DimVector> operands;
  for (const Tensor* t : inputs) {
    if (!t || t->dim() == 0) continue;
    DimVector s(ndim, 0);
    const int64_t offset = ndim - t->dim();
    for (int64_t i = 0; i < t->dim(); ++i)
      s[offset + i] = t->sizes()[i] == 1 && shape[offset + i] != 1 ? 0 : t->strides()[i];
    operands.push_back(std::move(s));
  }
  const DimVector perm = memory_order(shape, operands);
  return is_row_major_order(perm) ? DimVector{} : dense_strides(shape, perm, false);
}

Tensor empty_laid_out(IntArrayRef sizes, IntArrayRef strides, DType dtype, Device device) {
  Tensor out = empty(sizes, dtype, device);
  if (!strides.empty()) out.impl()->set_geometry(0, DimVector(sizes), DimVector(strides));
  return out;
}

Tensor empty_elementwise(IntArrayRef shape, DType dtype, Device device,
                         std::initializer_list<const Tensor*> inputs) {
  return empty_laid_out(shape, elementwise_strides(shape, inputs), dtype, device);
}

bool suggests_channels_last(const Tensor& t) {
  if (t.dim() != 4 && t.dim() != 5) return false;
  const DimVector& sizes = t.sizes();
  const DimVector& strides = t.strides();
  if (strides[1] == 0) return false;  // a broadcast channel dim: row-major
  int64_t low = 0;
  for (int64_t d : kChannelsLastOrder[t.dim() - 4]) {
    if (d < 0) break;
    if (sizes[d] == 0 || strides[d] < low) return false;
    // N x 1 x 1 x 1 with equal strides (row-major, or sliced along W): row-major is the default.
    if (d == 0 && low == strides[1]) return false;
    low = strides[d] * (sizes[d] > 1 ? sizes[d] : 1);
  }
  return true;
}

Tensor empty_joined(IntArrayRef shape, DType dtype, Device device, const std::vector<Tensor>& inputs) {
  bool channels_last = shape.size() == 4 || shape.size() == 5;
  for (const Tensor& t : inputs)  // cat's legacy empty inputs (1-d, no elements) do not count, as in PyTorch
    channels_last = channels_last && ((t.dim() == 1 && t.numel() == 0) || suggests_channels_last(t));
  if (channels_last) {
    DimVector strides = channels_last_strides(shape);
    if (!strides.empty()) return empty_laid_out(shape, strides, dtype, device);
  }
  return empty(shape, dtype, device);
}

Tensor in_memory_format_of(std::initializer_list<const Tensor*> likes, const Tensor& t) {
  bool channels_last = false;
  for (const Tensor* like : likes) channels_last |= like->dim() == t.dim() && suggests_channels_last(*like);
  if (!channels_last) return t;
  Tensor out = empty_laid_out(t.sizes(), channels_last_strides(t.sizes()), t.dtype(), t.device());
  copy_elements(out, t);
  return out;
}

Tensor clone_preserving_layout(const Tensor& x) { return to_dtype(x, x.dtype(), /*copy=*/true); }

}  // namespace tandem
