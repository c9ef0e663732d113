// Advanced indexing (index / index_put_), nonzero and the masked ops.
#include "ops/indexing.h"
#include "ops/autocast.h"

#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/index_plan.h"
#include "ops/layout.h"
#include "ops/reduce.h"
#include "ops/value_range.h"
#include "ops/view.h"

namespace tandem {

namespace {

bool is_mask_dtype(DType d) { return d == DType::Bool || d == DType::UInt8; }

// One entry per dim of self: masks replaced by their nonzero() coordinates, integer indices as int64.
std::vector<Tensor> expand_indices(const Tensor& self, const std::vector<Tensor>& indices) {
  std::vector<Tensor> out;
  for (const Tensor& given : indices) {
    if (!given.defined()) {
      out.push_back(given);
      continue;
    }
    // CPU index tensors may index a device tensor (as in PyTorch): they are copied to its device. Indices on
    // another accelerator, or on one for a CPU tensor, are PyTorch's IndexError.
    TANDEM_CHECK(given.device().is_cpu() || given.device() == self.device(), Index,
                 "indices should be either on cpu or on the same device as the indexed tensor (",
                 self.device().str(), ")\nhint: move the indices with idx.to(", self.device().str(), ")");
    const Tensor t = to_device(given, self.device(), std::nullopt, false);
    if (is_mask_dtype(t.dtype())) {
      for (Tensor& c : mask_indices(self, static_cast<int64_t>(out.size()), t)) out.push_back(std::move(c));
      continue;
    }
    TANDEM_CHECK(t.dtype() == DType::Int64 || t.dtype() == DType::Int32, Index,
                 "tensors used as indices must be long, int, byte or bool tensors");
    out.push_back(contiguous_int64(t));
  }
  TANDEM_CHECK(static_cast<int64_t>(out.size()) <= self.dim(), Index,
               "too many indices for tensor of dimension ", self.dim(), " (got ", out.size(), ")");
  out.resize(self.dim());
  return out;
}

// The shape all defined indices broadcast to, or PyTorch's IndexError listing every shape.
DimVector broadcast_indices(const std::vector<Tensor>& idx) {
  DimVector shape;
  bool ok = true;
  for (const Tensor& t : idx) {
    if (!t.defined()) continue;
    const size_t nd = std::max(shape.size(), t.sizes().size());
    DimVector next(nd, 1);
    for (size_t i = 0; i < nd; ++i) {
      const int64_t a = i < shape.size() ? shape[shape.size() - 1 - i] : 1;
      const int64_t b = i < t.sizes().size() ? t.sizes()[t.sizes().size() - 1 - i] : 1;
      ok = ok && (a == b || a == 1 || b == 1);
      next[nd - 1 - i] = a == 1 ? b : a;
    }
    shape = next;
  }
  if (ok) return shape;
  std::string shapes;
  for (const Tensor& t : idx) {
    if (!t.defined()) continue;
    shapes += (shapes.empty() ? "" : ", ") + t.shape_str();
  }
  TANDEM_THROW(Index, "shape mismatch: indexing tensors could not be broadcast together with shapes ",
               shapes);
}

// PyTorch's kernel check of each index against its dim (k counts the indexed dims, as its message does).
void check_index_ranges(const Tensor& self, const std::vector<Tensor>& idx) {
  int64_t k = 0;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!idx[d].defined()) continue;
    int64_t bad;
    TANDEM_CHECK(index_in_range(idx[d], self.sizes()[d], true, bad), Index, "index ", bad,
                 " is out of bounds for dimension ", k, " with size ", self.sizes()[d],
                 "\nhint: indices into dim ", d, " of a tensor of shape ", self.shape_str(), " must lie in [",
                 -self.sizes()[d], ", ", self.sizes()[d] - 1, "]");
    ++k;
  }
}

