// DLPack import without Python: a foreign DLTensor is checked field by field before anything reads through
// its pointers, then wrapped without a copy. python/src/dlpack.cpp adds the capsule protocol around it;
// fuzz/fuzz_dlpack.cpp feeds it malformed tensors directly.
#pragma once
#include <cstddef>

#include "core/dlpack.h"
#include "core/tensor.h"

namespace tandem {

// DLPack's code and bits for a tandem dtype (lanes 1).
dlpack::DLDataType dl_dtype(DType d);

// What a valid DLTensor describes, ready to become a tensor.
struct DLPackImport {
  Device device;
  DType dtype;
  DimVector sizes;
  DimVector strides;
  void* data;     // the first element: the DLTensor's data + byte_offset
  size_t nbytes;  // from `data` to one past the last byte any element occupies (0 with no elements)
};

// Checks every field of `dl` (device, dtype, ndim, shape, strides, byte_offset, null pointers, arithmetic
// that would overflow) and throws tandem errors naming the problem; reads `dl.shape`/`dl.strides` only once
// ndim is known to be sane.
DLPackImport check_dltensor(const dlpack::DLTensor& dl);
// Refuses a host bool tensor holding a byte other than 0 or 1 (kernels read bool elements as C++ bool, for
// which any other byte is undefined). Reads every element: call it only on memory a producer really handed
// over.
void check_host_bools(const DLPackImport& import);
// A tensor over the checked memory; `data` (pointing at import.data) hands it back to its producer.
Tensor wrap_dltensor(DLPackImport import, DataPtr data, bool readonly);

}  // namespace tandem
