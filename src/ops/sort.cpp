// Scans and sorts along one dim: cumsum, sort, argsort, topk.
#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "ops/autocast.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/reduce.h"
#include "ops/reduce_plan.h"

namespace tandem {

Tensor cumsum(const Tensor& x, int64_t dim, OptDType dtype) {
  profiler::RecordScope profile_scope("aten::cumsum", x, dim, dtype);
  if (autocast::is_active())
    return autocast::run_fp32_output(autocast::kCudaFp32Output, x, dtype,
                                     [&](OptDType d) { return cumsum(x, dim, d); });
  if (autograd::should_record(x))
    return autograd::record_cumsum(x, dim, autograd::without_grad([&] { return cumsum(x, dim, dtype); }));
  int64_t d = wrap_dim(dim, x.dim());
  DType out_dtype =
      dtype.value_or(is_floating(x.dtype()) || is_complex(x.dtype()) ? x.dtype() : DType::Int64);
  // uint16..64 sums run in int64 (the same bits modulo 2^64), which has a kernel.
  if (is_wide_uint(out_dtype)) return to_dtype(cumsum(x, dim, DType::Int64), out_dtype);
  Tensor in = to_dtype(x, out_dtype);
  Tensor out = empty(x.sizes(), out_dtype, x.device());
  if (!out.numel()) return out;
  if (is_complex(out_dtype)) {
    // The real and imaginary parts add up independently: the real kernel scans the (..., 2) views along d.
    if (x.dim() == 0) return copy_(out, in);
    kernel_table(x.device().type)
        .reduce.cumsum(move_dim_last(view_as_real(out), d), move_dim_last(view_as_real(in), d));
    return out;
  }
  kernel_table(x.device().type).reduce.cumsum(move_dim_last(out, d), move_dim_last(in, d));
  return out;
}

namespace {

// PyTorch's sort and topk refuse complex (there is no order), with these messages.
void check_orderable(const char* op, const Tensor& x) {
  TANDEM_CHECK(!is_complex(x.dtype()), Type, " ", op, " does not support complex dtypes on ",
               x.device().is_cpu() ? "CPU" : "CUDA");
}

ValuesIndices sort_along(const Tensor& x, int64_t d, int64_t k, bool descending, bool stable) {
  check_orderable("Sort", x);
  DimVector shape(x.sizes());
  if (x.dim()) shape[d] = k;
  Tensor values = empty(shape, x.dtype(), x.device());
  Tensor indices = empty(shape, DType::Int64, x.device());
  if (values.numel())
    kernel_table(x.device().type)
        .reduce.sort(move_dim_last(values, d), move_dim_last(indices, d), move_dim_last(x, d), k, descending,
                     stable);
  return {values, indices};
}

}  // namespace

ValuesIndices sort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  if (autograd::should_record(x)) {
    ValuesIndices r = autograd::without_grad([&] { return sort(x, dim, descending, stable); });
    autograd::record_select_values("SortBackward0", x, dim, true, r.first, r.second);
    return r;
  }
  int64_t d = wrap_dim(dim, x.dim());
  return sort_along(x, d, x.dim() ? x.sizes()[d] : 1, descending, stable);
}

Tensor argsort(const Tensor& x, int64_t dim, bool descending, bool stable) {
  profiler::RecordScope profile_scope("aten::argsort", x, dim, descending, stable);
  int64_t d = wrap_dim(dim, x.dim());
  return sort_along(x, d, x.dim() ? x.sizes()[d] : 1, descending, stable).second;
}

ValuesIndices topk(const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
  if (autograd::should_record(x)) {
    ValuesIndices r = autograd::without_grad([&] { return topk(x, k, dim, largest, sorted); });
    autograd::record_select_values("TopkBackward0", x, dim, true, r.first, r.second);
    return r;
  }
  // Results always come sorted: a sorted answer is a valid unsorted one too.
  (void)sorted;
  int64_t d = wrap_dim(dim, x.dim());
  int64_t n = x.dim() ? x.sizes()[d] : 1;
  TANDEM_CHECK(k >= 0 && k <= n, Runtime, "selected index k out of range\nhint: k is ", k, " but dim ", d,
               " has size ", n, "; pick k in [0, ", n, "]");
  check_orderable("topk", x);  // after dim and k, as PyTorch
  TANDEM_CHECK(x.dtype() != DType::Bool, NotImplemented, "topk does not support bool dtypes on CPU",
               "\nhint: convert first, e.g. x.int().topk(k)");
  // A 0-d tensor's result is its one element for k = 0 too, as in PyTorch (a 0-d result cannot hold none).
  return sort_along(x, d, x.dim() ? k : 1, largest, false);
}

}  // namespace tandem
