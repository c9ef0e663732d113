#include "ops/resize.h"

#include <algorithm>

#include "autograd/grad_mode.h"
#include "autograd/node.h"
#include "backend/transfer.h"
#include "core/device_registry.h"
#include "core/error.h"
#include "core/profiler.h"
#include "ops/as_strided.h"
#include "ops/copy.h"

namespace tandem {

namespace {
// PyTorch's numel check for resize_/set_ sizes: a negative size counts as an overflow, as in its unsigned
// arithmetic.
void check_resize_sizes(IntArrayRef sizes) {
  int64_t n = 1;
  bool bad = false;
  for (int64_t s : sizes) bad |= s < 0 || __builtin_mul_overflow(n, s, &n);
  TANDEM_CHECK(!bad, Runtime, "numel: integer multiplication overflow\nhint: sizes ", shape_to_string(sizes),
               " hold a negative size or more elements than int64 counts");
}

Tensor byte_view(const Storage& storage) {
  const auto n = static_cast<int64_t>(storage->nbytes());
  return Tensor(make_intrusive<TensorImpl>(storage, 0, DimVector{n}, DimVector{1}, DType::UInt8));
}

// The storage grows to hold `sizes`/`strides` at `offset` (elements of `dtype`).
void ensure_storage_holds(const Storage& storage, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                          DType dtype) {
  const int64_t needed = storage_nbytes_for(sizes, strides, element_size(dtype), offset);
  if (static_cast<uint64_t>(needed) > storage->nbytes()) grow_storage(storage, static_cast<size_t>(needed));
}
}  // namespace

namespace {
// Moves the storage to a fresh block of nbytes that starts with its first `keep` bytes; every tensor on the
// storage, views included, then sees the new block (PyTorch's resize_). A NumPy array or DLPack consumer of
// the old block still reads it: it lives on with this storage (PyTorch frees it, leaving such arrays
// dangling). Otherwise it is freed now, with `fresh`.
void move_to_new_block(const Storage& storage, size_t nbytes, size_t keep) {
  storage->wait_pending_writes();
  const Device device = storage->device();
  Tensor fresh = empty(DimVector{static_cast<int64_t>(nbytes)}, DType::UInt8, device);
  if (keep > 0) {
    const DimVector kept{static_cast<int64_t>(keep)}, unit{1};
    copy_elements(make_view(fresh, kept, unit, 0), make_view(byte_view(storage), kept, unit, 0));
  }
  // Device work reading the old block or writing the new one must finish before they change owners.
  if (device.type != DeviceType::CPU) synchronize_device(device);
  storage->swap_memory(*fresh.storage());
  if (storage->exported()) storage->retire(fresh.storage());
}

void check_resizable(const Storage& storage) {
  TANDEM_CHECK(storage->resizable(), Runtime,
               "Trying to resize storage that is not resizable\nhint: this memory belongs to another library "
               "(NumPy, DLPack); clone() the tensor first to get memory tandem can resize");
}
}  // namespace

void grow_storage(const Storage& storage, size_t nbytes) {
  if (nbytes <= storage->nbytes()) return;
  check_resizable(storage);
  move_to_new_block(storage, nbytes, storage->nbytes());
}

void resize_storage(const Storage& storage, size_t nbytes) {
  if (nbytes >= storage->nbytes()) return grow_storage(storage, nbytes);
  check_resizable(storage);
  // Shrinking frees memory (the point of it); tensors on the storage that reach past nbytes raise when they
  // next read their data (StorageImpl::mark_shrunk).
  storage->mark_shrunk();
  move_to_new_block(storage, nbytes, nbytes);
}

Tensor new_storage_bytes(size_t nbytes, Device device) {
  TANDEM_CHECK(nbytes <= static_cast<size_t>(INT64_MAX), Runtime, "Storage size ", nbytes,
               " is too large\nhint: a storage holds at most 2**63 - 1 bytes");
  return empty(DimVector{static_cast<int64_t>(nbytes)}, DType::UInt8, device);
}

Tensor storage_bytes(const Tensor& x) { return byte_view(x.storage()); }

Tensor resize_(const Tensor& x, IntArrayRef sizes, std::optional<DimVector> strides) {
  profiler::RecordScope profile_scope("aten::resize_", x, sizes);
  TANDEM_CHECK(!x.requires_grad(), Runtime,
               "cannot resize variables that require grad\nhint: resize a detached tensor (x.detach()), or "
               "build the new tensor out of place");
  check_resize_sizes(sizes);
  // The same sizes without a memory format change nothing, strides included (PyTorch's resize_).
  if (!strides && std::ranges::equal(sizes, x.sizes())) return x;
  DimVector st = strides ? *strides : contiguous_strides(sizes);
  ensure_storage_holds(x.storage(), sizes, st, x.storage_offset(), x.dtype());
  x.impl()->set_geometry(x.storage_offset(), DimVector(sizes), std::move(st));
  return x;
}

namespace {
void check_set_target(const Tensor& x) {
  if (autograd::should_record(x)) autograd::check_inplace(x);  // a leaf that requires grad is refused
  TANDEM_CHECK(!x.requires_grad() || !autograd::GradMode::is_enabled(), NotImplemented,
               "set_() on a tensor with autograd history is not supported by tandem\nhint: call it on "
               "x.detach(), or under torch.no_grad()");
}
}  // namespace

Tensor set_empty_(const Tensor& x) {
  check_set_target(x);
  Tensor fresh = empty(DimVector{0}, x.dtype(), x.device());
  x.impl()->set_storage(fresh.storage(), x.dtype());
  x.impl()->set_geometry(0, DimVector{0}, DimVector{1});
  return x;
}

Tensor set_to_tensor_(const Tensor& x, const Tensor& source) {
  check_set_target(x);
  TANDEM_CHECK(x.dtype() == source.dtype(), Runtime, "Could not set tensor of type ",
               dtype_cpp_name(source.dtype()), " to a tensor of type ", dtype_cpp_name(x.dtype()));
  TANDEM_CHECK(x.device() == source.device(), Runtime,
               "Attempted to set the storage of a tensor on device \"", x.device().str(),
               "\" to a storage on different device \"", source.device().str(),
               "\".  This is no longer allowed; the devices must match.");
  if (x.is_same(source)) return x;
  x.impl()->set_storage(source.storage(), x.dtype());
  x.impl()->set_geometry(source.storage_offset(), source.sizes(), source.strides());
  return x;
}

Tensor set_to_storage_(const Tensor& x, const Tensor& storage, int64_t offset, IntArrayRef sizes,
                       std::optional<DimVector> strides) {
  check_set_target(x);
  TANDEM_CHECK(x.device() == storage.device(), Runtime,
               "Attempted to set the storage of a tensor on device \"", x.device().str(),
               "\" to a storage on different device \"", storage.device().str(),
               "\".  This is no longer allowed; the devices must match.");
  TANDEM_CHECK(!strides || strides->size() == sizes.size(), Runtime, "unequal size length (", sizes.size(),
               ") and stride length (", strides ? strides->size() : 0, ")");
  check_resize_sizes(sizes);
  const auto itemsize = static_cast<int64_t>(element_size(x.dtype()));
  // A storage slice (storage[4:]) starts inside its storage: its byte offset becomes part of the element
  // offset.
  const int64_t start = storage.storage_offset();
  TANDEM_CHECK(start % itemsize == 0, Runtime, "set_(): the storage slice starts at byte ", start,
               ", which is not a multiple of the element size ", itemsize,
               "\nhint: slice the storage at a multiple of element_size()");
  TANDEM_CHECK(offset >= 0, Runtime, "Tensor: invalid storage offset ", offset);
  int64_t elem_offset = 0;
  TANDEM_CHECK(!__builtin_add_overflow(offset, start / itemsize, &elem_offset), Runtime,
               "Tensor: invalid storage offset ", offset);
  DimVector st = strides ? *strides : contiguous_strides(sizes);
  ensure_storage_holds(storage.storage(), sizes, st, elem_offset, x.dtype());
  x.impl()->set_storage(storage.storage(), x.dtype());
  x.impl()->set_geometry(elem_offset, DimVector(sizes), std::move(st));
  return x;
}

bool is_set_to(const Tensor& x, const Tensor& other) {
  return x.storage().get() == other.storage().get() && x.storage_offset() == other.storage_offset() &&
         x.sizes() == other.sizes() && x.strides() == other.strides();
}

}  // namespace tandem
