#include "ops/out_arg.h"

#include <algorithm>

#include "autograd/node.h"
#include "core/error.h"
#include "core/memory_overlap.h"
#include "core/warning.h"
#include "ops/copy.h"
#include "ops/type_promotion.h"

namespace tandem {

namespace {

// PyTorch warns when an out with elements gets another shape (only empty outs will be resized one day).
void warn_if_resizing_elements(const Tensor& out, IntArrayRef sizes) {
  if (out.numel() == 0) return;
  warn("An output with one or more elements was resized since it had shape " + out.shape_str() +
       ", which does not match the required output shape " + shape_to_string(sizes) +
       ". This behavior is deprecated, and in a future PyTorch release outputs will not be resized "
       "unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
       "inplace, to zero elements with t.resize_(0).");
}

void check_out_device(const Tensor& out, Device device) {
  TANDEM_CHECK(out.device() == device, Runtime, "Expected out tensor to have device ", device.str(),
               ", but got ", out.device().str(), " instead\nhint: pass an out tensor on ", device.str(),
               ", e.g. out=torch.empty_like(result, device='", device.str(), "')");
}

}  // namespace

void check_out_autograd(const char* op, const Tensor& out, std::initializer_list<const Tensor*> inputs) {
  bool needs_grad = autograd::should_record(out);
  for (const Tensor* t : inputs) needs_grad |= t && autograd::should_record(*t);
  TANDEM_CHECK(!needs_grad, Runtime, op,
               "(): functions with out=... arguments don't support automatic differentiation, but one of the "
               "arguments requires grad.\nhint: drop out= (x = ",
               op, "(...)) or run it under torch.no_grad()");
}

void check_out(const char* op, const Tensor& out, DType result, Device device,
               std::initializer_list<const Tensor*> inputs) {
  check_out_autograd(op, out, inputs);  // PyTorch's autograd layer checks before the op runs
  check_out_target(op, out, result, device);
}

void check_out_target(const char* op, const Tensor& out, DType result, Device device) {
  check_out_device(out, device);
  TANDEM_CHECK(can_cast(result, out.dtype()), Runtime, "result type ", dtype_title(result),
               " can't be cast to the desired output type ", dtype_title(out.dtype()),
               "\nhint: pass an out tensor of dtype ", dtype_name(result), " or leave out= away");
  check_writeable(out, op);
}

void check_out_exact(const char* op, const Tensor& out, DType result, Device device) {
  TANDEM_CHECK(out.dtype() == result, Runtime, "Expected out tensor to have dtype ", dtype_cpp_name(result),
               ", but got ", dtype_cpp_name(out.dtype()), " instead\nhint: ", op,
               " writes its own dtype into out= (no conversion): pass an out tensor of dtype ",
               dtype_name(result));
  check_out_device(out, device);
  check_writeable(out, op);
}

void resize_out(const Tensor& out, IntArrayRef sizes) {
  if (std::ranges::equal(out.sizes(), sizes)) return;
  warn_if_resizing_elements(out, sizes);
  const int64_t n = compute_numel(sizes);
  const size_t needed = static_cast<size_t>(out.storage_offset() + n) * element_size(out.dtype());
  if (needed > out.storage()->nbytes()) {
    // A new storage, as PyTorch's resize_ does when the old one is too small (views of the old one keep it).
    Tensor fresh = empty(sizes, out.dtype(), out.device());
    out.impl()->set_storage(fresh.storage(), out.dtype());
    out.impl()->set_geometry(0, DimVector(sizes), contiguous_strides(sizes));
    return;
  }
  out.impl()->set_geometry(out.storage_offset(), DimVector(sizes), contiguous_strides(sizes));
}

void check_out_overlap(const Tensor& out, std::initializer_list<const Tensor*> inputs, OutOverlap rule) {
  if (rule == OutOverlap::Unchecked) return;
  const bool shared = rule == OutOverlap::SharedRefused;
  for (const Tensor* in : inputs)
    TANDEM_CHECK(!in || !(shared ? shares_memory(out, *in) : overlaps_partially(out, *in)), Runtime,
                 kInputOverlapsOutput, "\nhint: ",
                 shared ? "this op's out= may not share memory with its inputs, not even be one of them"
                        : "the output shares part of an input's memory",
                 "; write into a separate tensor or pass input.clone()");
}

Tensor assign_out_exact(const char* op, const Tensor& out, const Tensor& result,
                        std::initializer_list<const Tensor*> inputs, OutOverlap rule) {
  check_out_exact(op, out, result.dtype(), result.device());
  resize_out(out, result.sizes());
  check_out_overlap(out, inputs, rule);
  copy_(out, result);  // bumps out's version
  return out;
}

}  // namespace tandem
