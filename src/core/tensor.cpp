#include "core/tensor.h"

#include "core/device_registry.h"
#include "core/error.h"
#include "core/profiler_flags.h"

namespace tandem {

TensorImpl::TensorImpl(Storage storage, int64_t offset, DimVector sizes, DimVector strides, DType dtype)
    : storage_(std::move(storage)),
      offset_(offset),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      dtype_(dtype) {
  refresh();
}
TensorImpl::~TensorImpl() = default;

AutogradMeta& TensorImpl::ensure_autograd() {
  if (!autograd_) autograd_ = std::make_unique<AutogradMeta>();
  return *autograd_;
}

void TensorImpl::check_within_storage() const {
  if (numel_ == 0) return;
  // The last byte read: strides are never negative, so the farthest element is at the sum of (size-1)*stride.
  int64_t last = offset_;
  for (size_t d = 0; d < sizes_.size(); ++d) last += (sizes_[d] - 1) * strides_[d];
  const auto itemsize = static_cast<int64_t>(element_size(dtype_));
  const int64_t needed = (last + 1) * itemsize;
  const auto have = static_cast<int64_t>(storage_->nbytes());
  TANDEM_CHECK(needed <= have, Runtime, "The tensor reads bytes ", offset_ * itemsize, " to ", needed,
               " of its storage, which resize_ made ", have, " bytes long",
               "\nhint: grow the storage back first: t.untyped_storage().resize_(", needed,
               ") (its contents are then uninitialized until written)");
}

void TensorImpl::set_geometry(int64_t offset, DimVector sizes, DimVector strides) {
  offset_ = offset;
  sizes_ = std::move(sizes);
  strides_ = std::move(strides);
  refresh();
}

void TensorImpl::set_storage(Storage s, DType dtype) {
  storage_ = std::move(s);
  dtype_ = dtype;
}

void TensorImpl::refresh() {
  // Checked: a view's sizes come from the user (expand(2**40, 2**40, 5), view(2**62, 2**62, 0)), and an
  // overflowed numel would make every later size computation wrong.
  int64_t n = 1;
  bool bad = false;
  for (int64_t size : sizes_) bad |= (size < 0) | __builtin_mul_overflow(n, size, &n);
  numel_ = __builtin_expect(bad, 0) ? compute_numel(sizes_) : n;  // compute_numel raises the error
  // Contiguous in PyTorch's sense: size-1 dims may have any stride.
  contiguous_ = true;
  if (numel_ == 0) return;
  int64_t expected = 1;
  for (int64_t i = dim() - 1; i >= 0; --i) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      contiguous_ = false;
      break;
    }
    expected *= sizes_[i];
  }
}

int64_t wrap_dim(int64_t d, int64_t ndim) {
  int64_t n = ndim == 0 ? 1 : ndim;  // a 0-d tensor accepts dim 0 and -1, as in PyTorch
  TANDEM_CHECK(d >= -n && d < n, Index, "Dimension out of range (expected to be in range of [", -n, ", ",
               n - 1, "], but got ", d, ")");
  return d < 0 ? d + n : d;
}

int64_t Tensor::size(int64_t d) const {
  TANDEM_CHECK(dim() > 0, Index, "Dimension specified as ", d, " but tensor has no dimensions");
  return sizes()[wrap_dim(d, dim())];
}
int64_t Tensor::stride(int64_t d) const {
  TANDEM_CHECK(dim() > 0, Index, "Dimension specified as ", d, " but tensor has no dimensions");
  return strides()[wrap_dim(d, dim())];
}

std::string shape_to_string(IntArrayRef sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(sizes[i]);
  }
  return s + "]";
}
std::string Tensor::shape_str() const { return shape_to_string(sizes()); }

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector st(sizes.size());
  int64_t acc = 1;
  bool overflow = false;
  for (int64_t i = static_cast<int64_t>(sizes.size()) - 1; i >= 0; --i) {
    st[i] = acc;
    if (i > 0) overflow |= __builtin_mul_overflow(acc, sizes[i] > 1 ? sizes[i] : 1, &acc);
  }
  // Only a shape with no elements gets here with an overflow (numel is checked first): (0, 2**62, 4).
  TANDEM_CHECK(!overflow, Runtime, "Stride calculation overflowed\nhint: shape ", shape_to_string(sizes),
               " has no elements, but the strides of a contiguous tensor of that shape do not fit in int64");
  return st;
}

int64_t compute_numel(IntArrayRef sizes) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) {
    TANDEM_CHECK(s >= 0, Runtime, "Trying to create tensor with negative dimension ", s, ": ",
                 shape_to_string(sizes));
    overflow |= __builtin_mul_overflow(n, s, &n);
  }
  TANDEM_CHECK(!overflow, Runtime, "numel: integer multiplication overflow\nhint: the shape ",
               shape_to_string(sizes), " has more elements than int64 holds");
  return n;
}

Tensor empty(IntArrayRef sizes, DType dtype, Device device) {
  // PyTorch's message for a new tensor whose element or byte count overflows.
  for (int64_t s : sizes)
    TANDEM_CHECK(s >= 0, Runtime, "Trying to create tensor with negative dimension ", s, ": ",
                 shape_to_string(sizes));
  int64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) overflow |= __builtin_mul_overflow(n, s, &n);
  TANDEM_CHECK(!overflow, Runtime, "Storage size calculation overflowed with sizes=", shape_to_string(sizes),
               "\nhint: the element count does not fit in int64");
  size_t nbytes;
  TANDEM_CHECK(!__builtin_mul_overflow(static_cast<size_t>(n), element_size(dtype), &nbytes), OutOfMemory,
               "Storage size calculation overflowed with sizes=", shape_to_string(sizes),
               "\nhint: the tensor would need more bytes than the address space holds");
  DeviceAllocator& allocator = allocator_for(device.type);
  device = allocator.resolve(device);
  DataPtr data = allocator.allocate(nbytes, device);
  auto storage = make_intrusive<StorageImpl>(std::move(data), nbytes, device);
  storage->set_from_allocator();
  if (profiler::profiling_memory()) profiler::note_memory(device, static_cast<int64_t>(nbytes));
  return Tensor(
      make_intrusive<TensorImpl>(std::move(storage), 0, DimVector(sizes), contiguous_strides(sizes), dtype));
}

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  return make_view(base, DimVector(sizes), DimVector(strides), offset, base.dtype());
}

Tensor make_view(const Tensor& base, DimVector sizes, DimVector strides, int64_t offset, DType dtype) {
  auto impl = make_intrusive<TensorImpl>(base.storage(), offset, std::move(sizes), std::move(strides), dtype);
  impl->share_version_of(*base.impl());
  return Tensor(std::move(impl));
}

Tensor as_view_of(Tensor view, const Tensor& base) {
  if (view.is_same(base)) return view;  // an op that returned its input is no view of it
  const auto& root = base.impl()->view_base();
  view.impl()->set_view_base(root ? root : base.impl_ptr());
  return view;
}

}  // namespace tandem
