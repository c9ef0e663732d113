// The gather/scatter family: gather, scatter(_add), take_along_dim, one_hot, flip. Each builds an IndexPlan
// along one dim; the kernels are shared with advanced indexing.
#include <vector>

#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "ops/autocast.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/index_plan.h"
#include "ops/indexing.h"
#include "ops/layout.h"
#include "ops/view.h"

namespace tandem {

namespace {

// A plan over `index64`'s shape that pairs self (indexed along dim) with `other` at other_strides.
IndexPlan plan_along_dim(const Tensor& self, int64_t dim, const Tensor& index64, const char* other,
                         IntArrayRef other_strides) {
  IndexPlan plan;
  plan.device = self.device();
  plan.shape = index64.sizes();
  plan.self = static_cast<char*>(self.data_ptr());
  plan.self_strides = self.strides();
  plan.self_strides[dim] = 0;
  plan.other = const_cast<char*>(other);
  plan.other_strides = DimVector(other_strides);
  plan.indices.push_back(
      {index64.data<int64_t>(), index64.strides(), self.sizes()[dim], self.strides()[dim]});
  plan.dtype = self.dtype();
  coalesce(plan);
  return plan;
}

// PyTorch accepts int32 and int64 indices in this family (and names the op "scatter" for scatter_add too).
void check_index_dtype(const Tensor& index, const char* op) {
  TANDEM_CHECK(index.dtype() == DType::Int64 || index.dtype() == DType::Int32, Runtime, op,
               "(): Expected dtype int32/int64 for index\nhint: convert the index with .long()");
}

void check_index_range(const Tensor& index64, int64_t dim, int64_t size) {
  int64_t bad;
  if (index_in_range(index64, size, false, bad)) return;
  // index_in_range found an extreme one; PyTorch's kernel names the first out of range, in order.
  const Tensor host = contiguous(to_device(index64, Device(), std::nullopt, false));
  const int64_t* p = host.data<int64_t>();
  for (int64_t i = 0, n = host.numel(); i < n; ++i)
    if (p[i] < 0 || p[i] >= size) {
      bad = p[i];
      break;
    }
  TANDEM_THROW(Runtime, "index ", bad, " is out of bounds for dimension ", dim, " with size ", size);
}

// index.size(d) <= self.size(d) for d != dim and (for scatter) <= src.size(d) for every d.
void check_scatter_shapes(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  if (index.numel() == 0) return;  // an empty index writes nothing: PyTorch checks no shape
  TANDEM_CHECK(index.dim() == self.dim(), Runtime,
               "Index tensor must have the same number of dimensions as self tensor");
  if (src) {
    TANDEM_CHECK(index.dim() == src->dim(), Runtime,
                 "Index tensor must have the same number of dimensions as src tensor");
  }
  bool ok = true;
  for (int64_t d = 0; d < index.dim(); ++d) {
    ok = ok && (d == dim || index.sizes()[d] <= self.sizes()[d]);
    ok = ok && (!src || index.sizes()[d] <= src->sizes()[d]);
  }
  if (src) {
    TANDEM_CHECK(ok, Runtime, "Expected index ", index.shape_str(), " to be no larger than self ",
                 self.shape_str(), " apart from dimension ", dim, " and to be no larger size than src ",
                 src->shape_str());
  } else {
    TANDEM_CHECK(ok, Runtime, "Expected index ", index.shape_str(), " to be no larger than self ",
                 self.shape_str(), " apart from dimension ", dim);
  }
}

// scatter_ / scatter_add_ with src already broadcast or shaped (src_view's strides are used over index's
// shape).
Tensor scatter_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src_view,
                    bool accumulate, const char* op) {
  check_writeable(self, op);
  const Tensor s = at_least_1d(self), i = at_least_1d(index), v = at_least_1d(src_view);
  dim = wrap_dim(dim, s.dim());
  check_same_device(op, self, index, "input", "index");
  check_same_device(op, self, src_view, "input", "src");
  const Tensor index64 = contiguous_int64(i);
  check_index_range(index64, dim, s.sizes()[dim]);
  if (index64.numel() == 0) return self;
  const Tensor src = v.storage().get() == s.storage().get() ? clone(v) : v;
  run_put(s, plan_along_dim(s, dim, index64, static_cast<char*>(src.data_ptr()), src.strides()), accumulate);
  self.bump_version();
  return self;
}

Tensor scatter_src(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, bool accumulate,
                   const char* op) {
  check_index_dtype(index, "scatter");
  // scatter_add shares scatter's check, and PyTorch's message names scatter for both.
  TANDEM_CHECK(self.dtype() == src.dtype(), Runtime,
               "scatter(): Expected self.dtype to be equal to src.dtype");
  const Tensor s = at_least_1d(self), i = at_least_1d(index), v = at_least_1d(src);
  check_scatter_shapes(s, wrap_dim(dim, s.dim()), i, &v);
  return scatter_impl(self, dim, index, src, accumulate, op);
}

}  // namespace

Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  profiler::RecordScope profile_scope("aten::gather", x, dim, index);
  if (autograd::should_record(x))
    return autograd::record_gather(x, dim, index,
                                   autograd::without_grad([&] { return gather(x, dim, index); }));
  const Tensor s = at_least_1d(x), i = at_least_1d(index);
  dim = wrap_dim(dim, s.dim());
  // An empty index reads nothing: PyTorch checks neither its dtype nor its shape.
  if (index.numel() == 0) return empty(index.sizes(), x.dtype(), x.device());
  check_index_dtype(index, "gather");
  TANDEM_CHECK(i.dim() == s.dim(), Runtime,
               "Index tensor must have the same number of dimensions as input tensor");
  for (int64_t d = 0; d < s.dim(); ++d) {
    TANDEM_CHECK(d == dim || i.sizes()[d] <= s.sizes()[d], Runtime, "Size does not match at dimension ", d,
                 " expected index ", index.shape_str(), " to be no larger than self ", x.shape_str(),
                 " apart from dimension ", dim);
  }
  check_same_device("gather", x, index, "input", "index");
  const Tensor index64 = contiguous_int64(i);
  check_index_range(index64, dim, s.sizes()[dim]);
  Tensor out = empty(index.sizes(), x.dtype(), x.device());
  if (out.numel() > 0) {
    run_gather(s, plan_along_dim(s, dim, index64, static_cast<char*>(out.data_ptr()),
                                 contiguous_strides(index64.sizes())));
  }
  return out;
}

