#include "ops/as_strided.h"

#include <algorithm>
#include <vector>

#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factories.h"
#include "ops/indexing.h"
#include "ops/layout.h"
#include "ops/view.h"

namespace tandem {

int64_t storage_nbytes_for(IntArrayRef sizes, IntArrayRef strides, size_t itemsize, int64_t offset) {
  // PyTorch's arithmetic: unsigned 64-bit with overflow checks, so a negative size or stride shows up as an
  // overflow instead of a small (wrong) extent.
  uint64_t n = static_cast<uint64_t>(offset) + 1;
  bool overflowed = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    uint64_t strided = 0;
    overflowed |= __builtin_mul_overflow(static_cast<uint64_t>(strides[i]),
                                         static_cast<uint64_t>(sizes[i] - 1), &strided);
    overflowed |= __builtin_add_overflow(n, strided, &n);
  }
  overflowed |= __builtin_mul_overflow(n, static_cast<uint64_t>(itemsize), &n);
  overflowed |= n > static_cast<uint64_t>(INT64_MAX);
  TANDEM_CHECK(!overflowed, Runtime,
               "Storage size calculation overflowed with sizes=", shape_to_string(sizes),
               " and strides=", shape_to_string(strides));
  return static_cast<int64_t>(n);
}

void check_strided_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t offset, DType dtype,
                            const StorageImpl& storage) {
  TANDEM_CHECK(sizes.size() == strides.size(), Runtime, "mismatch in length of strides and shape");
  for (int64_t s : strides)
    TANDEM_CHECK(s >= 0, Runtime,
                 "as_strided: Negative strides are not supported at the moment, got strides: ",
                 shape_to_string(strides));
  const size_t itemsize = element_size(dtype);
  // Without the offset first, as PyTorch: a geometry with no elements may sit anywhere.
  if (storage_nbytes_for(sizes, strides, itemsize, 0) != 0) {
    const int64_t needed = storage_nbytes_for(sizes, strides, itemsize, offset);
    TANDEM_CHECK(static_cast<uint64_t>(needed) <= storage.nbytes(), Runtime, "setStorage: sizes ",
                 shape_to_string(sizes), ", strides ", shape_to_string(strides), ", storage offset ", offset,
                 ", and itemsize ", itemsize, " requiring a storage size of ", needed,
                 " are out of bounds for storage of size ", storage.nbytes(),
                 "\nhint: the largest element this geometry reads lies past the end of the tensor's memory; "
                 "check the sizes, strides and storage_offset");
  }
  TANDEM_CHECK(offset >= 0, Runtime, "Tensor: invalid storage offset ", offset);
  compute_numel(sizes);  // a negative size after a 0 (which skips the extent) is still refused
}

Tensor as_strided(const Tensor& x, IntArrayRef sizes, IntArrayRef strides,
                  std::optional<int64_t> storage_offset) {
  profiler::RecordScope profile_scope("aten::as_strided", x, sizes, strides);
  const int64_t offset = storage_offset.value_or(x.storage_offset());
  check_strided_geometry(sizes, strides, offset, x.dtype(), *x.storage());
  Tensor out = view_made_by("AsStrided", make_view(x, sizes, strides, offset), x);
  return autograd::should_record(x) ? autograd::record_as_strided(x, out) : out;
}

Tensor as_strided_(const Tensor& x, IntArrayRef sizes, IntArrayRef strides,
                   std::optional<int64_t> storage_offset) {
  profiler::RecordScope profile_scope("aten::as_strided_", x, sizes, strides);
  const int64_t offset = storage_offset.value_or(x.storage_offset());
  check_strided_geometry(sizes, strides, offset, x.dtype(), *x.storage());
  if (autograd::should_record(x)) {
    autograd::check_inplace(x);  // a leaf that requires grad is refused, as in PyTorch
    // x's history continues through the view it becomes: the node reads x's old geometry.
    Tensor out = autograd::record_as_strided(x, make_view(x, sizes, strides, offset), "AsStridedBackward1");
    x.impl()->set_geometry(offset, DimVector(sizes), DimVector(strides));
    AutogradMeta& m = x.impl()->ensure_autograd();
    // (a retain_grad() stays with the old node, as PyTorch's: .grad is the gradient of x's old geometry)
    m.grad_fn = out.impl()->autograd()->grad_fn;
    m.output_nr = 0;
    return x;
  }
  x.impl()->set_geometry(offset, DimVector(sizes), DimVector(strides));
  return x;
}

