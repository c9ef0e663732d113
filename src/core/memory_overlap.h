// PyTorch's memory-overlap rules between a tensor an op writes and the tensors it reads, shared by the tensor
// iterator (every elementwise op, in-place op and copy) and by the out= arguments of ops that compute into a
// temporary first (ops/out_arg.h).
#pragma once
#include "core/tensor.h"

namespace tandem {

// PyTorch's message for a written-to tensor sharing memory with an input it refuses (a hint follows).
inline constexpr const char* kInputOverlapsOutput =
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
    "memory location. Please clone() the tensor before performing the operation.";

// Whether t's elements cover a block of memory exactly once in some dim order (a permutation of a contiguous
// tensor, e.g. x.t()): PyTorch's is_non_overlapping_and_dense.
bool non_overlapping_and_dense(const Tensor& t);

// Whether `read` shares some but not all of `written`'s memory, or all of it in another layout (x vs x.t()):
// a result written into `written` would then depend on the order elements are visited. The same tensor (an
// ordinary in-place op) does not count. Like PyTorch, layouts too irregular to decide cheaply (strided
// slices) are let through.
bool overlaps_partially(const Tensor& written, const Tensor& read);

// Whether `read` shares any of `written`'s memory, the same tensor included (PyTorch's assert_no_overlap,
// which cat and stack apply to their inputs), decided for dense layouts as above.
bool shares_memory(const Tensor& written, const Tensor& read);

}  // namespace tandem