Tensor scatter_(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  profiler::RecordScope profile_scope("aten::scatter_", x, dim, index, src);
  if (autograd::should_record(x, src))
    return autograd::inplace_with_grad(
        x, [&](const Tensor& before) { return scatter(before, dim, index, src); });
  return scatter_src(x, dim, index, src, false, "scatter");
}
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  profiler::RecordScope profile_scope("aten::scatter", x, dim, index, src);
  if (autograd::should_record(x, src)) {
    Tensor out = autograd::without_grad([&] { return scatter(x, dim, index, src); });
    return autograd::record_scatter(x, dim, index, &src, false, out);
  }
  return scatter_(clone(x), dim, index, src);
}
Tensor scatter_(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value) {
  profiler::RecordScope profile_scope("aten::scatter_", x, dim, index, value);
  if (autograd::should_record(x))
    return autograd::inplace_with_grad(
        x, [&](const Tensor& before) { return scatter(before, dim, index, value); });
  check_index_dtype(index, "scatter");
  const Tensor s = at_least_1d(x), i = at_least_1d(index);
  check_scatter_shapes(s, wrap_dim(dim, s.dim()), i, nullptr);
  const Tensor v = expand(full(DimVector{}, value, x.dtype(), x.device()), i.sizes());
  return scatter_impl(x, dim, index, v, false, "scatter");
}
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value) {
  profiler::RecordScope profile_scope("aten::scatter", x, dim, index, value);
  if (autograd::should_record(x)) {
    Tensor out = autograd::without_grad([&] { return scatter(x, dim, index, value); });
    return autograd::record_scatter(x, dim, index, nullptr, false, out);
  }
  return scatter_(clone(x), dim, index, value);
}
Tensor scatter_add_(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  profiler::RecordScope profile_scope("aten::scatter_add_", x, dim, index, src);
  if (autograd::should_record(x, src)) {
    return autograd::inplace_with_grad(
        x, [&](const Tensor& before) { return scatter_add(before, dim, index, src); });
  }
  if ((x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16) && src.dtype() == x.dtype()) {
    // PyTorch's CPU scatter_add (and scatter_reduce's sum and mean over it) adds 16-bit values in float32 and
    // rounds each slot once at the end; adding into the 16-bit slot element by element rounds at every step
    // (an ulp off in a few slots of 64 values). index_add_ and index_put_(accumulate=True) do round at every
    // step in PyTorch, and keep the element-by-element path.
    check_writeable(x, "scatter_add");
    const Tensor wide = to_dtype(x, DType::Float32);
    scatter_src(wide, dim, index, to_dtype(src, DType::Float32), true, "scatter_add");
    copy_(x, wide);
    return x;
  }
  return scatter_src(x, dim, index, src, true, "scatter_add");
}
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
  profiler::RecordScope profile_scope("aten::scatter_add", x, dim, index, src);
  if (autocast::is_active()) return autocast::run(autocast::kCudaPromote, scatter_add, x, dim, index, src);
  if (autograd::should_record(x, src)) {
    Tensor out = autograd::without_grad([&] { return scatter_add(x, dim, index, src); });
    return autograd::record_scatter(x, dim, index, &src, true, out);
  }
  return scatter_add_(clone(x), dim, index, src);
}

