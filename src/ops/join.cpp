#include "ops/join.h"

#include "core/error.h"
#include "kernels/kernel_table.h"
#include "ops/copy.h"
#include "ops/tensor_iterator.h"
#include "ops/type_promotion.h"
#include "ops/view.h"

namespace tandem {

namespace {

// PyTorch skips 1-D empty tensors in cat's shape checks (legacy behaviour that code relies on).
bool is_legacy_empty(const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; }

// dst = src (converted); dst is a slice of a fresh output, so no writeability checks or version bumps.
void copy_into(const Tensor& dst, const Tensor& src) {
  TensorIterator iter;
  iter.add_output(dst);
  iter.add_input(src);
  iter.build();
  kernel_table(dst.device().type).copy(iter);
}

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  TANDEM_CHECK(!tensors.empty(), Value, "torch.cat(): expected a non-empty list of Tensors");
  ResultTypeState types;
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TANDEM_CHECK(t.dim() > 0, Runtime, "zero-dimensional tensor (at position ", i,
                 ") cannot be concatenated");
    TANDEM_CHECK(t.device() == tensors[0].device(), Runtime,
                 "Expected all tensors to be on the same device, but found at least two devices, ",
                 tensors[0].device().str(), " and ", t.device().str(), "!\nhint: move them with .to(",
                 tensors[0].device().str(), ") first");
    types.add(t);
    if (!ref && !is_legacy_empty(t)) ref = &t;
  }
  const DType dtype = types.result();
  if (!ref) return empty(DimVector{0}, dtype, tensors[0].device());
  dim = wrap_dim(dim, ref->dim());
  DimVector shape = ref->sizes();
  shape[dim] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (is_legacy_empty(t)) continue;
    TANDEM_CHECK(t.dim() == ref->dim(), Runtime, "Tensors must have same number of dimensions: got ",
                 ref->dim(), " and ", t.dim());
    for (int64_t d = 0; d < t.dim(); ++d) {
      TANDEM_CHECK(d == dim || t.sizes()[d] == ref->sizes()[d], Runtime,
                   "Sizes of tensors must match except in dimension ", dim, ". Expected size ",
                   ref->sizes()[d], " but got size ", t.sizes()[d], " for tensor number ", i,
                   " in the list.");
    }
    shape[dim] += t.sizes()[dim];
  }
  Tensor out = empty(shape, dtype, ref->device());
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (is_legacy_empty(t)) continue;
    const int64_t n = t.sizes()[dim];
    if (n > 0 && out.numel() > 0) copy_into(slice(out, dim, offset, offset + n, 1), t);
    offset += n;
  }
  return out;
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  TANDEM_CHECK(!tensors.empty(), Runtime, "stack expects a non-empty TensorList");
  for (size_t i = 1; i < tensors.size(); ++i) {
    TANDEM_CHECK(tensors[i].sizes() == tensors[0].sizes(), Runtime,
                 "stack expects each tensor to be equal size, but got ", tensors[0].shape_str(),
                 " at entry 0 and ", tensors[i].shape_str(), " at entry ", i);
  }
  dim = wrap_dim(dim, tensors[0].dim() + 1);
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(unsqueeze(t, dim));
  return cat(parts, dim);
}

}  // namespace tandem
