// The index_select family (index_select, index_add_, index_copy_, index_fill_) and take: a 1-D index picks
// whole slices along one dim, read or written through the shared IndexPlan kernels.
#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/index_plan.h"
#include "ops/indexing.h"
#include "ops/layout.h"
#include "ops/out_arg.h"
#include "ops/value_range.h"
#include "ops/view.h"

namespace tandem {

namespace {

// The plan pairing self's slices index[j] along dim with slice j of `other` (shaped like self, with
// index.numel() entries along dim).
IndexPlan plan_slices(const Tensor& self, int64_t dim, const Tensor& index64, const Tensor& other) {
  IndexPlan plan;
  plan.device = self.device();
  plan.shape = other.sizes();
  plan.self = static_cast<char*>(self.data_ptr());
  plan.self_strides = self.strides();
  plan.self_strides[dim] = 0;
  plan.other = static_cast<char*>(other.data_ptr());
  plan.other_strides = other.strides();
  DimVector index_strides(other.dim(), 0);
  index_strides[dim] = 1;
  plan.indices.push_back({index64.data<int64_t>(), index_strides, self.sizes()[dim], self.strides()[dim]});
  plan.dtype = self.dtype();
  coalesce(plan);
  return plan;
}

// The write shared by index_add_ and index_copy_ (after their checks).
Tensor put_slices(const Tensor& x, int64_t dim, const Tensor& index64, const Tensor& source,
                  bool accumulate) {
  check_writeable(x, accumulate ? "index_add_" : "index_copy_");
  const Tensor s = at_least_1d(x);
  const Tensor src = at_least_1d(source.storage().get() == x.storage().get() ? clone(source) : source);
  if (index64.numel() > 0) run_put(s, plan_slices(s, dim, index64, src), accumulate);
  x.bump_version();
  return x;
}

// Whether src's sizes are s's everywhere but along dim (index_add's and index_copy_'s shape rule).
bool same_slice_shapes(const Tensor& s, int64_t dim, const Tensor& src) {
  bool ok = src.dim() == s.dim();
  for (int64_t d = 0; ok && d < s.dim(); ++d) ok = d == dim || src.sizes()[d] == s.sizes()[d];
  return ok;
}

}  // namespace

void check_index_func_source(const char* op, const Tensor& x, int64_t dim, int64_t index_count,
                             const Tensor& source) {
  TANDEM_CHECK(dim == 0 || dim < source.dim(), Runtime, op, "_(): Indexing dim ", dim,
               " is out of bounds of the source tensor with dim ", source.dim());
  // A 0-dim source stands for one slice; PyTorch's message reads source.size(dim) even then, which is its
  // IndexError for a tensor without dimensions.
  TANDEM_CHECK(index_count == 1 || source.dim() > 0, Index, "Dimension specified as ", dim,
               " but tensor has no dimensions");
  const int64_t slices = source.dim() == 0 ? 1 : source.sizes()[dim];
  TANDEM_CHECK(index_count == slices, Runtime, op, "_(): Number of indices (", index_count,
               ") should be equal to source.size(dim): (", slices, "), for dim: ", dim);
  // A 0-dim self or source matches only the other's whole shape (a [1] source for a 0-dim self is refused).
  const bool scalar_pair = x.dim() == 0 && source.dim() == 0;
  TANDEM_CHECK(scalar_pair || (x.dim() > 0 && same_slice_shapes(x, dim, source)), Runtime,
               "source tensor shape must match self tensor shape, excluding the specified dimension. Got "
               "self.shape = ",
               x.shape_str(), " source.shape = ", source.shape_str());
}

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  profiler::RecordScope profile_scope("aten::index_select", x, dim, index);
  if (autograd::should_record(x))
    return autograd::record_index_select(x, dim, index,
                                         autograd::without_grad([&] { return index_select(x, dim, index); }));
  // PyTorch's order: the dim (a 0-d self's as a 1-d one's), the index's rank, a 0-d self's one index, its
  // dtype.
  const Tensor s = at_least_1d(x);
  dim = wrap_dim(dim, s.dim());
  TANDEM_CHECK(index.dim() <= 1, Index, "index_select(): Index is supposed to be a vector");
  TANDEM_CHECK(x.dim() > 0 || index.numel() == 1, Runtime,
               "index_select(): Index to scalar can have only 1 value, got ", index.numel(), " value(s)");
  TANDEM_CHECK(index.dtype() == DType::Int64 || index.dtype() == DType::Int32, Runtime,
               "index_select(): Expected dtype int32 or int64 for index");
  check_same_device("index_select", x, index, "input", "index");
  const Tensor index64 = contiguous_int64(at_least_1d(index));
  TANDEM_CHECK(s.sizes()[dim] > 0 || index64.numel() == 0, Runtime,
               "index_select(): self indexing axis dim should be positive", "\nhint: dim ", dim,
               " of the input is empty, so no index can pick from it");
  int64_t bad;
  if (!index_in_range(index64, s.sizes()[dim], false, bad)) {
    // PyTorch's two messages: its CPU kernel's path for dim 1 of a matrix (or of more dims) words its own.
    TANDEM_CHECK(x.dim() > 1 && dim == 1, Index, "index out of range in self",
                 "\nhint: index_select(dim=", dim, ") needs indices in [0, ", s.sizes()[dim], "); got ", bad);
    TANDEM_THROW(Runtime, "INDICES element is out of DATA bounds, id=", bad, " axis_dim=", s.sizes()[dim],
                 "\nhint: index_select(dim=", dim, ") needs indices in [0, ", s.sizes()[dim], ")");
  }
  DimVector shape = s.sizes();
  shape[dim] = index64.numel();
  Tensor out = empty(shape, x.dtype(), x.device());
  if (out.numel() > 0) run_gather(s, plan_slices(s, dim, index64, out));
  return x.dim() == 0 ? reshape(out, DimVector{}) : out;  // a scalar's selection is a scalar, as in PyTorch
}