// The result shape of self[idx] and the plan reading it (other left for the caller). `idx` holds int64
// contiguous tensors, one entry per dim of self, whose ranges the caller checked; they must stay alive while
// the plan is used.
IndexPlan plan_advanced(const Tensor& self, const std::vector<Tensor>& idx) {
  TANDEM_CHECK(self.dim() <= 64, NotImplemented, "advanced indexing supports tensors of up to 64 dims");
  const DimVector bshape = broadcast_indices(idx);
  int64_t first = -1, last = -1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!idx[d].defined()) continue;
    if (first < 0) first = d;
    last = d;
  }
  bool adjacent = true;
  for (int64_t d = std::max<int64_t>(first, 0); d <= last; ++d) adjacent = adjacent && idx[d].defined();

  IndexPlan plan;
  plan.device = self.device();
  plan.self = static_cast<char*>(self.data_ptr());
  plan.dtype = self.dtype();
  const int64_t nb = static_cast<int64_t>(bshape.size());
  // Where the broadcast dims start in the result: in place of adjacent indices, else in front.
  const int64_t bpos = adjacent ? std::max<int64_t>(first, 0) : 0;
  auto push_dim = [&](int64_t size, int64_t self_stride) {
    plan.shape.push_back(size);
    plan.self_strides.push_back(self_stride);
  };
  auto push_broadcast = [&] {
    for (int64_t i = 0; i < nb; ++i) push_dim(bshape[i], 0);
  };
  if (!adjacent) push_broadcast();
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (idx[d].defined()) {
      if (adjacent && d == first) push_broadcast();
      continue;
    }
    push_dim(self.sizes()[d], self.strides()[d]);
  }
  const int64_t nd = static_cast<int64_t>(plan.shape.size());
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!idx[d].defined()) continue;
    const Tensor e = expand(idx[d], bshape);
    IndexOperand op{idx[d].data<int64_t>(), DimVector(nd, 0), self.sizes()[d], self.strides()[d]};
    for (int64_t i = 0; i < nb; ++i) op.strides[bpos + i] = e.strides()[i];
    plan.indices.push_back(std::move(op));
  }
  return plan;
}

// Values without the leading size-1 dims past the result's rank (as PyTorch's setitem drops them), refused
// with PyTorch's message unless they broadcast to `shape`.
Tensor values_broadcastable_to(const Tensor& values, IntArrayRef shape) {
  Tensor v = values;
  while (v.dim() > 0 && v.sizes()[0] == 1 && v.dim() > static_cast<int64_t>(shape.size()))
    v = select(v, 0, 0);
  bool ok = v.dim() <= static_cast<int64_t>(shape.size());
  for (int64_t i = 1; ok && i <= v.dim(); ++i) {
    const int64_t have = v.sizes()[v.dim() - i], want = shape[shape.size() - i];
    ok = have == want || have == 1;
  }
  TANDEM_CHECK(ok, Runtime, "shape mismatch: value tensor of shape ", values.shape_str(),
               " cannot be broadcast to indexing result of shape ", shape_to_string(shape));
  return v;
}

}  // namespace

std::vector<Tensor> mask_indices(const Tensor& self, int64_t dim, const Tensor& mask) {
  TANDEM_CHECK(dim + mask.dim() <= self.dim(), Index, "too many indices for tensor of dimension ",
               self.dim());
  for (int64_t j = 0; j < mask.dim(); ++j) {
    TANDEM_CHECK(mask.sizes()[j] == self.sizes()[dim + j], Index, "The shape of the mask ", mask.shape_str(),
                 " at index ", j, " does not match the shape of the indexed tensor ", self.shape_str(),
                 " at index ", dim + j);
  }
  const Tensor coords = nonzero(mask);
  std::vector<Tensor> out;
  for (int64_t j = 0; j < mask.dim(); ++j) out.push_back(contiguous(select(coords, 1, j)));
  return out;
}

Tensor index(const Tensor& self, const std::vector<Tensor>& indices) {
  profiler::RecordScope profile_scope("aten::index", self, indices);
  if (autograd::should_record(self))
    return autograd::record_index(self, indices,
                                  autograd::without_grad([&] { return index(self, indices); }));
  const std::vector<Tensor> idx = expand_indices(self, indices);
  IndexPlan plan = plan_advanced(self, idx);
  check_index_ranges(self, idx);
  Tensor out = empty(plan.shape, self.dtype(), self.device());
  if (out.numel() == 0) return out;
  plan.other = static_cast<char*>(out.data_ptr());
  plan.other_strides = out.strides();
  coalesce(plan);
  run_gather(self, plan);
  return out;
}

