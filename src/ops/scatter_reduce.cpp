// scatter_reduce, index_reduce and masked_scatter over public ops. sum and mean are scatter_add; prod, amax
// and amin sort the scattered values by target (stable), reduce each run of equal targets with a segmented
// log-step scan (ops/scan.h) and write each run's last element with index_put_. Gradients are PyTorch's
// formulas (scatter_reduce_backward, masked_scatter_backward) over public ops.
#include "ops/scatter_reduce.h"

#include <string>
#include <utility>
#include <vector>

#include "autograd/formulas.h"
#include "core/error.h"
#include "core/memory_overlap.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/index_plan.h"
#include "ops/indexing.h"
#include "ops/join.h"
#include "ops/reduce.h"
#include "ops/scan.h"
#include "ops/view.h"

namespace tandem {

namespace {

enum class Reduce : int8_t { Sum, Prod, Mean, Amax, Amin };

Reduce parse_reduce(std::string_view r, bool index_form) {
  if (!index_form && r == "sum") return Reduce::Sum;
  if (r == "prod") return Reduce::Prod;
  if (r == "mean") return Reduce::Mean;
  if (r == "amax") return Reduce::Amax;
  if (r == "amin") return Reduce::Amin;
  // PyTorch's scatter_reduce still takes the old spellings max/min (as amax/amin); index_reduce does not.
  if (!index_form && r == "max") return Reduce::Amax;
  if (!index_form && r == "min") return Reduce::Amin;
  if (index_form)
    TANDEM_THROW(Runtime, "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ", r,
                 ".");
  TANDEM_THROW(Runtime, "reduce argument must be either sum, prod, mean, amax or amin, got ", r);
}

Tensor scalar_of(double v, DType dtype, Device device) { return full(DimVector{}, Scalar(v), dtype, device); }

// src restricted to index's extent (scatter reads only that part of a larger src).
Tensor leading_part(const Tensor& src, IntArrayRef sizes) {
  Tensor r = src;
  for (int64_t k = 0; k < r.dim(); ++k)
    if (r.sizes()[k] != sizes[k]) r = narrow(r, k, 0, sizes[k]);
  return r;
}

// Pads a gradient shaped like index with zeros up to src's shape.
Tensor pad_to(const Tensor& g, IntArrayRef sizes) {
  Tensor r = g;
  for (int64_t k = 0; k < r.dim(); ++k) {
    if (r.sizes()[k] == sizes[k]) continue;
    DimVector rest = r.sizes();
    rest[k] = sizes[k] - r.sizes()[k];
    r = cat({r, full(rest, Scalar(0.0), r.dtype(), r.device())}, k);
  }
  return r;
}

// The checks of PyTorch's scatter family, on the at-least-1-d operands.
void check_scatter_args(const Tensor& s, int64_t d, const Tensor& i, const Tensor& v) {
  TANDEM_CHECK(i.dtype() == DType::Int64 || i.dtype() == DType::Int32, Runtime,
               "scatter(): Expected dtype int32/int64 for index\nhint: convert the index with .long()");
  TANDEM_CHECK(s.dtype() == v.dtype(), Runtime, "scatter(): Expected self.dtype to be equal to src.dtype",
               "\nhint: convert src, e.g. src.to(self.dtype)");
  check_same_device("scatter_reduce", s, i, "input", "index");
  check_same_device("scatter_reduce", s, v, "input", "src");
  if (i.numel() == 0) return;  // an empty index writes nothing: PyTorch checks no shape
  TANDEM_CHECK(i.dim() == s.dim(), Runtime,
               "Index tensor must have the same number of dimensions as self tensor");
  TANDEM_CHECK(i.dim() == v.dim(), Runtime,
               "Index tensor must have the same number of dimensions as src tensor");
  bool ok = true;
  for (int64_t k = 0; k < i.dim(); ++k)
    ok = ok && (k == d || i.sizes()[k] <= s.sizes()[k]) && i.sizes()[k] <= v.sizes()[k];
  TANDEM_CHECK(ok, Runtime, "Expected index ", i.shape_str(), " to be no larger than self ", s.shape_str(),
               " apart from dimension ", d, " and to be no larger size than src ", v.shape_str());
}

// For each element of index, its offset into a contiguous tensor of self's shape.
Tensor target_offsets(IntArrayRef self_sizes, int64_t d, const Tensor& index64) {
  const DimVector strides = contiguous_strides(self_sizes);
  Tensor key = mul(index64, Scalar(strides[d]));
  for (int64_t k = 0; k < index64.dim(); ++k)
    if (k != d && index64.sizes()[k] > 1)
      key = add(key, mul(positions_along(index64.sizes(), k, index64.device()), Scalar(strides[k])));
  return key;
}

Tensor combine(Reduce r, const Tensor& a, const Tensor& b) {
  return r == Reduce::Prod ? mul(a, b) : r == Reduce::Amax ? maximum(a, b) : minimum(a, b);
}

// prod/amax/amin into `out` (contiguous, self's values): the values sorted by target, a segmented scan over
// runs of equal targets, and each run's total (its last element) written to its target.
void reduce_by_target(const Tensor& out, int64_t d, const Tensor& index64, const Tensor& values, Reduce r,
                      bool include_self) {
  Tensor keys = reshape(target_offsets(out.sizes(), d, index64), DimVector{-1});
  ValuesIndices sorted = sort(keys, 0, false, /*stable=*/true);
  Tensor vals = index_select(reshape(contiguous(values), DimVector{-1}), 0, sorted.second);
  ScanParts scanned =
      log_step_scan({sorted.first, vals}, 0, [r](const ScanParts& a, const ScanParts& b, const ScanParts& o) {
        copy_(o[0], b[0]);
        copy_(o[1], where(eq(a[0], b[0]), combine(r, a[1], b[1]), b[1]));
      });
  const int64_t m = keys.numel();
  Tensor last = cat({ne(narrow(scanned[0], 0, 0, m - 1), narrow(scanned[0], 0, 1, m - 1)),
                     full(DimVector{1}, Scalar(true), DType::Bool, keys.device())},
                    0);
  Tensor targets = masked_select(scanned[0], last);
  Tensor totals = masked_select(scanned[1], last);
  Tensor flat = reshape(out, DimVector{-1});
  if (include_self) totals = combine(r, index(flat, {targets}), totals);
  index_put_(flat, {targets}, totals);
}

// The forward, on operands already checked; grad mode off or nothing to record.
Tensor scatter_reduce_raw(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src, Reduce r,
                          bool include_self) {
  const Tensor s = at_least_1d(x), i = at_least_1d(index), v = at_least_1d(src);
  const int64_t d = wrap_dim(dim, s.dim());
  check_scatter_args(s, d, i, v);
  TANDEM_CHECK(!(r == Reduce::Mean && x.dtype() == DType::Bool), NotImplemented,
               "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'",
               "\nhint: convert first, e.g. x.float()");
  const Tensor index64 = contiguous_int64(i);
  int64_t bad;
  TANDEM_CHECK(index_in_range(index64, s.sizes()[d], false, bad), Runtime, "index ", bad,
               " is out of bounds for dimension ", d, " with size ", s.sizes()[d]);
  if (index64.numel() == 0) return clone(x);
  const Tensor part = leading_part(v, index64.sizes());
  // Bools reduce as 0/1 integers: sum is then "any", prod "all", amax/amin the same as on bools.
  // 16-bit products multiply in float32 and round once per slot, as PyTorch's CPU kernel (sum and mean: its
  // scatter_add, which does the same).
  const bool half = x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16;
  const DType work = x.dtype() == DType::Bool    ? (r == Reduce::Sum ? DType::Int64 : DType::UInt8)
                     : half && r == Reduce::Prod ? DType::Float32
                                                 : x.dtype();
  Tensor out = contiguous(to_dtype(s, work, /*copy=*/true));
  if (r == Reduce::Sum || r == Reduce::Mean) {
    if (!include_self) scatter_(out, d, index64, Scalar(int64_t{0}));
    scatter_add_(out, d, index64, to_dtype(part, work));
    if (r == Reduce::Mean) {
      Tensor count = full(s.sizes(), Scalar(int64_t{include_self ? 1 : 0}), DType::Int64, s.device());
      scatter_add_(count, d, index64, expand(scalar_of(1, DType::Int64, s.device()), index64.sizes()));
      count = clamp(count, Scalar(int64_t{1}), std::nullopt);
      // Integer means round down (PyTorch's floor division).
      out = is_floating(work) ? div(out, to_dtype(count, work)) : floor_divide(out, count);
    }
  } else {
    reduce_by_target(out, d, index64, to_dtype(part, work), r, include_self);
  }
  if (x.dtype() == DType::Bool) out = ne(out, Scalar(int64_t{0}));
  return reshape(to_dtype(out, x.dtype()), x.sizes());
}

}  // namespace

// ---- gradients ----
namespace autograd {
namespace {

using Grads = std::vector<Tensor>;

// PyTorch's scatter_reduce_backward. Saved: self, src, index (int64, at least 1-d), result. ints: dim,
// include_self; variant: the Reduce.
Grads scatter_reduce_backward(FormulaNode& n, const Tensor& grad_in) {
  Tensor self = at_least_1d(n.saved_tensor(0)), src = at_least_1d(n.saved_tensor(1));
  Tensor index = n.saved_tensor(2), result = at_least_1d(n.saved_tensor(3));
  Tensor grad = at_least_1d(grad_in);
  const int64_t d = n.ints[0];
  const bool include_self = n.ints[1] != 0;
  const Reduce r = static_cast<Reduce>(n.variant);
  const std::string_view name = r == Reduce::Prod ? "prod" : r == Reduce::Amax ? "amax" : "amin";
  const Tensor part = leading_part(src, index.sizes());
  const DType dt = self.dtype();
  Tensor grad_self, grad_src;
  if (r == Reduce::Sum) {
    grad_self = grad;
    grad_src = gather(grad, d, index);
  } else if (r == Reduce::Mean) {
    Tensor count = full(self.sizes(), Scalar(include_self ? 1.0 : 0.0), dt, self.device());
    count = scatter_add(count, d, index, full(index.sizes(), Scalar(1.0), dt, self.device()));
    count = masked_fill(count, eq(count, Scalar(0.0)), Scalar(1.0));
    grad_self = div(grad, count);
    grad_src = div(gather(grad, d, index), gather(count, d, index));
  } else if (r == Reduce::Prod) {
    // Zeros in self or src get the product of the others, not 0/0.
    Tensor masked_self = masked_fill(self, eq(self, Scalar(0.0)), Scalar(1.0));
    Tensor masked_self_result = scatter_reduce(masked_self, d, index, part, name, include_self);
    grad_self = div(mul(grad, masked_self_result), masked_self);
    Tensor src_zero = eq(part, Scalar(0.0));
    Tensor zeros_at =
        scatter_add(full(self.sizes(), Scalar(0.0), dt, self.device()), d, index, to_dtype(src_zero, dt));
    Tensor single_zero = logical_and(src_zero, eq(gather(zeros_at, d, index), Scalar(1.0)));
    Tensor masked_src_result =
        scatter_reduce(self, d, index, masked_fill(part, single_zero, Scalar(1.0)), name, include_self);
    grad_src = where(single_zero, gather(mul(grad, masked_src_result), d, index),
                     div(gather(mul(grad, result), d, index), masked_fill(part, src_zero, Scalar(1.0))));
  } else {
    // Ties share the gradient evenly.
    Tensor value = gather(result, d, index);
    Tensor self_is = eq(self, result), src_is = eq(part, value);
    Tensor count = scatter_add(to_dtype(self_is, dt), d, index, to_dtype(src_is, dt));
    Tensor shared = div(grad, count);
    grad_self = mul(to_dtype(self_is, dt), shared);
    grad_src = mul(to_dtype(src_is, dt), gather(shared, d, index));
  }
  if (!include_self) grad_self = scatter(grad_self, d, index, Scalar(0.0));
  return {reshape(grad_self, n.saved_tensor(0).sizes()), pad_to(grad_src, src.sizes())};
}

Tensor record_scatter_reduce(const char* name, const Tensor& x, int64_t d, const Tensor& index64,
                             const Tensor& src, Reduce r, bool include_self, const Tensor& out) {
  auto node = make_node(name, &scatter_reduce_backward);
  node->ints = DimVector{d, include_self ? 1 : 0};
  node->variant = static_cast<int8_t>(r);
  node->saved.emplace_back(x, false);
  node->saved.emplace_back(src, false);
  node->saved.emplace_back(index64, false);
  node->saved.emplace_back(out, true);
  return record(node, {&x, &src}, out);
}

// Saved: the mask broadcast to the result's shape. sizes: source's shape.
Grads masked_scatter_backward(FormulaNode& n, const Tensor& grad) {
  Tensor mask = n.saved_tensor(0);
  Tensor taken = masked_select(grad, mask);
  int64_t total = 1;
  for (int64_t s : n.sizes) total *= s;
  Tensor rest = full(DimVector{total - taken.numel()}, Scalar(0.0), grad.dtype(), grad.device());
  return {masked_fill(grad, mask, Scalar(0.0)), reshape(cat({taken, rest}, 0), n.sizes)};
}

}  // namespace
}  // namespace autograd

Tensor scatter_reduce(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self) {
  profiler::RecordScope profile_scope("aten::scatter_reduce", x, dim, index, src, reduce, include_self);
  const Reduce r = parse_reduce(reduce, false);
  if (autograd::should_record(x, src)) {
    Tensor out =
        autograd::without_grad([&] { return scatter_reduce(x, dim, index, src, reduce, include_self); });
    return autograd::record_scatter_reduce("ScatterReduceBackward0", x,
                                           wrap_dim(dim, std::max<int64_t>(x.dim(), 1)),
                                           contiguous_int64(at_least_1d(index)), src, r, include_self, out);
  }
  return scatter_reduce_raw(x, dim, index, src, r, include_self);
}

namespace {

// PyTorch's assert_no_overlap for the in-place reductions: an operand that shares any of self's memory
// (self itself included) is refused, since the result would depend on the order of the writes. As
// PyTorch, layouts too irregular to decide cheaply (core/memory_overlap.h) are let through.
void check_no_overlap(const Tensor& self, const Tensor& other) {
  TANDEM_CHECK(!shares_memory(self, other), Runtime, kInputOverlapsOutput,
               "\nhint: the source or index shares memory with the tensor written to; pass a .clone()");
}

}  // namespace

Tensor scatter_reduce_(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
                       std::string_view reduce, bool include_self) {
  profiler::RecordScope profile_scope("aten::scatter_reduce_", x, dim, index, src, reduce, include_self);
  parse_reduce(reduce, false);
  check_no_overlap(x, index);
  check_no_overlap(x, src);
  if (autograd::should_record(x, src))
    return autograd::inplace_with_grad(x, [&](const Tensor& before) {
      return scatter_reduce(before, dim, index, src, reduce, include_self);
    });
  check_writeable(x, "scatter_reduce_");
  copy_(x, scatter_reduce(x, dim, index, src, reduce, include_self));
  return x;
}

namespace {

// index_reduce's checks, then its index expanded to source's shape along dim: the scatter_reduce index.
Tensor index_as_scatter(const Tensor& x, int64_t d, const Tensor& index, const Tensor& source) {
  TANDEM_CHECK(index.dim() <= 1, Index,
               "index_reduce_(): Index is supposed to be a vector, but got dim: ", index.dim(),
               " with type: ", dtype_title(index.dtype()), " and size: ", index.shape_str());
  TANDEM_CHECK(index.dtype() == DType::Int64 || index.dtype() == DType::Int32, Runtime,
               "index_reduce_(): Expected dtype int32/int64 for index but got: ", dtype_title(index.dtype()),
               "\nhint: convert the index with .long()");
  TANDEM_CHECK(x.dtype() == source.dtype(), Runtime, "index_reduce_(): self (", dtype_title(x.dtype()),
               ") and source (", dtype_title(source.dtype()), ") must have the same scalar type");
  check_index_func_source("index_reduce", x, d, index.numel(), source);
  check_same_device("index_reduce_", x, index, "input", "index");
  check_same_device("index_reduce_", x, source, "input", "source");
  const Tensor s = at_least_1d(x), src = at_least_1d(source);
  const Tensor index64 = contiguous_int64(at_least_1d(index));
  int64_t bad;
  TANDEM_CHECK(index_in_range(index64, s.sizes()[d], false, bad), Index, "index out of range in self");
  DimVector shape(src.dim(), 1);
  shape[d] = index64.numel();
  return contiguous(expand(reshape(index64, shape), src.sizes()));
}

}  // namespace

Tensor index_reduce(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                    std::string_view reduce, bool include_self) {
  profiler::RecordScope profile_scope("aten::index_reduce", x, dim, index, source, reduce, include_self);
  const Reduce r = parse_reduce(reduce, true);
  // PyTorch's index_reduce kernels have no bool instantiation, for any reduction; without self's values the
  // error names its exclude-self kernel.
  TANDEM_CHECK(x.dtype() != DType::Bool, NotImplemented, "\"",
               include_self ? "index_func_" : "index_reduce_func_exclude_input_init",
               "\" not implemented for 'Bool'", "\nhint: convert first, e.g. x.int()");
  const int64_t d = wrap_dim(dim, std::max<int64_t>(x.dim(), 1));
  const Tensor scatter_index = index_as_scatter(x, d, index, source);
  if (autograd::should_record(x, source)) {
    Tensor out = autograd::without_grad(
        [&] { return scatter_reduce_raw(x, d, scatter_index, source, r, include_self); });
    return autograd::record_scatter_reduce("IndexReduceBackward0", x, d, scatter_index, source, r,
                                           include_self, out);
  }
  return scatter_reduce_raw(x, d, scatter_index, source, r, include_self);
}

Tensor index_reduce_(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                     std::string_view reduce, bool include_self) {
  profiler::RecordScope profile_scope("aten::index_reduce_", x, dim, index, source, reduce, include_self);
  parse_reduce(reduce, true);
  check_no_overlap(x, index);
  check_no_overlap(x, source);
  if (autograd::should_record(x, source))
    return autograd::inplace_with_grad(x, [&](const Tensor& before) {
      return index_reduce(before, dim, index, source, reduce, include_self);
    });
  check_writeable(x, "index_reduce_");
  copy_(x, index_reduce(x, dim, index, source, reduce, include_self));
  return x;
}

namespace {

// masked_scatter onto `base` (contiguous: a fresh tensor of the result's shape, or self) with `mask` already
// broadcast to it: the device's kernel, once source is known to hold an element for each true position.
Tensor masked_scatter_into(const Tensor& base, const Tensor& mask, const Tensor& source) {
  const Tensor m = contiguous(mask);
  const IndexKernels& kernels = kernel_table(base.device().type).index;
  const int64_t count = m.numel() ? kernels.count_nonzero(m) : 0;
  TANDEM_CHECK(source.numel() >= count, Runtime, "Number of elements of source < number of ones in mask",
               "\nhint: source needs at least mask.sum() = ", count, " elements; it has ", source.numel());
  if (count) kernels.masked_scatter(base, m, contiguous(narrow(flattened(source), 0, 0, count)));
  return base;
}

void check_masked_scatter(const Tensor& x, const Tensor& mask, const Tensor& source) {
  TANDEM_CHECK(mask.dtype() == DType::Bool, Runtime,
               "masked_scatter_ only supports boolean masks, but got mask with dtype ",
               dtype_title(mask.dtype()), "\nhint: convert the mask with mask.bool()");
  TANDEM_CHECK(x.dtype() == source.dtype(), Runtime,
               "masked_scatter: expected self and source to have same dtypes but got", dtype_title(x.dtype()),
               " and ", dtype_title(source.dtype()), "\nhint: convert source, e.g. source.to(self.dtype)");
  check_same_device("masked_scatter", x, mask, "input", "mask");
  check_same_device("masked_scatter", x, source, "input", "source");
  // PyTorch's kernel has no uint16..64 form (the index moves tandem's kernel shares would take them)
  if (is_wide_uint(x.dtype())) throw_dtype_not_implemented("masked_scatter", x.dtype());
}

}  // namespace

Tensor masked_scatter(const Tensor& x, const Tensor& mask, const Tensor& source) {
  profiler::RecordScope profile_scope("aten::masked_scatter", x, mask, source);
  check_masked_scatter(x, mask, source);
  // mask first, as PyTorch (its broadcast error names the mask as tensor a).
  const DimVector shape = broadcast_shapes(mask.sizes(), x.sizes());
  const Tensor m = expand(mask, shape);
  if (autograd::should_record(x, source)) {
    Tensor out = autograd::without_grad([&] { return masked_scatter(x, mask, source); });
    auto node = autograd::make_node("MaskedScatterBackward0", &autograd::masked_scatter_backward);
    node->saved.emplace_back(contiguous(m), false);
    node->sizes = source.sizes();
    return autograd::record(node, {&x, &source}, out);
  }
  Tensor base = contiguous(expand(x, shape));
  if (base.storage().get() == x.storage().get()) base = clone(base);
  return masked_scatter_into(base, m, source);
}

Tensor masked_scatter_(const Tensor& x, const Tensor& mask, const Tensor& source) {
  profiler::RecordScope profile_scope("aten::masked_scatter_", x, mask, source);
  check_masked_scatter(x, mask, source);
  const Tensor m = expand(mask, x.sizes());
  if (autograd::should_record(x, source))
    return autograd::inplace_with_grad(
        x, [&](const Tensor& before) { return masked_scatter(before, m, source); });
  check_writeable(x, "masked_scatter_");
  // The values are read before the write, so a source that overlaps self still reads its old values; a
  // source apart from a contiguous self is put straight into it (no copy of self there and back).
  if (source.storage().get() == x.storage().get() || mask.storage().get() == x.storage().get() ||
      !x.is_contiguous()) {
    copy_(x, masked_scatter(x, m, source));
    return x;
  }
  masked_scatter_into(x, m, source);
  return x;
}

}  // namespace tandem
