#include "ops/pinned.h"

#include "autograd/formulas.h"
#include "backend/accelerator.h"
#include "core/error.h"
#include "core/profiler.h"
#include "ops/copy.h"

namespace tandem {

namespace {
AcceleratorBackend& pinned_memory_owner() {
  TANDEM_CHECK(
      cuda_available(), Runtime,
      "Cannot access accelerator device when none is available.\nhint: pinned (page-locked) host "
      "memory needs a CUDA device and this process has none; drop pin_memory=True / .pin_memory() "
      "here (plain CPU tensors work everywhere), or set TANDEM_EMULATE_CUDA=1 to test GPU code paths");
  return cuda_backend();
}
}  // namespace

Tensor empty_pinned(IntArrayRef sizes, DType dtype) {
  profiler::RecordScope profile_scope("aten::empty", sizes, dtype);
  AcceleratorBackend& owner = pinned_memory_owner();
  size_t nbytes = static_cast<size_t>(compute_numel(sizes)) * element_size(dtype);
  auto storage = make_intrusive<StorageImpl>(owner.allocate_pinned(nbytes), nbytes, Device());
  return Tensor(
      make_intrusive<TensorImpl>(std::move(storage), 0, DimVector(sizes), contiguous_strides(sizes), dtype));
}

bool is_pinned(const Tensor& x) {
  if (!x.device().is_cpu() || !cuda_available()) return false;
  return cuda_backend().is_pinned(x.storage()->data_without_waiting());
}

Tensor pin_memory(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::pin_memory", x);
  // PyTorch names the tensor by its C++ type: CUDAFloatType, MetaHalfType.
  TANDEM_CHECK(x.device().is_cpu(), Runtime, "cannot pin '", x.device().is_cuda() ? "CUDA" : "Meta",
               dtype_title(x.dtype()),
               "Type' only dense CPU tensors can be pinned\nhint: the tensor lives on ", x.device().str(),
               "; pin_memory() applies to CPU tensors before copying them to the device");
  if (is_pinned(x)) return x;
  if (autograd::should_record(x)) {
    Tensor out = autograd::without_grad([&] { return pin_memory(x); });
    return autograd::record_copy("ToCopyBackward0", x, out);
  }
  Tensor out = empty_pinned(x.sizes(), x.dtype());
  return copy_(out, x);
}

}  // namespace tandem