namespace {
void check_mask(const Tensor& mask) {
  TANDEM_CHECK(mask.dtype() == DType::Bool, Runtime,
               "masked_fill_ only supports boolean masks, but got mask with dtype ",
               dtype_cpp_name(mask.dtype()), "\nhint: pass a bool mask, e.g. mask.bool() or (mask != 0)");
}

// PyTorch sends a put of one CPU value through a single mask index on self's device (no other index) to
// masked_fill_(mask, value.item()) (canDispatchToMaskedFill): the value is converted as a number, so its
// dtype need not match, and masked_fill_'s check refuses a uint8 mask. The mask, or null where the put goes
// on.
const Tensor* masked_fill_dispatch(const Tensor& self, const std::vector<Tensor>& indices,
                                   const Tensor& values, bool accumulate) {
  if (accumulate || values.numel() != 1 || !values.device().is_cpu()) return nullptr;
  const Tensor* mask = nullptr;
  for (const Tensor& index : indices) {
    if (!index.defined()) continue;
    if (mask || !is_mask_dtype(index.dtype()) || index.device() != self.device()) return nullptr;
    mask = &index;
  }
  return mask;
}
// x[mask] = values with one bool mask over self's leading dims and a whole block of values ((count, *rest),
// or that shape with leading 1s): PyTorch's result is masked_scatter's with the mask spread over the rest,
// which the device's kernel writes in one pass, without the mask's coordinates. Returns false, having done
// nothing, for any other put (and where a check would fail, so the general path raises PyTorch's error).
bool put_through_mask(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values) {
  if (indices.empty() || !indices[0].defined()) return false;
  for (size_t i = 1; i < indices.size(); ++i)
    if (indices[i].defined()) return false;
  const Tensor& mask = indices[0];
  if (mask.dtype() != DType::Bool || mask.device() != self.device() || values.device() != self.device() ||
      values.dtype() != self.dtype() || !self.is_contiguous() || self.numel() == 0 ||
      mask.dim() > self.dim() || values.storage().get() == self.storage().get() ||
      mask.storage().get() == self.storage().get())
    return false;
  const IntArrayRef sizes = self.sizes();
  for (int64_t d = 0; d < mask.dim(); ++d)
    if (mask.sizes()[d] != sizes[d]) return false;
  const Tensor m = contiguous(mask);
  const IndexKernels& kernels = kernel_table(self.device().type).index;
  const int64_t count = kernels.count_nonzero(m);
  DimVector block{count};
  for (int64_t d = mask.dim(); d < self.dim(); ++d) block.push_back(sizes[d]);
  // values must be the block itself (leading 1s aside): a broadcast value goes the general way
  const int64_t extra = values.dim() - static_cast<int64_t>(block.size());
  if (extra < 0) return false;
  for (int64_t d = 0; d < values.dim(); ++d)
    if (values.sizes()[d] != (d < extra ? 1 : block[d - extra])) return false;
  self.bump_version();
  if (count == 0) return true;
  DimVector spread = mask.sizes();
  while (spread.size() < sizes.size()) spread.push_back(1);
  const Tensor full_mask = mask.dim() == self.dim() ? m : contiguous(expand(reshape(m, spread), sizes));
  kernels.masked_scatter(self, full_mask, contiguous(values));
  return true;
}
}  // namespace

