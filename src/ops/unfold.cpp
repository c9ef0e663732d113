#include "ops/unfold.h"

#include "autograd/formulas_unfold.h"
#include "autograd/node.h"
#include "core/error.h"
#include "core/profiler.h"
#include "ops/view.h"

namespace tandem {

Tensor unfold(const Tensor& x, int64_t dim, int64_t size, int64_t step) {
  profiler::RecordScope profile_scope("aten::unfold", x, dim, size, step);
  dim = wrap_dim(dim, x.dim());
  // A 0-d tensor is one element: PyTorch gives its single window the shape (size,).
  const int64_t n = x.dim() ? x.sizes()[dim] : 1;
  TANDEM_CHECK(size >= 0, Runtime, "size is ", size, " but must be >= 0");
  TANDEM_CHECK(size <= n, Runtime, "maximum size for tensor at dimension ", dim, " is ", n, " but size is ",
               size);
  TANDEM_CHECK(step > 0, Runtime, "step is ", step, " but must be > 0");
  DimVector sizes = x.sizes(), strides = x.strides();
  if (x.dim() == 0) {
    sizes = DimVector{size};
    strides = DimVector{1};
  } else {
    const int64_t stride = strides[dim];
    sizes[dim] = (n - size) / step + 1;
    // One window never steps (count 1): keep the old stride rather than an overflowed one.
    if (__builtin_mul_overflow(stride, step, &strides[dim])) strides[dim] = stride;
    sizes.push_back(size);
    strides.push_back(stride);
  }
  Tensor out = view_made_by("Unfold", make_view(x, sizes, strides, x.storage_offset()), x);
  return autograd::should_record(x) ? autograd::record_unfold(x, dim, size, step, out) : out;
}

}  // namespace tandem