Tensor as_strided_scatter(const Tensor& x, const Tensor& src, IntArrayRef sizes, IntArrayRef strides,
                          std::optional<int64_t> storage_offset) {
  profiler::RecordScope profile_scope("aten::as_strided_scatter", x, src, sizes, strides);
  TANDEM_CHECK(x.device() == src.device(), Runtime,
               "Expected all tensors to be on the same device, but found at least two devices, ",
               x.device().str(), " and ", src.device().str(), "!");
  const bool grad = autograd::should_record(x, src);
  TANDEM_CHECK(!grad || !x.requires_grad() || x.is_contiguous(), Runtime,
               "as_strided_scatter is currently only supported for contiguous inputs\nhint: call "
               ".contiguous() on the input first");
  Tensor out = autograd::without_grad([&] { return clone_preserving_layout(x); });
  Tensor region = as_strided(out, sizes, strides, storage_offset);
  TANDEM_CHECK(region.sizes() == src.sizes(), Runtime,
               "expected src to have a size equal to the slice of self. src size = ", src.shape_str(),
               ", slice size = ", region.shape_str());
  autograd::without_grad([&] { return copy_(region, src); });
  if (!grad) return out;
  return autograd::record_as_strided_scatter(x, src, sizes, strides, region.storage_offset(), out);
}

namespace {
// Whether two elements of this geometry can share memory (PyTorch's maybe_overlapping_memory): dims with
// more than one element, sorted by stride, must each step past everything the smaller ones span.
bool maybe_overlapping(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<int64_t> dims;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] > 1) dims.push_back(static_cast<int64_t>(d));
  std::ranges::sort(dims, [&](int64_t a, int64_t b) { return strides[a] < strides[b]; });
  int64_t span = 0;  // the largest offset reached by the dims so far
  for (int64_t d : dims) {
    if (strides[d] <= span) return true;
    span += strides[d] * (sizes[d] - 1);
  }
  return false;
}

// The storage index of each element of the geometry, counted from `base` (an int64 tensor of `sizes`).
Tensor element_positions(int64_t extent, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                         Device device) {
  Tensor all = arange(Scalar(int64_t{0}), Scalar(extent), Scalar(int64_t{1}), DType::Int64, device);
  return reshape(contiguous(make_view(all, sizes, strides, offset)), DimVector{-1});
}
}  // namespace

Tensor as_strided_backward(const Tensor& grad, IntArrayRef x_sizes, IntArrayRef x_strides, int64_t x_offset,
                           IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  const int64_t x_numel = compute_numel(x_sizes);
  if (x_numel == 0 || compute_numel(sizes) == 0)
    return full(x_sizes, Scalar(0.0), grad.dtype(), grad.device());
  // Work on the part of the storage both geometries touch, [lo, hi), both checked in bounds at forward time.
  const int64_t lo = std::min(x_offset, offset);
  const int64_t hi = std::max(storage_nbytes_for(x_sizes, x_strides, 1, x_offset),
                              storage_nbytes_for(sizes, strides, 1, offset));
  const int64_t extent = hi - lo;
  Tensor buffer = full(DimVector{extent}, Scalar(0.0), grad.dtype(), grad.device());
  Tensor out_pos = element_positions(extent, sizes, strides, offset - lo, grad.device());
  buffer = index_add(buffer, 0, out_pos, reshape(grad, DimVector{-1}));
  Tensor x_pos = element_positions(extent, x_sizes, x_strides, x_offset - lo, grad.device());
  Tensor result = index_select(buffer, 0, x_pos);
  if (maybe_overlapping(x_sizes, x_strides)) {
    // Each storage element's gradient is shared out among the input elements that read it.
    Tensor counts = full(DimVector{extent}, Scalar(0.0), grad.dtype(), grad.device());
    counts = index_add(counts, 0, x_pos, full(DimVector{x_numel}, Scalar(1.0), grad.dtype(), grad.device()));
    result = div(result, index_select(counts, 0, x_pos));
  }
  return reshape(result, x_sizes);
}

}  // namespace tandem