Tensor index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                  bool accumulate, IndexWriteOp op) {
  profiler::RecordScope profile_scope("aten::index_put_", self, indices, values, accumulate);
  const Tensor* fill_mask = masked_fill_dispatch(self, indices, values, accumulate);
  if (fill_mask && op == IndexWriteOp::IndexPut) check_mask(*fill_mask);
  if (autograd::should_record(self, values)) {
    return autograd::inplace_with_grad(
        self, [&](const Tensor& before) { return index_put(before, indices, values, accumulate); });
  }
  if (op == IndexWriteOp::IndexPut && !accumulate && put_through_mask(self, indices, values)) return self;
  // PyTorch's order: the indices' dtypes, devices, count and broadcast, the values' broadcast, the values'
  // dtype, and the indices' ranges last (its kernel's check).
  const std::vector<Tensor> idx = expand_indices(self, indices);
  IndexPlan plan = plan_advanced(self, idx);
  values_broadcastable_to(values, plan.shape);
  // (setitem hands over the mask's coordinates: op tells that one mask took the value)
  const bool mask_fill = fill_mask || (op == IndexWriteOp::IndexPutMaskedFill && values.numel() == 1 &&
                                       values.device().is_cpu() && !accumulate);
  Tensor converted;
  if (mask_fill && values.dtype() != self.dtype()) {
    const Scalar number = item(values);
    check_value_fits(number, self.dtype(), true);
    converted = full(DimVector{}, number, self.dtype(), self.device());
  }
  const Tensor& vals = converted.defined() ? converted : values;
  TANDEM_CHECK(vals.dtype() == self.dtype(), Runtime,
               "Index put requires the source and destination dtypes match, got ", dtype_title(self.dtype()),
               " for the destination and ", dtype_title(values.dtype()), " for the source.");
  // Into an expanded tensor (PyTorch warns and writes): the elements that share memory write in turn, so an
  // accumulating put adds every contribution.
  if (op == IndexWriteOp::IndexPut || op == IndexWriteOp::IndexPutMaskedFill)
    check_writeable_or_warn_expanded(self, "index_put_", "tensor[indices] = tensor");
  if (op != IndexWriteOp::IndexPut)
    check_writeable_or_warn_expanded(self, op == IndexWriteOp::IndexFill ? "index_fill_" : "masked_fill_",
                                     "tensor[mask] = scalar");
  // Values that alias self are read while self is written: take a copy first. A 0-dim value on another device
  // is copied to self's device, as an assignment t[i] = v copies it in; others are PyTorch's device error.
  // (PyTorch's masked_fill dispatch takes a one-element CPU value through one mask too.)
  if (vals.device() != self.device() && vals.dim() != 0 && !mask_fill)
    throw_device_mismatch("index_put_", self.device(), vals.device(), "values", self.device());
  check_index_ranges(self, idx);
  Tensor src = vals.storage().get() == self.storage().get()
                   ? clone(vals)
                   : to_device(vals, self.device(), std::nullopt, false);
  Tensor v = expand(values_broadcastable_to(src, plan.shape), plan.shape);
  self.bump_version();
  if (compute_numel(plan.shape) == 0) return self;
  plan.other = static_cast<char*>(v.data_ptr());
  plan.other_strides = v.strides();
  coalesce(plan);
  run_put(self, plan, accumulate);
  return self;
}

Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                 bool accumulate) {
  profiler::RecordScope profile_scope("aten::index_put", self, indices, values, accumulate);
  if (autocast::is_active())
    return autocast::run(autocast::kCudaPromote, index_put, self, indices, values, accumulate);
  if (autograd::should_record(self, values)) {
    Tensor out = autograd::without_grad([&] { return index_put(self, indices, values, accumulate); });
    return autograd::record_index_put(self, indices, values, accumulate, out);
  }
  return index_put_(clone_preserving_layout(self), indices, values, accumulate);
}

Tensor nonzero(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::nonzero", x);
  if (is_complex(x.dtype())) return nonzero(ne(x, Scalar(0.0)));  // nonzero when either part is
  const Tensor xc = contiguous(x);
  const IndexKernels& k = kernel_table(x.device().type).index;
  const int64_t count = x.numel() ? k.count_nonzero(xc) : 0;
  Tensor out = empty(DimVector{count, x.dim()}, DType::Int64, x.device());
  if (count > 0) k.nonzero(out, xc);
  return out;
}

std::vector<Tensor> nonzero_tuple(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::nonzero_tuple", x);
  const Tensor coords = nonzero(x.dim() == 0 ? unsqueeze(x, 0) : x);
  std::vector<Tensor> out;
  for (int64_t j = 0; j < coords.sizes()[1]; ++j) out.push_back(contiguous(select(coords, 1, j)));
  return out;
}

namespace {
// An in-place fill cannot grow its tensor: a mask that broadcasts to a larger shape is PyTorch's in-place
// broadcast error (before any write, on every path).
void check_mask_fits(const Tensor& x, const Tensor& mask) {
  const DimVector shape = broadcast_shapes(x.sizes(), mask.sizes());
  TANDEM_CHECK(shape == x.sizes(), Runtime, "output with shape ", x.shape_str(),
               " doesn't match the broadcast shape ", shape_to_string(shape),
               "\nhint: the in-place masked_fill_ cannot grow its tensor; use the "
               "out-of-place masked_fill()");
}
void check_value_dim(const Tensor& value) {
  TANDEM_CHECK(value.dim() == 0, Runtime,
               "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ", value.dim(),
               " dimension(s).");
}
}  // namespace

