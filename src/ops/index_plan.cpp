#include "ops/index_plan.h"

#include "core/error.h"
#include "kernels/kernel_table.h"
#include "ops/copy.h"
#include "ops/view.h"

namespace tandem {

Tensor contiguous_int64(const Tensor& index) { return contiguous(to_dtype(index, DType::Int64)); }

bool index_min_max(const Tensor& index64, int64_t& lo, int64_t& hi) {
  // A meta index has no values to check (PyTorch's meta kernels take every index as in range).
  if (index64.numel() == 0 || index64.device().is_meta()) return false;
  kernel_table(index64.device().type).index.min_max(index64, &lo, &hi);
  return true;
}

bool index_in_range(const Tensor& index64, int64_t size, bool allow_negative, int64_t& bad) {
  int64_t lo, hi;
  if (!index_min_max(index64, lo, hi)) return true;
  if (hi >= size) {
    bad = hi;
    return false;
  }
  if (lo < (allow_negative ? -size : 0)) {
    bad = lo;
    return false;
  }
  return true;
}

void coalesce(IndexPlan& plan) {
  const int64_t nd = static_cast<int64_t>(plan.shape.size());
  // Every stride list of the plan, so the merge rule is written once.
  std::vector<DimVector*> lists{&plan.self_strides, &plan.other_strides};
  for (IndexOperand& ix : plan.indices) lists.push_back(&ix.strides);
  int64_t out = -1;
  for (int64_t d = 0; d < nd; ++d) {
    if (plan.shape[d] == 1) continue;
    bool merge = out >= 0;
    for (DimVector* s : lists) merge = merge && (*s)[out] == (*s)[d] * plan.shape[d];
    if (merge) {
      plan.shape[out] *= plan.shape[d];
      for (DimVector* s : lists) (*s)[out] = (*s)[d];
      continue;
    }
    ++out;
    plan.shape[out] = plan.shape[d];
    for (DimVector* s : lists) (*s)[out] = (*s)[d];
  }
  const size_t kept = static_cast<size_t>(out + 1);
  plan.shape.resize(kept);
  for (DimVector* s : lists) s->resize(kept);
}

Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? unsqueeze(t, 0) : t; }

Tensor flattened(const Tensor& x) { return x.dim() == 0 ? unsqueeze(x, 0) : reshape(x, DimVector{-1}); }

void run_gather(const Tensor& t, const IndexPlan& plan) { kernel_table(t.device().type).index.gather(plan); }

void run_put(const Tensor& t, const IndexPlan& plan, bool accumulate) {
  if (accumulate && is_complex(plan.dtype)) {
    // The real and imaginary parts add up independently: one real accumulating put per part, over the same
    // elements read as (real, imag) pairs (strides doubled, the imaginary part one value further on).
    const DType value = complex_value_dtype(plan.dtype);
    for (int part = 0; part < 2; ++part) {
      IndexPlan p = plan;
      p.dtype = value;
      p.self += part * element_size(value);
      p.other += part * element_size(value);
      for (int64_t& s : p.self_strides) s *= 2;
      for (int64_t& s : p.other_strides) s *= 2;
      for (IndexOperand& o : p.indices) o.dim_stride *= 2;
      kernel_table(t.device().type).index.put(p, true);
    }
    return;
  }
  kernel_table(t.device().type).index.put(plan, accumulate);
}

}  // namespace tandem