Tensor take_along_dim(const Tensor& x, const Tensor& indices, std::optional<int64_t> dim) {
  profiler::RecordScope profile_scope("aten::take_along_dim", x, indices, dim);
  // Without a dim PyTorch's is self.view(-1).gather(0, indices.view(-1)): gather's dtype rule and checks.
  if (!dim) return gather(flattened(x), 0, flattened(indices));
  // With one, PyTorch checks the ranks, the indices' dtype, then the dim (a 0-d self has none to name).
  TANDEM_CHECK(
      x.dim() == indices.dim(), Runtime,
      "torch.take_along_dim(): input and indices should have the same number of dimensions, but got ",
      x.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  TANDEM_CHECK(indices.dtype() == DType::Int64, Runtime,
               "torch.take_along_dim(): dtype of indices should be Long but got ",
               dtype_title(indices.dtype()));
  // (a 0-d self's dim is wrapped as a 1-d one's first: PyTorch names -1 as 0)
  TANDEM_CHECK(x.dim() > 0, Index, "Dimension specified as ", wrap_dim(*dim, 1),
               " but tensor has no dimensions");
  const Tensor s = x, i = indices;
  const int64_t d = wrap_dim(*dim, s.dim());
  DimVector self_sizes = s.sizes();
  self_sizes[d] = i.sizes()[d];
  DimVector shape = broadcast_shapes(self_sizes, i.sizes());
  // PyTorch 2.15 reads the indices along a dim modulo its size (3 of a size-3 dim is row 0, -4 row 2);
  // without a dim they stay checked (below, through gather).
  const int64_t size = s.sizes()[d];
  const Tensor ib = expand(size > 0 ? remainder(i, Scalar(size)) : i, shape);
  shape[d] = size;
  return gather(expand(s, shape), d, ib);
}

Tensor one_hot(const Tensor& x, int64_t num_classes) {
  profiler::RecordScope profile_scope("aten::one_hot", x, num_classes);
  TANDEM_CHECK(x.dtype() == DType::Int64, Runtime,
               "one_hot is only applicable to index tensor of type LongTensor.");
  TANDEM_CHECK(
      !x.device().is_meta() || num_classes != -1, Runtime,
      "Tensor.item() cannot be called on meta tensors\nhint: one_hot of a meta tensor cannot infer the "
      "number of classes from its values; pass num_classes=");
  const Tensor x64 = contiguous(x);
  int64_t lo = 0, hi = -1;
  const bool any = index_min_max(x64, lo, hi);
  TANDEM_CHECK(any || num_classes > 0, Runtime, "Can not infer total number of classes from empty tensor.");
  TANDEM_CHECK(lo >= 0, Runtime, "Class values must be non-negative.");
  if (num_classes == -1) num_classes = hi + 1;
  TANDEM_CHECK(hi < num_classes, Runtime, "Class values must be smaller than num_classes.");
  DimVector shape = x.sizes();
  shape.push_back(num_classes);
  Tensor out = full(shape, Scalar(int64_t{0}), DType::Int64, x.device());
  if (any) scatter_(out, -1, unsqueeze(x64, -1), Scalar(int64_t{1}));
  return out;
}

Tensor flip(const Tensor& x, IntArrayRef dims) {
  profiler::RecordScope profile_scope("aten::flip", x, dims);
  if (autograd::should_record(x))
    return autograd::record_flip(x, dims, autograd::without_grad([&] { return flip(x, dims); }));
  std::vector<bool> flipped(std::max<int64_t>(x.dim(), 1), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, x.dim());
    TANDEM_CHECK(!flipped[w], Runtime, "dim ", w, " appears multiple times in the list of dims");
    flipped[w] = true;
  }
  if (x.numel() == 0 || x.dim() == 0) return clone(x);
  // A private view that walks the flipped dims backwards (negative strides); the copy makes it a normal
  // tensor.
  DimVector strides = x.strides();
  int64_t offset = x.storage_offset();
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (!flipped[d]) continue;
    offset += (x.sizes()[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  // The result is laid out as x (PyTorch's flip fills an empty_like(x)).
  Tensor out = empty_laid_out(x.sizes(), preserved_strides(x), x.dtype(), x.device());
  copy_elements(out, make_view(x, x.sizes(), strides, offset));
  return out;
}

Tensor fliplr(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::fliplr", x);
  TANDEM_CHECK(x.dim() >= 2, Runtime, "Input must be >= 2-d.");
  return flip(x, DimVector{1});
}

Tensor flipud(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::flipud", x);
  TANDEM_CHECK(x.dim() >= 1, Runtime, "Input must be >= 1-d.");
  return flip(x, DimVector{0});
}

}  // namespace tandem
