#include "autograd/sum_to.h"

#include "core/error.h"
#include "ops/reduce.h"
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
  DimVector reduced;  // leading dims, and dims where shape has 1 but grad does not
  for (int64_t d = 0; d < grad.dim(); ++d)
    if (d < lead || (shape[d - lead] == 1 && grad.sizes()[d] != 1)) reduced.push_back(d);
  if (reduced.empty()) return reshape(grad, shape);
  return reshape(sum(grad, reduced, true), shape);
}

}  // namespace tandem::autograd