Tensor index_add_(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                  const Scalar& alpha) {
  profiler::RecordScope profile_scope("aten::index_add_", x, dim, index, source, alpha);
  if (autograd::should_record(x, source)) {
    return autograd::inplace_with_grad(
        x, [&](const Tensor& before) { return index_add(before, dim, index, source, alpha); });
  }
  TANDEM_CHECK(index.dim() <= 1, Index,
               "index_add_(): Index is supposed to be a vector, but got dim: ", index.dim(),
               " with type: ", dtype_title(index.dtype()), " and size: ", index.shape_str());
  TANDEM_CHECK(index.dtype() == DType::Int64 || index.dtype() == DType::Int32, Runtime,
               "index_add_(): Expected dtype int32/int64 for index but got: ", dtype_title(index.dtype()));
  TANDEM_CHECK(x.dtype() == source.dtype(), Runtime, "index_add_(): self (", dtype_title(x.dtype()),
               ") and source (", dtype_title(source.dtype()), ") must have the same scalar type");
  TANDEM_CHECK(!alpha.is_float() || is_floating(x.dtype()), Runtime,
               "For integral input tensors, argument alpha must not be a floating point number.");
  TANDEM_CHECK(!alpha.is_complex() || is_complex(x.dtype()), Runtime, "value cannot be converted to type ",
               dtype_cpp_name(x.dtype()), " without overflow");
  check_same_device("index_add_", x, index, "input", "index");
  check_same_device("index_add_", x, source, "input", "source");
  const Tensor s = at_least_1d(x);
  dim = wrap_dim(dim, s.dim());
  const Tensor index64 = contiguous_int64(at_least_1d(index));
  check_index_func_source("index_add", x, dim, index64.numel(), source);
  // (PyTorch's unit-alpha path takes the number 1 only: alpha=True goes the scaled way, as the range error
  // shows)
  const bool unit = !alpha.is_bool() && !alpha.is_complex() && alpha.to_double() == 1.0;
  int64_t bad;
  if (!index_in_range(index64, s.sizes()[dim], false, bad)) {
    // PyTorch's two messages: its kernels for a vector (or 0-dim) self and for an alpha other than 1 check as
    // an embedding lookup does.
    TANDEM_CHECK(x.dim() > 1 && unit, Index, "index out of range in self\nhint: index ", bad,
                 " is outside [0, ", s.sizes()[dim], ")");
    TANDEM_THROW(Runtime, "index ", bad, " is out of bounds for dimension ", dim, " with size ",
                 s.sizes()[dim]);
  }
  if (unit) return put_slices(x, dim, index64, source, true);
  // PyTorch's CPU loop adds source * alpha with alpha in self's type: a float16/bfloat16 alpha is rounded
  // to 16 bits first (a 0-dim tensor of that type; a Python number would multiply in float32).
  const bool half = x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16;
  const Tensor scaled =
      half ? mul(source, full(DimVector{}, alpha, x.dtype(), source.device())) : mul(source, alpha);
  return put_slices(x, dim, index64, to_dtype(scaled, x.dtype()), true);
}

Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha) {
  profiler::RecordScope profile_scope("aten::index_add", x, dim, index, source, alpha);
  if (autograd::should_record(x, source)) {
    Tensor out = autograd::without_grad([&] { return index_add(x, dim, index, source, alpha); });
    return autograd::record_index_add(x, dim, index, source, alpha, out);
  }
  return index_add_(clone(x), dim, index, source, alpha);
}

