#include "ops/reduce.h"

#include "core/error.h"
#include "ops/copy.h"

namespace tandem {

Tensor any(const Tensor& x) {
  TANDEM_CHECK(x.device().is_cpu(), NotImplemented, "any() on ", x.device().str(), " is not implemented yet");
  Tensor c = contiguous(to_dtype(x, DType::Bool));
  const bool* p = c.data<bool>();
  bool r = false;
  for (int64_t i = 0; i < c.numel() && !r; ++i) r = p[i];
  Tensor out = empty(DimVector{}, DType::Bool, x.device());
  *out.data<bool>() = r;
  return out;
}

}  // namespace tandem
