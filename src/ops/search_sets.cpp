// searchsorted/bucketize as a vectorised binary search, and unique/unique_consecutive/isin on top of a stable
// sort: each step is a whole-tensor op (gather, compare, where, cumsum, scatter_add), so every device runs
// them. None of these results is differentiable, so they compute with grad mode off.
#include "ops/search_sets.h"

#include <bit>

#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/meta/meta_kernels.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factories.h"
#include "ops/indexing.h"
#include "ops/join.h"
#include "ops/reduce.h"
#include "ops/type_promotion.h"
#include "ops/view.h"

namespace tandem {

namespace {

Tensor filled(IntArrayRef sizes, int64_t v, Device device) {
  return full(sizes, Scalar(v), DType::Int64, device);
}
Tensor scalar_tensor(const Scalar& s, Device device) {
  // PyTorch's scalar_to_tensor: a Python float is float64 here, not the default dtype.
  return full(DimVector{}, s, s.is_float() ? DType::Float64 : s.natural_dtype(), device);
}

bool leading_dims_match(const Tensor& boundaries, const Tensor& values) {
  if (boundaries.dim() != values.dim()) return false;
  for (int64_t d = 0; d + 1 < boundaries.dim(); ++d)
    if (boundaries.sizes()[d] != values.sizes()[d]) return false;
  return true;
}

void searchsorted_checks(const Tensor& boundaries, const Tensor& values, bool right,
                         std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  if (side) {
    TANDEM_CHECK(*side == "left" || *side == "right", Runtime,
                 "torch.searchsorted(): side can only be 'left' or 'right' but got ", *side);
    TANDEM_CHECK(!right || *side == "right", Runtime,
                 "torch.searchsorted(): side and right can't be set to opposites, got side of ", *side,
                 " while right was True");
  }
  TANDEM_CHECK(
      boundaries.device() == values.device(), Runtime,
      "torch.searchsorted(): boundaries and input value tensors should have same device type, but got "
      "boundaries tensor device type ",
      boundaries.device().str(), " and input value tensor device type ", values.device().str(),
      "\nhint: move both to one device first, e.g. values.to(boundaries.device)");
  if (sorter) {
    TANDEM_CHECK(
        sorter->device() == boundaries.device(), Runtime,
        "torch.searchsorted(): sorter and boundary tensors should have same device type, but got sorter "
        "tensor device type ",
        sorter->device().str(), " and input value tensor device type ", boundaries.device().str());
    TANDEM_CHECK(
        sorter->sizes() == boundaries.sizes(), Runtime,
        "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor ",
        boundaries.shape_str(), "and got sorter tensor ", sorter->shape_str());
    TANDEM_CHECK(sorter->dtype() == DType::Int64, Runtime,
                 "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype ",
                 dtype_title(sorter->dtype()),
                 "\nhint: pass sorter.long(), e.g. the indices argsort returns");
    if (sorter->numel() > 0) {
      int64_t lo = item(amin(*sorter)).to_int(), hi = item(amax(*sorter)).to_int();
      TANDEM_CHECK(lo >= 0 && hi < sorter->sizes().back(), Runtime,
                   "torch.searchsorted(): sorter index out of range");
    }
  }
  TANDEM_CHECK(
      values.dim() > 0 || boundaries.dim() == 1, Runtime,
      "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, "
      "but we got boundaries tensor dim(",
      boundaries.dim(), ") and input value's dim(", values.dim(), ") numel(", values.numel(), ")");
  TANDEM_CHECK(boundaries.dim() != 0, Runtime,
               "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
  TANDEM_CHECK(boundaries.dim() == 1 || leading_dims_match(boundaries, values), Runtime,
               "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
               "boundaries tensor and input value tensor must match, but we got boundaries tensor ",
               boundaries.shape_str(), " and input value tensor ", values.shape_str());
}

// The classic binary search (PyTorch's cus_lower_bound/cus_upper_bound) run for every value at once: rows of
// `b` [R, M] hold the boundaries, rows of `v` [R, N] the values searched in them. Values whose interval
// closed sit still, so after bit_width(M) rounds each holds the same answer as the scalar loop, NaNs and
// unsorted boundaries included.
enum class Side { Left, Right, LeftNanLast };
Tensor binary_search(const Tensor& b, const Tensor& v, Side side) {
  const int64_t m = b.sizes()[1];
  Tensor lo = filled(v.sizes(), 0, v.device());
  Tensor hi = filled(v.sizes(), m, v.device());
  const Scalar one(int64_t{1}), two(int64_t{2});
  for (int round = std::bit_width(static_cast<uint64_t>(m)); round > 0; --round) {
    Tensor mid = floor_divide(add(lo, hi), two);
    Tensor at_mid = gather(b, 1, minimum(mid, Scalar(m - 1)));
    // Stop (go left) when the boundary is at or after the value (strictly after, for the right side). A NaN
    // boundary is before everything there; LeftNanLast (for isin) puts it after everything instead.
    Tensor go_left = side == Side::Left    ? ge(at_mid, v)
                     : side == Side::Right ? gt(at_mid, v)
                                           : logical_not(lt(at_mid, v));
    // A closed interval (lo == hi, so mid == lo) keeps its lo and hi either way.
    lo = minimum(where(go_left, lo, add(mid, one)), hi);
    hi = where(go_left, mid, hi);
  }
  return lo;
}

}  // namespace

void check_searchsorted_out(const Tensor& out, bool out_int32) {
  TANDEM_CHECK(
      (out.dtype() == DType::Int64 && !out_int32) || (out.dtype() == DType::Int32 && out_int32), Runtime,
      "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) "
      "depending on whether out_int32 flag is True, but we got output tensor's dtype ",
      dtype_title(out.dtype()), " and out_int32 flag is ", out_int32 ? "True" : "False");
}

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  profiler::RecordScope profile_scope("aten::searchsorted", sorted_sequence, values, out_int32, right, side,
                                      sorter);
  searchsorted_checks(sorted_sequence, values, right, side, sorter);
  const bool is_right = side ? *side == "right" : right;
  const DType out_dtype = out_int32 ? DType::Int32 : DType::Int64;
  if (values.numel() == 0) return empty(values.sizes(), out_dtype, values.device());
  // result_type, not promote_types: a 0-dim values tensor (or a Python number) does not widen the
  // boundaries' dtype, as in PyTorch.
  const DType common = result_type(sorted_sequence, values);
  TANDEM_CHECK(common != DType::Bool && !is_complex(common), NotImplemented, "\"searchsorted_out_",
               values.device().is_cpu() ? "cpu" : "cuda", "\" not implemented for '", dtype_title(common),
               "'", "\nhint: ",
               common == DType::Bool ? "convert first, e.g. values.int() and boundaries.int()"
                                     : "complex numbers have no order: search their real parts");
  return autograd::without_grad([&] {
    Tensor b = to_dtype(sorted_sequence, common);
    if (sorter) b = gather(b, -1, *sorter);
    const int64_t m = b.sizes().back();
    Tensor v = to_dtype(values, common);
    Tensor rows_b, rows_v;
    if (b.dim() == 1) {
      rows_b = reshape(b, DimVector{1, m});
      rows_v = reshape(v, DimVector{1, v.numel()});
    } else {
      const int64_t rows = v.numel() / v.sizes().back();
      rows_b = reshape(b, DimVector{rows, m});
      rows_v = reshape(v, DimVector{rows, v.sizes().back()});
    }
    return to_dtype(
        reshape(binary_search(rows_b, rows_v, is_right ? Side::Right : Side::Left), values.sizes()),
        out_dtype);
  });
}

Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& value, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  profiler::RecordScope profile_scope("aten::searchsorted", sorted_sequence, value, out_int32, right, side,
                                      sorter);
  return searchsorted(sorted_sequence, scalar_tensor(value, sorted_sequence.device()), out_int32, right, side,
                      sorter);
}

