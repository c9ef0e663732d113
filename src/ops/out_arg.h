// out= arguments with PyTorch's rules, for ops that write their result into a tensor the caller passes.
#pragma once
#include <initializer_list>

#include "core/tensor.h"

namespace tandem {

// Checks `out` for op `op`, which computes a `result`-dtype result on `device` from `inputs`: out must be
// writable and on that device, `result` must cast to out's dtype (out keeps its dtype, as in PyTorch), and
// while grad mode is on neither out nor an input may require grad (out= results are not recorded).
void check_out(const char* op, const Tensor& out, DType result, Device device,
               std::initializer_list<const Tensor*> inputs);
// Gives `out` the contiguous shape `sizes` when it has another one, in its own storage when that is large
// enough. PyTorch also warns when an out with elements is resized; the Python bindings do that
// (out_needs_resize_warning).
void resize_out(const Tensor& out, IntArrayRef sizes);
// True when `out` has elements and a shape other than `sizes`: PyTorch's deprecation warning case.
bool out_needs_resize_warning(const Tensor& out, IntArrayRef sizes);

}  // namespace tandem
