#include "autograd/sum_to.h"

#include "core/error.h"
#include "ops/copy.h"
#include "ops/linalg.h"
#include "ops/view.h"

namespace tandem::autograd {

bool is_expandable_to(IntArrayRef shape, IntArrayRef desired) {
  if (shape.size() > desired.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t s = shape[shape.size() - 1 - i], d = desired[desired.size() - 1 - i];
    if (s != d && s != 1) return false;
  }
  return true;
}

Tensor sum_to(const Tensor& grad, IntArrayRef shape) {
  if (grad.sizes() == shape) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  DimVector reduced, kept;  // grad's dims, split into summed and kept
  for (int64_t d = 0; d < grad.dim(); ++d) {
    bool sum = d < lead || (shape[d - lead] == 1 && grad.sizes()[d] != 1);
    (sum ? reduced : kept).push_back(d);
  }
  if (reduced.empty()) return reshape(grad, shape);
  int64_t rows = 1, cols = 1;
  for (int64_t d : reduced) rows *= grad.sizes()[d];
  for (int64_t d : kept) cols *= grad.sizes()[d];
  DimVector order = reduced;
  for (int64_t d : kept) order.push_back(d);
  // [rows, cols]^T @ ones(rows): one gemv does the whole reduction.
  Tensor m = reshape(permute(grad, order), DimVector{rows, cols});
  Tensor ones = full(DimVector{rows}, Scalar(1.0), grad.dtype(), grad.device());
  return reshape(mv(t(m), ones), shape);
}

}  // namespace tandem::autograd