Tensor bucketize(const Tensor& x, const Tensor& boundaries, bool out_int32, bool right) {
  profiler::RecordScope profile_scope("aten::bucketize", x, boundaries, out_int32, right);
  TANDEM_CHECK(boundaries.dim() == 1, Runtime, "boundaries tensor must be 1 dimension, but got dim(",
               boundaries.dim(), ")", "\nhint: for one set of boundaries per row use searchsorted");
  return searchsorted(boundaries, x, out_int32, right);
}
Tensor bucketize(const Scalar& x, const Tensor& boundaries, bool out_int32, bool right) {
  profiler::RecordScope profile_scope("aten::bucketize", x, boundaries, out_int32, right);
  return bucketize(scalar_tensor(x, boundaries.device()), boundaries, out_int32, right);
}

namespace {

// Groups of equal neighbours in `rows` [n, c] (rows compared whole; NaN never equal): per row whether it
// starts a group, and its group number.
struct Groups {
  Tensor is_start;  // bool [n]
  Tensor group;     // int64 [n]
  int64_t count;
};
Groups group_rows(const Tensor& rows) {
  const int64_t n = rows.sizes()[0];
  Tensor differs = any(ne(narrow(rows, 0, 1, n - 1), narrow(rows, 0, 0, n - 1)), DimVector{1});
  Tensor is_start = cat({full(DimVector{1}, Scalar(true), DType::Bool, rows.device()), differs}, 0);
  Tensor group = sub(cumsum(is_start, 0), Scalar(int64_t{1}));
  return {is_start, group, item(sum(is_start)).to_int()};
}

// The unique rows (first of each group of `sorted` rows), where each original row went (`order[i]` is the
// original row at sorted position i; undefined: identity) and each group's size.
UniqueResult collect(const Tensor& sorted, const Tensor& order) {
  const int64_t n = sorted.sizes()[0];
  Device dev = sorted.device();
  Groups g = group_rows(sorted);
  Tensor firsts = reshape(nonzero(g.is_start), DimVector{-1});
  Tensor inverse = order.defined() ? scatter(filled(DimVector{n}, 0, dev), 0, order, g.group) : g.group;
  Tensor counts = scatter_add(filled(DimVector{g.count}, 0, dev), 0, g.group, filled(DimVector{n}, 1, dev));
  return {index_select(sorted, 0, firsts), inverse, counts};
}

// Dense ranks of a 1-D tensor: equal values share one, order is kept, and NaNs (never equal) each get their
// own after every number.
Tensor dense_rank(const Tensor& flat) {
  ValuesIndices s = sort(flat, 0, false, true);
  const int64_t n = flat.numel();
  Tensor is_start = cat({full(DimVector{1}, Scalar(true), DType::Bool, flat.device()),
                         ne(narrow(s.first, 0, 1, n - 1), narrow(s.first, 0, 0, n - 1))},
                        0);
  Tensor rank = sub(cumsum(is_start, 0), Scalar(int64_t{1}));
  return scatter(filled(DimVector{n}, 0, flat.device()), 0, s.second, rank);
}

// One int64 per row of `rows` [n, c] that orders the rows lexicographically and is equal exactly when the
// rows are: every element ranked once, then neighbouring columns merged pairwise (rank_left * bound +
// rank_right, re-ranked) until one column is left: about two sorts of n * c elements instead of one sort per
// column.
Tensor row_keys(const Tensor& rows) {
  const int64_t n = rows.sizes()[0];
  int64_t c = rows.sizes()[1];
  Tensor r = reshape(dense_rank(reshape(rows, DimVector{-1})), DimVector{n, c});
  while (c > 1) {
    if (c % 2) {  // a constant column changes neither order nor equality
      r = cat({r, filled(DimVector{n, 1}, 0, rows.device())}, 1);
      ++c;
    }
    // Ranks are below n * c (the elements ranked last round), so the merged key fits in int64.
    Tensor merged = add(mul(slice(r, 1, 0, c, 2), Scalar(n * c)), slice(r, 1, 1, c, 2));
    c /= 2;
    r = reshape(dense_rank(reshape(contiguous(merged), DimVector{-1})), DimVector{n, c});
  }
  return reshape(r, DimVector{n});
}

// x with dim d moved to the front, the others keeping their order (PyTorch's moveaxis(d, 0)), and back.
Tensor dim_to_front(const Tensor& x, int64_t d) {
  DimVector order{d};
  for (int64_t i = 0; i < x.dim(); ++i)
    if (i != d) order.push_back(i);
  return permute(x, order);
}
Tensor front_to_dim(const Tensor& x, int64_t d) {
  DimVector order;
  for (int64_t i = 1; i <= d; ++i) order.push_back(i);
  order.push_back(0);
  for (int64_t i = d + 1; i < x.dim(); ++i) order.push_back(i);
  return permute(x, order);
}

UniqueResult unique_along(const Tensor& x, int64_t dim, bool consecutive) {
  TANDEM_CHECK(x.dim() > 0, Index, "Dimension specified as ", dim, " but tensor has no dimensions",
               "\nhint: a 0-dim tensor has no slices; call unique() without dim");
  const int64_t d = wrap_dim(dim, x.dim());
  int64_t zero_dims = 0;
  for (int64_t s : x.sizes()) zero_dims += s == 0;
  Device dev = x.device();
  if (x.sizes()[d] == 0) {
    TANDEM_CHECK(zero_dims == 1, Runtime,
                 "Number of zero sized dimensions is more than one, so unique cannot be applied ");
    return {empty(x.sizes(), x.dtype(), dev), empty(DimVector{0}, DType::Int64, dev),
            empty(DimVector{0}, DType::Int64, dev)};
  }
  TANDEM_CHECK(zero_dims == 0, Runtime,
               "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  Tensor front = dim_to_front(x, d);
  Tensor rows = reshape(contiguous(front), DimVector{x.sizes()[d], -1});
  const int64_t n = rows.sizes()[0], c = rows.sizes()[1];
  Tensor order;
  if (!consecutive) {
    // Lexicographic order of the rows: one int64 key per row, then a stable sort of the keys.
    if (c == 1) {
      order = argsort(reshape(rows, DimVector{n}), 0, false, true);
    } else if (c > 1024 && rows.numel() < (int64_t{1} << 31)) {
      // Many columns: a few big sorts beat one small sort per column (row_keys sorts about 2 n c elements).
      order = argsort(row_keys(rows), 0, false, true);
    } else {  // stable sorts by each column, last column first (n c elements sorted in all)
      order = arange(Scalar(int64_t{0}), Scalar(n), Scalar(int64_t{1}), DType::Int64, dev);
      for (int64_t j = c - 1; j >= 0; --j)
        order = index_select(order, 0, argsort(index_select(select(rows, 1, j), 0, order), 0, false, true));
    }
    rows = index_select(rows, 0, order);
  }
  UniqueResult r = collect(rows, order);
  // Back to the input's layout: rows are slices of the input with dim moved to the front.
  DimVector shape(front.sizes());
  shape[0] = r.values.sizes()[0];
  r.values = contiguous(front_to_dim(reshape(r.values, shape), d));
  return r;
}

UniqueResult unique_flat(const Tensor& x, bool consecutive) {
  Device dev = x.device();
  if (x.numel() == 0)
    return {empty(DimVector{0}, x.dtype(), dev), empty(x.sizes(), DType::Int64, dev),
            empty(DimVector{0}, DType::Int64, dev)};
  Tensor flat = reshape(x, DimVector{-1, 1});
  Tensor order;
  if (!consecutive) {
    ValuesIndices s = sort(reshape(x, DimVector{-1}), 0, false, true);
    flat = reshape(s.first, DimVector{-1, 1});
    order = s.second;
  }
  UniqueResult r = collect(flat, order);
  return {reshape(r.values, DimVector{-1}), reshape(r.inverse, x.sizes()), r.counts};
}

}  // namespace

UniqueResult unique(const Tensor& x, std::optional<int64_t> dim) {
  if (x.device().is_meta()) meta::refuse_data_dependent("_unique2");
  // PyTorch's kernel names: unique_dim along a dim
  if (is_complex(x.dtype())) throw_dtype_not_implemented(dim ? "unique_dim" : "unique", x.dtype());
  return autograd::without_grad([&] { return dim ? unique_along(x, *dim, false) : unique_flat(x, false); });
}

UniqueResult unique_consecutive(const Tensor& x, std::optional<int64_t> dim) {
  if (x.device().is_meta()) meta::refuse_data_dependent("unique_consecutive");
  // As PyTorch, dim 0 of a 1-D tensor is the flat case (its kernels' names, unique and unique_dim, tell).
  const bool flat = !dim || (*dim == 0 && x.dim() == 1);
  if (is_complex(x.dtype())) throw_dtype_not_implemented(flat ? "unique" : "unique_dim", x.dtype());
  return autograd::without_grad([&] { return flat ? unique_flat(x, true) : unique_along(x, *dim, true); });
}

namespace {

void check_isin_dtype(DType d) {
  TANDEM_CHECK(d != DType::Bool && !is_complex(d), NotImplemented,
               "Unsupported input type encountered for isin(): ", dtype_title(d),
               "\nhint: compare bools with ==, or convert first, e.g. x.int()");
}

// Sorts the test elements once and binary-searches every element in them: O((N + M) log M).
Tensor isin_common(const Tensor& elements, const Tensor& test_elements, DType common, bool invert) {
  check_isin_dtype(elements.dtype());
  check_isin_dtype(test_elements.dtype());
  check_same_device("isin", elements, test_elements, "elements", "test_elements");
  return autograd::without_grad([&] {
    Device dev = elements.device();
    Tensor e = to_dtype(elements, common);
    const int64_t m = test_elements.numel();
    if (e.numel() == 0 || m == 0) return full(elements.sizes(), Scalar(invert), DType::Bool, dev);
    Tensor sorted = sort(reshape(to_dtype(test_elements, common), DimVector{-1}), 0).first;
    // sort puts NaNs last, so the search must treat them as largest (they match nothing anyway).
    Tensor pos = reshape(binary_search(reshape(sorted, DimVector{1, m}), reshape(e, DimVector{1, e.numel()}),
                                       Side::LeftNanLast),
                         e.sizes());
    Tensor found = eq(take(sorted, minimum(pos, Scalar(m - 1))), e);
    return invert ? logical_not(found) : found;
  });
}

}  // namespace

Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert) {
  profiler::RecordScope profile_scope("aten::isin", elements, test_elements, assume_unique, invert);
  (void)assume_unique;
  return isin_common(elements, test_elements, result_type(elements, test_elements), invert);
}
Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique, bool invert) {
  profiler::RecordScope profile_scope("aten::isin", elements, test_element, assume_unique, invert);
  (void)assume_unique;
  Tensor t = scalar_tensor(test_element, elements.device());
  return isin_common(elements, t, result_type(elements, test_element), invert);
}
Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique, bool invert) {
  profiler::RecordScope profile_scope("aten::isin", element, test_elements, assume_unique, invert);
  (void)assume_unique;
  Tensor e = scalar_tensor(element, test_elements.device());
  return isin_common(e, test_elements, result_type(test_elements, element), invert);
}

}  // namespace tandem
