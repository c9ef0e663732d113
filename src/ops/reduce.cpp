#include "ops/reduce.h"
#include "ops/autocast.h"

#include <algorithm>
#include <string_view>

#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/join.h"
#include "ops/reduce_plan.h"
#include "ops/view.h"

namespace tandem {

ReducePlan plan_reduction(const Tensor& x, const OptDims& dims, bool keepdim, bool empty_means_all) {
  int64_t nd = x.dim();
  bool all_dims = !dims || (dims->empty() && empty_means_all);
  uint64_t mask = 0;
  if (!all_dims) {
    for (int64_t d : *dims) {
      int64_t w = wrap_dim(d, nd);
      TANDEM_CHECK(!(mask >> w & 1), Runtime, "dim ", w, " appears multiple times in the list of dims",
                   "\nhint: list each dim to reduce once");
      mask |= uint64_t{1} << w;
    }
  }
  ReducePlan plan;
  // PyTorch names the first empty reduced dim as the user wrote it.
  if (!all_dims)
    for (int64_t d : *dims)
      if (nd && x.sizes()[wrap_dim(d, nd)] == 0 && !plan.has_empty_dim()) plan.first_empty_dim = d;
  DimVector order;
  for (int64_t d = 0; d < nd; ++d) {
    bool reduced = all_dims || (mask >> d & 1);
    if (reduced) {
      plan.reduced_numel *= x.sizes()[d];
      if (all_dims && x.sizes()[d] == 0 && !plan.has_empty_dim()) plan.first_empty_dim = d;
      if (keepdim) plan.result_shape.push_back(1);
    } else {
      order.push_back(d);
      plan.kept_shape.push_back(x.sizes()[d]);
      plan.result_shape.push_back(x.sizes()[d]);
    }
  }
  plan.n_reduced = nd - static_cast<int64_t>(order.size());
  for (int64_t d = 0; d < nd; ++d)
    if (all_dims || (mask >> d & 1)) order.push_back(d);
  plan.permuted = nd ? permute(x, order) : x;
  return plan;
}

Tensor as_result(const Tensor& out, const ReducePlan& plan) {
  if (out.dim() == static_cast<int64_t>(plan.result_shape.size())) return out;
  return make_view(out, plan.result_shape, contiguous_strides(plan.result_shape), out.storage_offset());
}

Tensor move_dim_last(const Tensor& x, int64_t dim) {
  if (x.dim() == 0) return x;
  DimVector order;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != dim) order.push_back(d);
  order.push_back(dim);
  return permute(x, order);
}

namespace {

const ReduceKernels& kernels(const Tensor& x) { return kernel_table(x.device().type).reduce; }

// Output dtype the kernels write for each op (see ReduceOp).
DType natural_dtype(ReduceOp op, DType in) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
    case ReduceOp::Prod:
      return is_floating(in) ? in : DType::Int64;
    case ReduceOp::All:
    case ReduceOp::Any:
      return in == DType::UInt8 ? DType::UInt8 : DType::Bool;
    default:
      return in;
  }
}

Tensor fold(ReduceOp op, const Tensor& x, const OptDims& dims, bool keepdim);

// Sum and mean of a complex tensor: the same reduction of its (..., 2) real view, over the same dims, viewed
// back as complex (the real and imaginary parts add up independently).
Tensor complex_fold(ReduceOp op, const Tensor& x, const OptDims& dims, bool keepdim) {
  plan_reduction(x, dims, keepdim, true);  // PyTorch's dim errors, for the complex shape
  if (x.dim() == 0) return to_dtype(x, x.dtype(), true);
  DimVector reduced;
  if (dims && !dims->empty()) {
    for (int64_t d : *dims) reduced.push_back(d < 0 ? d + x.dim() : d);
  } else {
    for (int64_t d = 0; d < x.dim(); ++d) reduced.push_back(d);
  }
  return view_as_complex(fold(op, view_as_real(x), reduced, keepdim));
}

// The reduced dims of x, wrapped and in order (all of them when dims is empty).
DimVector reduced_dims(const Tensor& x, const OptDims& dims) {
  DimVector reduced;
  for (int64_t d = 0; d < x.dim(); ++d) {
    bool in = !dims || dims->empty();
    if (!in)
      for (int64_t r : *dims) in = in || (r < 0 ? r + x.dim() : r) == d;
    if (in) reduced.push_back(d);
  }
  return reduced;
}

