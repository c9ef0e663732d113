#include "kernels/tensor_iterator.h"

#include <cstring>
#include <utility>

#include "core/error.h"
#include "core/memory_overlap.h"

namespace tandem {

namespace {
// PyTorch's memory-overlap rules for an op that writes `out` while reading the inputs (every in-place op and
// copy goes through here): refuse an output whose elements share memory (an expanded tensor), and an input
// that shares some but not all of the output's memory in the same layout (x.copy_(x.t()), x.add_(x.t())):
// the result would depend on the order the kernel visits elements. Like PyTorch, layouts too irregular to
// decide cheaply (strided slices) are let through.
void check_memory_overlap(const Tensor& out, const Tensor* const* inputs, int n_inputs) {
  if (out.numel() == 0) return;
  if (!out.is_contiguous()) {
    bool internal = false;
    for (int64_t d = 0; d < out.dim(); ++d) internal |= out.strides()[d] == 0 && out.sizes()[d] > 1;
    TANDEM_CHECK(!internal, Runtime,
                 "unsupported operation: more than one element of the written-to tensor refers to a single "
                 "memory location. Please clone() the tensor before performing the operation.\nhint: the "
                 "output is expanded (a stride of 0); write into out.clone() or a contiguous tensor");
  }
  for (int k = 0; k < n_inputs; ++k) {
    TANDEM_CHECK(!inputs[k] || !overlaps_partially(out, *inputs[k]), Runtime, kInputOverlapsOutput,
                 "\nhint: the input overlaps the output in another layout (e.g. x.copy_(x.t())); pass "
                 "x.t().clone()");
  }
}
// The output's (operand 0's) dims by stride, innermost first: a stable insertion sort, so ties keep the
// logical order. A result laid out like a transposed input (ops/layout.h) and an in-place write into a
// transposed tensor are then walked through memory in order, and their dims merge.
void order_by_output_strides(DimVector& shape, DimVector* strides, int n_operands) {
  const int nd = static_cast<int>(shape.size());
  DimVector order(nd);
  for (int d = 0; d < nd; ++d) order[d] = d;
  const DimVector& out = strides[0];
  for (int i = 1; i < nd; ++i)
    for (int j = i; j > 0 && out[order[j]] < out[order[j - 1]]; --j) std::swap(order[j], order[j - 1]);
  bool moved = false;
  for (int d = 0; d < nd; ++d) moved |= order[d] != d;
  if (!moved) return;
  DimVector reordered(nd);
  for (int d = 0; d < nd; ++d) reordered[d] = shape[order[d]];
  shape = reordered;
  for (int k = 0; k < n_operands; ++k) {
    for (int d = 0; d < nd; ++d) reordered[d] = strides[k][order[d]];
    strides[k] = reordered;
  }
}
}  // namespace

TensorIterator::TensorIterator(const TensorIterator& o)
    : n_(o.n_), shape_(o.shape_), numel_(o.numel_), device_(o.device_) {
  std::memcpy(scalars_, o.scalars_, sizeof scalars_);
  for (int k = 0; k < n_; ++k) {
    sources_[k] = {nullptr};
    dtypes_[k] = o.dtypes_[k];
    strides_[k] = o.strides_[k];
    data_[k] = o.data_[k] == o.scalars_[k] ? scalars_[k] : o.data_[k];
  }
}

void TensorIterator::add(const Tensor& t) {
  sources_[n_] = {&t};
  data_[n_] = static_cast<char*>(t.data_ptr());
  dtypes_[n_] = t.dtype();
  ++n_;
}

void TensorIterator::add_scalar_input(const void* value, DType dtype) {
  std::memcpy(scalars_[n_], value, element_size(dtype));
  sources_[n_] = {nullptr};
  data_[n_] = scalars_[n_];
  dtypes_[n_] = dtype;
  ++n_;
}

void TensorIterator::build() {
  const Tensor& out = *sources_[0].tensor;
  // The overlap rules only matter for an output that is not contiguous or that shares storage with an
  // input; the usual fresh output costs these few compares.
  bool shared = !out.is_contiguous();
  for (int k = 1; k < n_; ++k)
    shared |= sources_[k].tensor && sources_[k].tensor->storage().get() == out.storage().get();
  if (__builtin_expect(shared, 0)) {
    const Tensor* inputs[kMaxOperands];
    for (int k = 1; k < n_; ++k) inputs[k - 1] = sources_[k].tensor;
    check_memory_overlap(out, inputs, n_ - 1);
  }
  device_ = out.device();
  numel_ = out.numel();
  const DimVector& out_sizes = out.sizes();

  // Fast path: every tensor operand is contiguous with the output's element count, so one flat strip
  // covers everything (scalars keep stride 0).
  bool flat = true;
  for (int k = 0; k < n_ && flat; ++k) {
    const Tensor* t = sources_[k].tensor;
    flat = !t || (t->is_contiguous() && t->numel() == numel_);
  }
  if (flat) {
    shape_ = DimVector{numel_};
    for (int k = 0; k < n_; ++k)
      strides_[k] = DimVector{sources_[k].tensor ? static_cast<int64_t>(element_size(dtypes_[k])) : 0};
    return;
  }

  // General case: byte strides aligned to the output's dims (right-aligned broadcasting), innermost first.
  int64_t nd = out.dim();
  shape_ = DimVector(nd);
  for (int64_t d = 0; d < nd; ++d) shape_[d] = out_sizes[nd - 1 - d];
  for (int k = 0; k < n_; ++k) {
    strides_[k] = DimVector(nd, 0);
    const Tensor* t = sources_[k].tensor;
    if (!t) continue;
    int64_t es = static_cast<int64_t>(element_size(dtypes_[k]));
    int64_t tnd = t->dim();
    for (int64_t d = 0; d < tnd; ++d) {
      int64_t src_dim = tnd - 1 - d;
      int64_t sz = t->sizes()[src_dim];
      // A size-1 dim is never stepped, and its stride may be anything (x[:, ::2**63 - 1] has stride * step).
      strides_[k][d] = sz == 1 ? 0 : t->strides()[src_dim] * es;
    }
  }
  if (!out.is_contiguous()) order_by_output_strides(shape_, strides_, n_);
  coalesce();
}

void TensorIterator::coalesce() {
  // Drop size-1 dims, then merge neighbours d, d+1 when every operand steps through them as one dim.
  int nd = 0;
  for (int d = 0; d < ndim(); ++d) {
    if (shape_[d] == 1) continue;
    shape_[nd] = shape_[d];
    for (int k = 0; k < n_; ++k) strides_[k][nd] = strides_[k][d];
    ++nd;
  }
  if (nd == 0) {
    shape_ = DimVector{numel_ == 0 ? 0 : 1};
    for (int k = 0; k < n_; ++k) strides_[k] = DimVector{0};
    return;
  }
  int out = 0;
  for (int d = 1; d < nd; ++d) {
    bool mergeable = true;
    for (int k = 0; k < n_ && mergeable; ++k) mergeable = strides_[k][d] == strides_[k][out] * shape_[out];
    if (mergeable) {
      shape_[out] *= shape_[d];
    } else {
      ++out;
      shape_[out] = shape_[d];
      for (int k = 0; k < n_; ++k) strides_[k][out] = strides_[k][d];
    }
  }
  shape_.resize(out + 1);
  for (int k = 0; k < n_; ++k) strides_[k].resize(out + 1);
}

}  // namespace tandem
