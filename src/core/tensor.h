// TensorImpl and the Tensor handle. A tensor is a strided view of a Storage: offset + sizes + strides +
// dtype, with autograd state only when needed. Tensor is a single pointer, cheap to copy and to move into
// a Python object.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "core/autograd_meta.h"
#include "core/dtype.h"
#include "core/intrusive_ptr.h"
#include "core/small_vector.h"
#include "core/storage.h"

namespace tandem {

// A version counter of a tensor's own (see TensorImpl::version).
struct VersionCounter : RefCounted {
  std::atomic<uint32_t> value{0};
};

// How a view was made, for PyTorch's refusal of in-place writes through views made while autograd was off
// (autograd::check_no_grad_view_write): under no_grad, under inference_mode, or afterwards from such a view;
// and of writes through a view of a custom Function's view output, or of such a view
// (autograd::check_inplace: the write would bypass the Function's backward).
// How a view came to be, for PyTorch's refusals of in-place writes through it (autograd::check_inplace):
// in no_grad or inference mode, from such a view, from a custom Function's output, or from an output of a
// function that returns several views (unbind, split, chunk: MultiOutput, for views of those outputs).
enum class ViewCreation : uint8_t {
  Default,
  NoGradMode,
  InferenceMode,
  FromNoGradView,
  InCustomFunction,
  MultiOutput
};

class TensorImpl : public RefCounted {
 public:
  TensorImpl(Storage storage, int64_t offset, DimVector sizes, DimVector strides, DType dtype);
  ~TensorImpl() override;

  const Storage& storage() const { return storage_; }
  int64_t storage_offset() const { return offset_; }
  const DimVector& sizes() const { return sizes_; }
  const DimVector& strides() const { return strides_; }
  DType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  int64_t numel() const { return numel_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  bool is_contiguous() const { return contiguous_; }
  void* data() const {
    if (__builtin_expect(storage_->shrunk(), 0)) check_within_storage();
    return static_cast<char*>(storage_->data()) + offset_ * static_cast<int64_t>(element_size(dtype_));
  }
  // RuntimeError when the elements reach past the end of a storage that resize_ made smaller.
  void check_within_storage() const;

  AutogradMeta* autograd() const { return autograd_.get(); }
  AutogradMeta& ensure_autograd();
  void clear_autograd() { autograd_.reset(); }

  // The count of in-place writes autograd compares saved tensors against. Every tensor on a storage shares the
  // storage's counter, except a tensor given one of its own (`.data`, as in PyTorch: writes through it are not
  // seen by the history of the tensor it came from); views share their base's counter either way.
  uint32_t version() const {
    return own_version_ ? own_version_->value.load(std::memory_order_relaxed) : storage_->version();
  }
  void bump_version() {
    if (own_version_)
      own_version_->value.fetch_add(1, std::memory_order_relaxed);
    else
      storage_->bump_version();
  }
  void reset_version() {
    if (own_version_)
      own_version_->value.store(0, std::memory_order_relaxed);
    else
      storage_->reset_version();
  }
  void use_own_version() { own_version_ = make_intrusive<VersionCounter>(); }
  bool has_own_version() const { return static_cast<bool>(own_version_); }  // `.data` and its views
  void share_version_of(const TensorImpl& base) { own_version_ = base.own_version_; }

  // The tensor this one is a view of (PyTorch's Tensor._base): the first tensor of a chain of views, which the
  // view stays holding, as PyTorch's views do. Set by the view ops (as_view_of), null for every other tensor,
  // including tandem's internal aliases (a saved output's alias would otherwise hold its own node).
  const IntrusivePtr<TensorImpl>& view_base() const { return view_base_; }
  void set_view_base(IntrusivePtr<TensorImpl> base) { view_base_ = std::move(base); }
  // Set by the view ops (view_made_by): how this view was made, and by which op (PyTorch's node name without
  // "Backward0", static storage), which the refusal names.
  ViewCreation view_creation() const { return view_creation_; }
  const char* view_op() const { return view_op_; }
  void set_view_creation(ViewCreation creation, const char* op) {
    view_creation_ = creation;
    view_op_ = op;
  }

  // Re-points this tensor at other metadata (used by in-place resizing ops such as set_ / detach_).
  void set_geometry(int64_t offset, DimVector sizes, DimVector strides);
  void set_storage(Storage s, DType dtype);

 private:
  void refresh();
  Storage storage_;
  int64_t offset_;
  DimVector sizes_;
  DimVector strides_;
  int64_t numel_ = 1;
  DType dtype_;
  bool contiguous_ = true;
  ViewCreation view_creation_ = ViewCreation::Default;
  std::unique_ptr<AutogradMeta> autograd_;
  IntrusivePtr<VersionCounter> own_version_;  // null: the storage's
  IntrusivePtr<TensorImpl> view_base_;        // null: not a view
  const char* view_op_ = nullptr;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(IntrusivePtr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const IntrusivePtr<TensorImpl>& impl_ptr() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }

  const DimVector& sizes() const { return impl_->sizes(); }
  const DimVector& strides() const { return impl_->strides(); }
  int64_t size(int64_t d) const;    // negative d counts from the end; checked
  int64_t stride(int64_t d) const;  // same
  int64_t dim() const { return impl_->dim(); }
  int64_t numel() const { return impl_->numel(); }
  DType dtype() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  size_t element_size() const { return tandem::element_size(dtype()); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
  void* data_ptr() const { return impl_->data(); }
  template <typename T>
  T* data() const {
    return static_cast<T*>(impl_->data());
  }
  const Storage& storage() const { return impl_->storage(); }
  uint32_t version() const { return impl_->version(); }
  void bump_version() const { impl_->bump_version(); }

  bool requires_grad() const {
    auto* m = impl_->autograd();
    return m && m->requires_grad;
  }
  std::string shape_str() const;  // "[2, 3]"

 private:
  IntrusivePtr<TensorImpl> impl_;
};

// Row-major strides for `sizes`.
DimVector contiguous_strides(IntArrayRef sizes);
int64_t compute_numel(IntArrayRef sizes);  // checks for overflow
std::string shape_to_string(IntArrayRef sizes);
// Wraps a possibly negative dim into [0, ndim); IndexError in PyTorch's words otherwise.
int64_t wrap_dim(int64_t d, int64_t ndim);

// A fresh, uninitialised, contiguous tensor.
Tensor empty(IntArrayRef sizes, DType dtype, Device device = Device());
// A factory's result (a new tensor and the in-place writes that filled it): nothing else holds its storage, so
// those writes are no history, and it starts at version 0 as PyTorch's factories do.
inline Tensor fresh_result(Tensor t) {
  t.impl()->reset_version();
  return t;
}
// A view of `base`'s storage with new geometry (no checks: callers ensure it is in bounds). It shares base's
// version counter. The second form reads the memory as another dtype (sizes, strides, offset in its elements).
Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
Tensor make_view(const Tensor& base, DimVector sizes, DimVector strides, int64_t offset, DType dtype);
// `view` (made by make_view from `base`) marked as a view of base's own base, or of base: what the public view
// ops return (view, reshape, select, slice, transpose, expand, as_strided, real, unfold, ...).
Tensor as_view_of(Tensor view, const Tensor& base);

}  // namespace tandem
