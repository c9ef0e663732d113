#include "ops/out_arg.h"

#include <algorithm>

#include "autograd/node.h"
#include "core/error.h"
#include "ops/copy.h"
#include "ops/type_promotion.h"

namespace tandem {

void check_out(const char* op, const Tensor& out, DType result, Device device,
               std::initializer_list<const Tensor*> inputs) {
  TANDEM_CHECK(out.device() == device, Runtime, "Expected out tensor to have device ", device.str(),
               ", but got ", out.device().str(), " instead\nhint: pass an out tensor on ", device.str(),
               ", e.g. out=torch.empty_like(result, device='", device.str(), "')");
  TANDEM_CHECK(can_cast(result, out.dtype()), Runtime, "result type ", dtype_title(result),
               " can't be cast to the desired output type ", dtype_title(out.dtype()),
               "\nhint: pass an out tensor of dtype ", dtype_name(result), " or leave out= away");
  bool needs_grad = autograd::should_record(out);
  for (const Tensor* t : inputs) needs_grad |= t && autograd::should_record(*t);
  TANDEM_CHECK(!needs_grad, Runtime, op,
               "(): functions with out=... arguments don't support automatic differentiation, but one of the "
               "arguments requires grad.\nhint: drop out= (x = ",
               op, "(...)) or run it under torch.no_grad()");
  check_writeable(out, op);
}

bool out_needs_resize_warning(const Tensor& out, IntArrayRef sizes) {
  return out.numel() != 0 && !std::ranges::equal(out.sizes(), sizes);
}

void resize_out(const Tensor& out, IntArrayRef sizes) {
  if (std::ranges::equal(out.sizes(), sizes)) return;
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

}  // namespace tandem
