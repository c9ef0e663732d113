// Changing a tensor's geometry or memory in place: resize_ (growing the storage when needed), set_ (pointing
// a tensor at another tensor's or a storage's memory) and is_set_to. Rare calls, none on a hot path.
#pragma once
#include <optional>

#include "core/tensor.h"

namespace tandem {

// x gets `sizes` with `strides` (contiguous when not given) at its offset; its storage grows (keeping its
// bytes, for every tensor on it) when too small. PyTorch's errors for tensors that require grad and for
// memory tandem does not own (NumPy, DLPack).
Tensor resize_(const Tensor& x, IntArrayRef sizes, std::optional<DimVector> strides = std::nullopt);
// Makes `storage` at least `nbytes` long, in place, copying its bytes into the new block (a no-op when it is
// already that long).
void grow_storage(const Storage& storage, size_t nbytes);
// UntypedStorage.resize_(nbytes): grows as grow_storage, or shrinks to a smaller block keeping the first
// nbytes; tensors on a shrunk storage that reach past its end raise when they next read their data.
void resize_storage(const Storage& storage, size_t nbytes);
// A fresh storage of `nbytes` on `device` (UntypedStorage(n)), as a uint8 tensor over all of it.
Tensor new_storage_bytes(size_t nbytes, Device device);
// The whole of x's storage as a 1-D uint8 tensor (what the Python storage objects hold: it keeps the memory
// alive, and reads and writes go through the usual ops on every device).
Tensor storage_bytes(const Tensor& x);

// x.set_(): an empty storage of x's dtype and device, shape (0,).
Tensor set_empty_(const Tensor& x);
// x.set_(source): x shares source's storage, offset, sizes and strides.
Tensor set_to_tensor_(const Tensor& x, const Tensor& source);
// x.set_(storage, offset, sizes, strides): `storage` given as the uint8 tensor storage_bytes returns (its
// offset counts bytes). The storage grows when the geometry needs more, as in PyTorch.
Tensor set_to_storage_(const Tensor& x, const Tensor& storage, int64_t offset, IntArrayRef sizes,
                       std::optional<DimVector> strides);
bool is_set_to(const Tensor& x, const Tensor& other);

}  // namespace tandem
