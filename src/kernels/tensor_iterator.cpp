#include "kernels/tensor_iterator.h"

#include <cstring>

#include "core/error.h"

namespace tandem {

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
      strides_[k][d] = (sz == 1 && shape_[d] != 1) ? 0 : t->strides()[src_dim] * es;
    }
  }
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