Tensor index_copy_(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source) {
  profiler::RecordScope profile_scope("aten::index_copy_", x, dim, index, source);
  check_out_overlap(x, {&index, &source});  // x[1:4] as the source of x: PyTorch refuses
  if (autograd::should_record(x, source)) {
    return autograd::inplace_with_grad(
        x, [&](const Tensor& before) { return index_copy(before, dim, index, source); });
  }
  const Tensor s = at_least_1d(x);
  dim = wrap_dim(dim, s.dim());
  TANDEM_CHECK(index.dim() <= 1, Index, "index_copy_(): Index should have dimension 1 or 0 (got ",
               index.dim(), ")");
  TANDEM_CHECK(source.dim() > 0 || index.numel() == 1, Index,
               "index_copy_(): When source is scalar, index should have one element (got ", index.numel(),
               ")");
  TANDEM_CHECK(x.dim() == 0 || source.dim() == 0 || x.dim() == source.dim(), Index,
               "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
               "Source dimensionality (",
               source.dim(), "), destination dimensionality (", x.dim(), ")");
  TANDEM_CHECK(index.dtype() == DType::Int64, Runtime,
               "index_copy_(): Expected a long tensor for index, but got ", dtype_title(index.dtype()));
  TANDEM_CHECK(x.dtype() == source.dtype(), Runtime,
               "index_copy_(): self and source expected to have the same dtype, but got (self) ",
               dtype_title(x.dtype()), " and (source) ", dtype_title(source.dtype()));
  check_same_device("index_copy_", x, index, "input", "index");
  check_same_device("index_copy_", x, source, "input", "source");
  const Tensor index64 = contiguous(at_least_1d(index));
  // PyTorch compares the sizes without dim (none for a 0-dim tensor) and words them space-separated.
  const auto sliced = [dim](const Tensor& t) {
    DimVector out;
    for (int64_t d = 0; d < t.dim(); ++d)
      if (d != dim) out.push_back(t.sizes()[d]);
    return out;
  };
  const auto words = [](const DimVector& sizes) {
    std::string out;
    for (const int64_t n : sizes) out.append(out.empty() ? "" : " ").append(std::to_string(n));
    return out;
  };
  const DimVector self_slice = sliced(x), source_slice = sliced(source);
  TANDEM_CHECK(
      self_slice == source_slice, Runtime,
      "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: ",
      words(self_slice), " at dimension ", dim, " and source slice shape: ", words(source_slice),
      " at dimension 0.");
  TANDEM_CHECK(source.dim() == 0 || index64.numel() == source.sizes()[dim], Index,
               "index_copy_(): Number of indices (", index64.numel(),
               ") should be equal to source.size(dim) (", source.sizes()[dim], ")");
  int64_t bad;
  TANDEM_CHECK(index_in_range(index64, s.sizes()[dim], false, bad), Index, "index_copy_(): index ", bad,
               " is out of bounds for dimension ", dim, " with size ", s.sizes()[dim]);
  return put_slices(x, dim, index64, source, false);
}

Tensor index_copy(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source) {
  profiler::RecordScope profile_scope("aten::index_copy", x, dim, index, source);
  if (autograd::should_record(x, source)) {
    Tensor out = autograd::without_grad([&] { return index_copy(x, dim, index, source); });
    return autograd::record_index_copy(x, dim, index, source, out);
  }
  return index_copy_(clone(x), dim, index, source);
}

