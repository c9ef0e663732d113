#include "ops/join.h"
#include "ops/autocast.h"

#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "kernels/tensor_iterator.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/layout.h"
#include "ops/type_promotion.h"
#include "ops/view.h"

namespace tandem {

namespace {

// PyTorch skips 1-D empty tensors in cat's shape checks (legacy behaviour that code relies on).
bool is_legacy_empty(const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; }

// dst = src (converted); dst is a slice of a fresh output, so no writeability checks or version bumps.
void copy_into(const Tensor& dst, const Tensor& src) { copy_elements(dst, src); }

// x viewed with at least `n` dims the way NumPy's atleast_1d/2d/3d do it: [] -> [1, ...], [a] -> [1, a]
// (2-D) or [1, a, 1] (3-D), [a, b] -> [a, b, 1] (3-D).
Tensor at_least(const Tensor& x, int64_t n) {
  Tensor t = x;
  if (t.dim() == 0) t = unsqueeze(t, 0);
  if (n >= 2 && t.dim() == 1) t = unsqueeze(t, 0);
  if (n >= 3 && t.dim() == 2) t = unsqueeze(t, -1);
  return t;
}

std::vector<Tensor> all_at_least(const std::vector<Tensor>& tensors, int64_t n, const char* op) {
  TANDEM_CHECK(!tensors.empty(), Runtime, op, " expects a non-empty TensorList");
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(at_least(t, n));
  return out;
}

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  profiler::RecordScope profile_scope("aten::cat", tensors, dim);
  if (autocast::is_active())
    return autocast::run(
        autocast::kCpuPromote, [](const auto& ts, int64_t d) { return cat(ts, d); }, tensors, dim);
  TANDEM_CHECK(!tensors.empty(), Value, "torch.cat(): expected a non-empty list of Tensors");
  if (autograd::any_requires_grad(tensors))
    return autograd::record_cat(tensors, dim, autograd::without_grad([&] { return cat(tensors, dim); }));
  ResultTypeState types;
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    TANDEM_CHECK(t.dim() > 0, Runtime, "zero-dimensional tensor (at position ", i,
                 ") cannot be concatenated");
    // Unlike elementwise ops, no tensor of a cat may live elsewhere, not even a 0-dim one (it is an error
    // above), so the shared check applies as is.
    check_same_device("cat", tensors[0], t, "tensors", "tensors");
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
                 ref->dim(), " and ", t.dim(), "\nhint: tensor ", i, " has shape ", t.shape_str(),
                 " but the first has shape ", ref->shape_str(), "; unsqueeze or reshape it to match");
    for (int64_t d = 0; d < t.dim(); ++d) {
      TANDEM_CHECK(d == dim || t.sizes()[d] == ref->sizes()[d], Runtime,
                   "Sizes of tensors must match except in dimension ", dim, ". Expected size ",
                   ref->sizes()[d], " but got size ", t.sizes()[d], " for tensor number ", i,
                   " in the list.\nhint: shapes ", ref->shape_str(), " and ", t.shape_str(),
                   " may differ only in dim ", dim);
    }
    TANDEM_CHECK(!__builtin_add_overflow(shape[dim], t.sizes()[dim], &shape[dim]), Runtime,
                 "cat: the result's size in dim ", dim,
                 " overflows\nhint: the inputs hold more than 2**63 - 1 "
                 "elements along dim ",
                 dim, " together");
  }
  Tensor out = empty_joined(shape, dtype, ref->device(), tensors);
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
  profiler::RecordScope profile_scope("aten::stack", tensors, dim);
  if (autocast::is_active())
    return autocast::run(
        autocast::kCpuPromote, [](const auto& ts, int64_t d) { return stack(ts, d); }, tensors, dim);
  TANDEM_CHECK(!tensors.empty(), Runtime, "stack expects a non-empty TensorList");
  if (autograd::any_requires_grad(tensors))
    return autograd::record_stack(tensors, dim, autograd::without_grad([&] { return stack(tensors, dim); }));
  for (size_t i = 1; i < tensors.size(); ++i) {
    TANDEM_CHECK(tensors[i].sizes() == tensors[0].sizes(), Runtime,
                 "stack expects each tensor to be equal size, but got ", tensors[0].shape_str(),
                 " at entry 0 and ", tensors[i].shape_str(), " at entry ", i);
  }
  dim = wrap_dim(dim, tensors[0].dim() + 1);
  if (dim < tensors[0].dim()) {
    // PyTorch's way, which decides the result's layout: cat along `dim`, then that dim split in two
    // (always possible in place), so channels-last inputs give a channels-last-ordered result. The split
    // is a fresh tensor over cat's result, not a view of it.
    Tensor joined = cat(tensors, dim);
    const int64_t count = static_cast<int64_t>(tensors.size());
    DimVector sizes = joined.sizes(), strides = joined.strides();
    const int64_t each = sizes[dim] / count;
    sizes[dim] = each;
    sizes.insert(static_cast<size_t>(dim), count);
    strides.insert(static_cast<size_t>(dim), each * strides[dim]);
    if (joined.numel() == 0) strides = contiguous_strides(sizes);  // PyTorch's strides for an empty result
    return make_view(joined, sizes, strides, joined.storage_offset());
  }
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(unsqueeze(t, dim));
  return cat(parts, dim);
}

Tensor hstack(const std::vector<Tensor>& tensors) {
  profiler::RecordScope profile_scope("aten::hstack", tensors);
  std::vector<Tensor> parts = all_at_least(tensors, 1, "hstack");
  return cat(parts, parts[0].dim() == 1 ? 0 : 1);
}

Tensor vstack(const std::vector<Tensor>& tensors) {
  profiler::RecordScope profile_scope("aten::vstack", tensors);
  return cat(all_at_least(tensors, 2, "vstack"), 0);
}

Tensor dstack(const std::vector<Tensor>& tensors) {
  profiler::RecordScope profile_scope("aten::dstack", tensors);
  return cat(all_at_least(tensors, 3, "dstack"), 2);
}

}  // namespace tandem
