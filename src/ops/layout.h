// The memory layouts of new tensors, as PyTorch chooses them (its preserve_format): a result keeps its
// inputs' order of dimensions in memory instead of always being row-major. x.t() + 1, x.t().clone(),
// x.t().float() and the elementwise results of a channels_last tensor come out with PyTorch's strides (so
// `.stride()`, `.is_contiguous()` and whether `.view()` works agree), and an op over a transposed tensor
// walks its memory in order.
#pragma once
#include <initializer_list>
#include <vector>

#include "core/tensor.h"

namespace tandem {

// True when x's elements fill a block of memory with no gaps and no overlaps, in some order of its dims
// (PyTorch's is_non_overlapping_and_dense).
bool is_non_overlapping_and_dense(const Tensor& x);

// The strides of a copy of x under preserve_format (clone, to, the *_like factories): x's own when x is
// non-overlapping and dense, else dense strides in the order of x's strides. Empty when that is row-major.
DimVector preserved_strides(const Tensor& x);

// The strides PyTorch's elementwise iterator gives the result of an op over `inputs` (tensors broadcast to
// `shape`; null entries are Python numbers and are skipped): dims are ordered by the inputs' strides, the
// first input whose strides tell two dims apart deciding (a broadcast dim tells nothing), and the result is
// dense in that order. Empty when that is row-major, which it is whenever every input is row-major.
DimVector elementwise_strides(IntArrayRef shape, std::initializer_list<const Tensor*> inputs);

// A fresh tensor with the given dense strides (a permutation of a row-major layout); row-major when `strides`
// is empty.
Tensor empty_laid_out(IntArrayRef sizes, IntArrayRef strides, DType dtype, Device device);

// The result of an elementwise op over `inputs`: empty_laid_out with elementwise_strides.
Tensor empty_elementwise(IntArrayRef shape, DType dtype, Device device,
                         std::initializer_list<const Tensor*> inputs);

// PyTorch's suggest_memory_format: whether t's strides look channels-last (4 dims, N H W C innermost last;
// 5 dims, N D H W C), with its rules for the ambiguous cases (size-1 dims default to row-major). The ops
// whose results follow their input's memory format (convolution, batch norm, pooling) ask this.
bool suggests_channels_last(const Tensor& t);

// cat's result: channels-last when every one of `inputs` suggests it (PyTorch's rule for joins: the inputs'
// shared memory format), else row-major.
Tensor empty_joined(IntArrayRef shape, DType dtype, Device device, const std::vector<Tensor>& inputs);

// t (a fresh row-major result) copied into the channels-last layout when one of `likes` suggests it (and has
// t's rank), else t itself.
Tensor in_memory_format_of(std::initializer_list<const Tensor*> likes, const Tensor& t);

// A copy of x with x's layout (PyTorch's clone(), whose memory_format defaults to preserve_format). The
// C++ core's clone() is row-major, which its callers rely on.
Tensor clone_preserving_layout(const Tensor& x);

}  // namespace tandem