// The product of a complex tensor: the reduced dims moved last and flattened, then halves multiplied
// pairwise (ceil(log2 n) rounds of the complex mul kernel, so every device has it).
Tensor complex_prod(const Tensor& x, const OptDims& dims, bool keepdim) {
  plan_reduction(x, dims, keepdim, true);  // PyTorch's dim errors
  if (x.dim() == 0) return to_dtype(x, x.dtype(), true);
  const DimVector reduced = reduced_dims(x, dims);
  DimVector order, kept_shape, result_shape;
  int64_t n = 1;
  for (int64_t d = 0; d < x.dim(); ++d) {
    const bool r = std::find(reduced.begin(), reduced.end(), d) != reduced.end();
    if (!r) order.push_back(d), kept_shape.push_back(x.sizes()[d]);
    if (!r || keepdim) result_shape.push_back(r ? 1 : x.sizes()[d]);
    if (r) n *= x.sizes()[d];
  }
  for (int64_t d : reduced) order.push_back(d);
  DimVector flat_shape = kept_shape;
  flat_shape.push_back(n);
  Tensor v = reshape(permute(x, order), flat_shape);
  const int64_t last = static_cast<int64_t>(kept_shape.size());
  if (n == 0) return fill_(empty(result_shape, x.dtype(), x.device()), Scalar(1.0));
  while (n > 1) {
    const int64_t half = n / 2;
    Tensor paired = mul(narrow(v, last, 0, half), narrow(v, last, half, half));
    v = n % 2 ? cat({paired, narrow(v, last, n - 1, 1)}, last) : paired;
    n = half + n % 2;
  }
  return reshape(v, result_shape);
}

// PyTorch refuses complex in the ordering reductions, with these messages (`all`: max()/min() over every
// element, whose kernel it names "max_all").
void check_not_complex(const char* op, const Tensor& x, bool all = false) {
  if (!is_complex(x.dtype())) return;
  const std::string_view name(op);
  if (all && (name == "max" || name == "min"))
    throw_dtype_not_implemented(name == "max" ? "max_all" : "min_all", x.dtype());
  if (name == "amax" || name == "amin")
    throw_dtype_not_implemented(name == "amax" ? (x.device().is_cpu() ? "max_values_cpu" : "max_values_cuda")
                                               : (x.device().is_cpu() ? "min_values_cpu" : "min_values_cuda"),
                                x.dtype());
  TANDEM_THROW(Type, op, "(): does not support complex input");  // max(dim), argmax, ...
}

Tensor fold(ReduceOp op, const Tensor& x, const OptDims& dims, bool keepdim) {
  if (is_complex(x.dtype()) && (op == ReduceOp::Sum || op == ReduceOp::Mean))
    return complex_fold(op, x, dims, keepdim);
  if (is_complex(x.dtype()) && op == ReduceOp::Prod) return complex_prod(x, dims, keepdim);
  if (is_complex(x.dtype()) && (op == ReduceOp::All || op == ReduceOp::Any))
    return fold(op, ne(x, Scalar(0.0)), dims, keepdim);  // a complex value is true when either part is
  bool logical = op == ReduceOp::All || op == ReduceOp::Any;
  // uint16..64 sums and products in int64 (their result dtype), all/any over x != 0: no uint kernels for
  // them.
  if (is_wide_uint(x.dtype()) && (op == ReduceOp::Sum || op == ReduceOp::Prod))
    return fold(op, to_dtype(x, DType::Int64), dims, keepdim);
  if (is_wide_uint(x.dtype()) && logical) return fold(op, ne(x, Scalar(int64_t{0})), dims, keepdim);
  ReducePlan plan = plan_reduction(x, dims, keepdim, !logical);
  Tensor out = empty(plan.kept_shape, natural_dtype(op, x.dtype()), x.device());
  kernels(x).reduce(op, out, plan.permuted, plan.n_reduced);
  return as_result(out, plan);
}

// max/min/amax/amin refuse empty reductions, with PyTorch's two messages.
void check_nonempty(const char* op, const Tensor& x, const ReducePlan& plan, bool dim_given) {
  if (!dim_given) {
    TANDEM_CHECK(
        x.numel() != 0, Runtime, op,
        "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
        "with the 'dim' argument.\nhint: an empty tensor has no ",
        op, "; pass dim= to reduce a non-empty dim");
  }
  TANDEM_CHECK(
      !plan.has_empty_dim(), Index, op, "(): Expected reduction dim ", plan.first_empty_dim,
      " to have non-zero size.\nhint: the reduced dim is empty; reduce a non-empty dim or check the shape");
}

