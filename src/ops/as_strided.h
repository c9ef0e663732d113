// Raw geometry over a tensor's storage: as_strided (a view with any sizes, strides and offset, checked
// against the storage's size), its in-place and scatter forms, and the storage-size rule they share with
// set_ and resize_.
#pragma once
#include <optional>

#include "core/tensor.h"

namespace tandem {

// Bytes a tensor with this geometry needs from the start of its storage (PyTorch's computeStorageNbytes,
// offset included); 0 when a size is 0. RuntimeError "Storage size calculation overflowed" on overflow, which
// also catches negative sizes.
int64_t storage_nbytes_for(IntArrayRef sizes, IntArrayRef strides, size_t itemsize, int64_t offset);
// PyTorch's setStrided checks: matching lengths, strides >= 0, inside `storage`, offset >= 0.
void check_strided_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t offset, DType dtype,
                            const StorageImpl& storage);

Tensor as_strided(const Tensor& x, IntArrayRef sizes, IntArrayRef strides,
                  std::optional<int64_t> storage_offset = std::nullopt);
Tensor as_strided_(const Tensor& x, IntArrayRef sizes, IntArrayRef strides,
                   std::optional<int64_t> storage_offset = std::nullopt);
// A copy of x with `src` written into x.as_strided(sizes, strides, offset) of the copy.
Tensor as_strided_scatter(const Tensor& x, const Tensor& src, IntArrayRef sizes, IntArrayRef strides,
                          std::optional<int64_t> storage_offset = std::nullopt);
// The gradient of y = as_strided(x, ...): the gradient placed at the storage elements y reads (added up
// where y's elements overlap), read back with x's geometry (divided by the count where x's overlap).
Tensor as_strided_backward(const Tensor& grad, IntArrayRef x_sizes, IntArrayRef x_strides, int64_t x_offset,
                           IntArrayRef sizes, IntArrayRef strides, int64_t offset);

}  // namespace tandem