// PyTorch's order of checks: masked_fill broadcasts mask and x first (then fills a copy with masked_fill_);
// masked_fill_ checks a value tensor's dims, the mask's dtype, that the mask fits x, then converts the value.
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value) {
  profiler::RecordScope profile_scope("aten::masked_fill", x, mask, value);
  broadcast_shapes(mask.sizes(), x.sizes());
  check_mask(mask);
  // PyTorch's checked conversion of the value: 1e10 into float16 is an error, not inf (the 0-d fill below
  // would take fill_'s one-element 16-bit shortcut, which rounds).
  check_value_fits(value, x.dtype(), true);
  if (autograd::should_record(x))
    return autograd::record_masked_fill(x, mask, nullptr,
                                        autograd::without_grad([&] { return masked_fill(x, mask, value); }));
  // Row-major whatever x's layout, as PyTorch's (it fills a contiguous clone).
  Tensor out = where(mask, full(DimVector{}, value, x.dtype(), x.device()), x);
  return out.is_contiguous() ? out : contiguous(out);
}
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value) {
  profiler::RecordScope profile_scope("aten::masked_fill", x, mask, value);
  broadcast_shapes(mask.sizes(), x.sizes());
  check_value_dim(value);
  check_mask(mask);
  if (autograd::should_record(x, value)) {
    Tensor out = autograd::without_grad([&] { return masked_fill(x, mask, value); });
    return autograd::record_masked_fill(x, mask, &value, out);
  }
  return masked_fill(x, mask, item(value));
}

Tensor masked_fill_(const Tensor& x, const Tensor& mask, const Scalar& value) {
  profiler::RecordScope profile_scope("aten::masked_fill_", x, mask, value);
  check_mask(mask);
  check_mask_fits(x, mask);
  if (autograd::should_record(x))
    return autograd::inplace_with_grad(
        x, [&](const Tensor& before) { return masked_fill(before, mask, value); });
  check_value_fits(value, x.dtype(), true);  // as masked_fill
  const Tensor fill = full(DimVector{}, value, x.dtype(), x.device());
  if (!check_writeable_or_warn_expanded(x, "masked_fill_", "tensor[mask] = scalar"))
    return copy_(x, where(expand(mask, x.sizes()), fill, x));
  // Elements of x that share memory: the location gets the value when any of them is masked (PyTorch's loop
  // writes masked elements only), whatever order the elements are visited in.
  const Tensor target = distinct_elements(x);
  DimVector shared;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (target.sizes()[d] != x.sizes()[d]) shared.push_back(d);
  copy_(target, where(any(expand(mask, x.sizes()), shared, true), fill, target));
  return x;
}
Tensor masked_fill_(const Tensor& x, const Tensor& mask, const Tensor& value) {
  profiler::RecordScope profile_scope("aten::masked_fill_", x, mask, value);
  check_value_dim(value);
  check_mask(mask);
  check_mask_fits(x, mask);
  if (autograd::should_record(x, value))
    return autograd::inplace_with_grad(
        x, [&](const Tensor& before) { return masked_fill(before, mask, value); });
  return masked_fill_(x, mask, item(value));
}

Tensor masked_select(const Tensor& x, const Tensor& mask) {
  profiler::RecordScope profile_scope("aten::masked_select", x, mask);
  TANDEM_CHECK(mask.dtype() == DType::Bool, Runtime, "masked_select: expected BoolTensor for mask");
  if (autograd::should_record(x))
    return autograd::record_masked_select(x, mask,
                                          autograd::without_grad([&] { return masked_select(x, mask); }));
  DimVector shape = broadcast_shapes(x.sizes(), mask.sizes());
  if (shape.empty()) shape.push_back(1);  // a 0-d pair selects like a 1-element vector
  return index(expand(x, shape), {expand(mask, shape)});
}

}  // namespace tandem