Tensor extreme(ReduceOp op, const char* name, const Tensor& x, const OptDims& dims, bool keepdim) {
  // amax/amin: PyTorch checks each listed dim of an empty input, then the dims, then the dtype.
  if (name[0] == 'a') {
    if (x.numel() == 0 && dims)
      for (int64_t d : *dims)  // (named as given, as PyTorch's zero_numel_check_dims)
        TANDEM_CHECK(
            x.sizes()[wrap_dim(d, x.dim())] != 0, Index, name, "(): Expected reduction dim ", d,
            " to have non-zero size.\nhint: the reduced dim is empty; reduce a non-empty dim or check "
            "the shape");
    if (is_complex(x.dtype()))
      check_nonempty(name, x, plan_reduction(x, dims, keepdim), dims && !dims->empty());
  }
  check_not_complex(name, x, true);
  if (autograd::should_record(x)) {
    // amax -> AmaxBackward0; max() -> MaxBackward1 (same formula: ties share the gradient).
    const bool is_max = op == ReduceOp::Max;
    const bool all = name[0] == 'm';
    const char* node =
        all ? (is_max ? "MaxBackward1" : "MinBackward1") : (is_max ? "AmaxBackward0" : "AminBackward0");
    return autograd::record_extreme(
        node, x, dims, keepdim, autograd::without_grad([&] { return extreme(op, name, x, dims, keepdim); }));
  }
  bool dim_given = dims && !dims->empty();
  ReducePlan plan = plan_reduction(x, dims, keepdim);
  check_nonempty(name, x, plan, dim_given);
  Tensor out = empty(plan.kept_shape, x.dtype(), x.device());
  kernels(x).reduce(op, out, plan.permuted, plan.n_reduced);
  return as_result(out, plan);
}

ValuesIndices arg_extreme(bool is_max, const char* name, const Tensor& x, int64_t dim, bool keepdim,
                          bool want_values) {
  check_not_complex(name, x);
  // Unlike amax, max(dim)/argmax name the wrapped dim in their empty-dim error.
  ReducePlan plan = plan_reduction(x, DimVector{wrap_dim(dim, x.dim())}, keepdim);
  check_nonempty(name, x, plan, true);
  Tensor values = want_values ? empty(plan.kept_shape, x.dtype(), x.device()) : Tensor();
  Tensor indices = empty(plan.kept_shape, DType::Int64, x.device());
  kernels(x).arg_reduce(is_max, values, indices, plan.permuted);
  return {want_values ? as_result(values, plan) : values, as_result(indices, plan)};
}

Tensor arg_only(bool is_max, const char* name, const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  check_not_complex(name, x);
  TANDEM_CHECK(x.dtype() != DType::Bool, NotImplemented, name, "(): does not support bool input",
               "\nhint: convert first, e.g. x.int().", name, "()");
  if (dim) return arg_extreme(is_max, name, x, *dim, keepdim, false).second;
  TANDEM_CHECK(
      x.numel() != 0, Index, name,
      "(): Expected reduction dim to be specified for input.numel() == 0.\nhint: an empty tensor has no ",
      name, "; pass dim= to reduce a non-empty dim");
  Tensor c = contiguous(x);
  Tensor flat = make_view(c, DimVector{c.numel()}, DimVector{1}, c.storage_offset());
  Tensor idx = arg_extreme(is_max, name, flat, 0, false, false).second;
  if (!keepdim) return idx;
  DimVector ones(static_cast<size_t>(x.dim()), 1);
  return make_view(idx, ones, ones, idx.storage_offset());
}

}  // namespace

namespace {
// What an explicit dtype= reduces: x converted; a complex x given a real dtype, its real parts (PyTorch's
// cast, with its warning).
Tensor as_reduce_dtype(const Tensor& x, DType dtype) {
  return is_complex(x.dtype()) && !is_complex(dtype) ? cast_discarding_imag(x, dtype) : to_dtype(x, dtype);
}
}  // namespace

Tensor sum(const Tensor& x, const OptDims& dims, bool keepdim, OptDType dtype) {
  profiler::RecordScope profile_scope("aten::sum", x, dims, keepdim, dtype);
  if (autocast::is_active())
    return autocast::run_fp32_output(autocast::kCudaFp32Output, x, dtype,
                                     [&](OptDType d) { return sum(x, dims, keepdim, d); });
  if (autograd::should_record(x))
    return autograd::record_sum(x, dims, keepdim,
                                autograd::without_grad([&] { return sum(x, dims, keepdim, dtype); }));
  Tensor r = fold(ReduceOp::Sum, dtype ? as_reduce_dtype(x, *dtype) : x, dims, keepdim);
  return dtype ? to_dtype(r, *dtype) : r;
}