Tensor index_fill_(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value) {
  profiler::RecordScope profile_scope("aten::index_fill_", x, dim, index, value);
  if (autograd::should_record(x)) {
    return autograd::inplace_with_grad(
        x, [&](const Tensor& before) { return index_fill(before, dim, index, value); });
  }
  TANDEM_CHECK(index.dtype() == DType::Int64, Index, "index_fill_(): Expected dtype int64 for index.");
  check_same_device("index_fill_", x, index, "input", "index");
  TANDEM_CHECK(index.dim() <= 1, Runtime, "Index has to be a vector/scalar");
  TANDEM_CHECK(!value.is_complex() || is_complex(x.dtype()), Runtime,
               "index_fill_(): Converting complex Scalar to non-complex type is not supported");
  check_value_fits(value, x.dtype(), true);  // 1e10 into float16 is an error, as PyTorch's fill (not inf)
  const bool expanded = check_writeable_or_warn_expanded(x, "index_fill_", "tensor[mask] = scalar");
  const Tensor s = at_least_1d(x);
  dim = wrap_dim(dim, s.dim());
  Tensor index64 = contiguous(at_least_1d(index));
  int64_t bad;
  TANDEM_CHECK(index_in_range(index64, s.sizes()[dim], true, bad), Index, "index ", bad,
               " is out of bounds for dimension ", dim, " with size ", s.sizes()[dim]);
  // An expanded x (PyTorch warns and fills): each memory location is filled once; along an expanded dim every
  // index names the same one.
  const Tensor target = expanded ? distinct_elements(s) : s;
  if (target.sizes()[dim] != s.sizes()[dim])
    index64 = full(index64.sizes(), Scalar(int64_t{0}), DType::Int64, x.device());
  DimVector shape = target.sizes();
  shape[dim] = index64.numel();
  const Tensor v = expand(full(DimVector{}, value, x.dtype(), x.device()), shape);
  if (index64.numel() > 0 && compute_numel(shape) > 0)
    run_put(target, plan_slices(target, dim, index64, v), false);
  x.bump_version();
  return x;
}

Tensor index_fill_(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& value) {
  profiler::RecordScope profile_scope("aten::index_fill_", x, dim, index, value);
  TANDEM_CHECK(value.dim() == 0, Runtime,
               "index_fill_ only supports a 0-dimensional value tensor, but got tensor "
               "with ",
               value.dim(), " dimension(s).");
  if (autograd::should_record(value)) {
    return autograd::inplace_with_grad(x, [&](const Tensor& before) {
      Tensor out = autograd::without_grad([&] { return index_fill(before, dim, index, item(value)); });
      return autograd::record_index_fill(before, dim, index, &value, out);
    });
  }
  return index_fill_(x, dim, index, item(value));
}

Tensor index_fill(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value) {
  profiler::RecordScope profile_scope("aten::index_fill", x, dim, index, value);
  if (autograd::should_record(x)) {
    Tensor out = autograd::without_grad([&] { return index_fill(x, dim, index, value); });
    return autograd::record_index_fill(x, dim, index, nullptr, out);
  }
  return index_fill_(clone_preserving_layout(x), dim, index, value);
}

Tensor take(const Tensor& x, const Tensor& index) {
  profiler::RecordScope profile_scope("aten::take", x, index);
  TANDEM_CHECK(index.dtype() == DType::Int64, Runtime, "take(): Expected a long tensor for index, but got ",
               dtype_title(index.dtype()));
  TANDEM_CHECK(index.device() == x.device(), Runtime,
               "take(): self, index and out expected to be in the same device, but got self.device = ",
               x.device().str(), ", index.device = ", index.device().str(),
               ", and out.device = ", x.device().str());
  const Tensor index64 = contiguous(index);
  TANDEM_CHECK(x.numel() > 0 || index64.numel() == 0, Index, "take(): tried to take from an empty tensor");
  int64_t bad;
  TANDEM_CHECK(index_in_range(index64, x.numel(), true, bad), Index, "out of range: tried to access index ",
               bad, " on a tensor of ", x.numel(), " elements.");
  if (autograd::should_record(x))
    return autograd::record_take(x, index64, autograd::without_grad([&] { return take(x, index); }));
  return tandem::index(flattened(x), {index64});
}

}  // namespace tandem
