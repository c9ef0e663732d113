// out= arguments with PyTorch's rules, for ops that write their result into a tensor the caller passes.
#pragma once
#include <initializer_list>

#include "core/tensor.h"

namespace tandem {

// Refuses out= while autograd would record: PyTorch's first check of every out= call (before the op's own),
// since out= results are not recorded.
void check_out_autograd(const char* op, const Tensor& out, std::initializer_list<const Tensor*> inputs);
// Checks `out` for op `op`, which computes a `result`-dtype result on `device` from `inputs`: while grad mode
// is on neither out nor an input may require grad (check_out_autograd, first), out must be on that device,
// `result` must cast to out's dtype (out keeps its dtype, as in PyTorch) and out must be writable.
void check_out(const char* op, const Tensor& out, DType result, Device device,
               std::initializer_list<const Tensor*> inputs);
// check_out without its autograd check, for the ops PyTorch's autograd layer lets through untouched (those
// without a derivative formula: comparisons, logical and integer ops, airy_ai, the polynomials).
void check_out_target(const char* op, const Tensor& out, DType result, Device device);
// The stricter rule of PyTorch's structured ops (mm, bmm, addmm, baddbmm, ...): out's dtype must be the
// result's dtype exactly, and out on the result's device; out must be writable.
void check_out_exact(const char* op, const Tensor& out, DType result, Device device);
// Gives `out` the contiguous shape `sizes` when it has another one, in its own storage when that is large
// enough, with PyTorch's deprecation warning when an out with elements is resized.
void resize_out(const Tensor& out, IntArrayRef sizes);
// Which memory an out= (after resize_out) or in-place self may share with the op's inputs
// (core/memory_overlap.h). Ops that compute into a temporary first would give a defined result anyway, but
// PyTorch's write in place and refuse, and programs must see the same error on both:
// - Unchecked: anything (PyTorch's reductions and matrix products do not check);
// - PartialRefused: not part of an input's memory, nor all of it in another layout (the rule of PyTorch's
//   TensorIterator ops: clamp, where, the scans, index_select, index_copy);
// - SharedRefused: no memory of an input at all, not even by being it (PyTorch's assert_no_overlap: cat,
//   stack, gather).
enum class OutOverlap { Unchecked, PartialRefused, SharedRefused };
void check_out_overlap(const Tensor& out, std::initializer_list<const Tensor*> inputs,
                       OutOverlap rule = OutOverlap::PartialRefused);
// `result` (computed into a temporary, so out may alias an input) copied into out after check_out_exact,
// resize_out and check_out_overlap(out, inputs, rule); returns out. The caller ran check_out_autograd before
// computing result.
Tensor assign_out_exact(const char* op, const Tensor& out, const Tensor& result,
                        std::initializer_list<const Tensor*> inputs = {},
                        OutOverlap rule = OutOverlap::Unchecked);

}  // namespace tandem