Tensor mean(const Tensor& x, const OptDims& dims, bool keepdim, OptDType dtype) {
  profiler::RecordScope profile_scope("aten::mean", x, dims, keepdim, dtype);
  if (autograd::should_record(x))
    return autograd::record_mean(x, dims, keepdim,
                                 autograd::without_grad([&] { return mean(x, dims, keepdim, dtype); }));
  DType d = dtype.value_or(x.dtype());
  TANDEM_CHECK(is_floating(d) || is_complex(d), NotImplemented, "mean(): could not infer output dtype. ",
               dtype ? "Optional" : "Input",
               " dtype must be either a floating point or complex dtype. Got: ", dtype_title(d),
               "\nhint: convert first, e.g. x.float().mean(), or pass dtype=tandem.float32");
  // A float16/bfloat16 mean of a wider input is PyTorch's float32 sum and division, rounded once at the end
  // (the input is not rounded to the 16-bit dtype first).
  if ((d == DType::Float16 || d == DType::BFloat16) && x.dtype() != d)
    return to_dtype(fold(ReduceOp::Mean, as_reduce_dtype(x, DType::Float32), dims, keepdim), d);
  return fold(ReduceOp::Mean, as_reduce_dtype(x, d), dims, keepdim);
}

Tensor prod(const Tensor& x, std::optional<int64_t> dim, bool keepdim, OptDType dtype) {
  profiler::RecordScope profile_scope("aten::prod", x, dim, keepdim, dtype);
  if (autocast::is_active())
    return autocast::run_fp32_output(autocast::kProd, x, dtype,
                                     [&](OptDType d) { return prod(x, dim, keepdim, d); });
  if (autograd::should_record(x))
    return autograd::record_prod(x, dim, keepdim,
                                 autograd::without_grad([&] { return prod(x, dim, keepdim, dtype); }));
  Tensor in = dtype ? as_reduce_dtype(x, *dtype) : x;
  Tensor r = dim ? fold(ReduceOp::Prod, in, DimVector{*dim}, keepdim) : fold(ReduceOp::Prod, in, {}, false);
  return dtype ? to_dtype(r, *dtype) : r;
}

Tensor amax(const Tensor& x, const OptDims& dims, bool keepdim) {
  profiler::RecordScope profile_scope("aten::amax", x, dims, keepdim);
  return extreme(ReduceOp::Max, "amax", x, dims, keepdim);
}
Tensor amin(const Tensor& x, const OptDims& dims, bool keepdim) {
  profiler::RecordScope profile_scope("aten::amin", x, dims, keepdim);
  return extreme(ReduceOp::Min, "amin", x, dims, keepdim);
}
Tensor max(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::max", x);
  return extreme(ReduceOp::Max, "max", x, {}, false);
}
Tensor min(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::min", x);
  return extreme(ReduceOp::Min, "min", x, {}, false);
}
ValuesIndices max(const Tensor& x, int64_t dim, bool keepdim) {
  if (autograd::should_record(x)) {
    ValuesIndices r = autograd::without_grad([&] { return max(x, dim, keepdim); });
    autograd::record_select_values("MaxBackward0", x, dim, keepdim, r.first, r.second);
    return r;
  }
  return arg_extreme(true, "max", x, dim, keepdim, true);
}
ValuesIndices min(const Tensor& x, int64_t dim, bool keepdim) {
  if (autograd::should_record(x)) {
    ValuesIndices r = autograd::without_grad([&] { return min(x, dim, keepdim); });
    autograd::record_select_values("MinBackward0", x, dim, keepdim, r.first, r.second);
    return r;
  }
  return arg_extreme(false, "min", x, dim, keepdim, true);
}
Tensor argmax(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  profiler::RecordScope profile_scope("aten::argmax", x, dim, keepdim);
  return arg_only(true, "argmax", x, dim, keepdim);
}
Tensor argmin(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  profiler::RecordScope profile_scope("aten::argmin", x, dim, keepdim);
  return arg_only(false, "argmin", x, dim, keepdim);
}

Tensor all(const Tensor& x, const OptDims& dims, bool keepdim) {
  profiler::RecordScope profile_scope("aten::all", x, dims, keepdim);
  return fold(ReduceOp::All, x, dims, keepdim);
}
Tensor any(const Tensor& x, const OptDims& dims, bool keepdim) {
  profiler::RecordScope profile_scope("aten::any", x, dims, keepdim);
  return fold(ReduceOp::Any, x, dims, keepdim);
}
Tensor any(const Tensor& x) {
  profiler::RecordScope profile_scope("aten::any", x);
  return to_dtype(fold(ReduceOp::Any, x, {}, false), DType::Bool);
}

}  // namespace tandem
