// The one elementwise iterator. It lines up an output and its inputs over the output's shape (broadcasting
// by zero strides), orders dims innermost-first, merges dims that are contiguous in every operand, and hands
// 1-D strips to a loop. Backends (CPU loops, CUDA launches) consume the same description.
#pragma once
#include <cstdint>

#include "core/dtype.h"
#include "core/parallel.h"
#include "core/small_vector.h"
#include "core/tensor.h"

namespace tandem {

class TensorIterator {
 public:
  static constexpr int kMaxOperands = 4;
  TensorIterator() = default;
  // A built iterator may be copied (an asynchronous backend queues a copy); scalar operands are re-pointed at
  // the copy's own storage. Copies cannot be built again.
  TensorIterator(const TensorIterator& other);
  TensorIterator& operator=(const TensorIterator&) = delete;

  // Operand 0 is the output. Inputs must broadcast to the output's shape (front ends check this).
  void add_output(const Tensor& t) { add(t); }
  void add_input(const Tensor& t) { add(t); }
  // The iterator keeps a pointer to each operand: a temporary would be gone before build() reads it.
  void add_output(Tensor&&) = delete;
  void add_input(Tensor&&) = delete;
  // A single value that every element sees (a Python scalar already converted to the compute dtype).
  void add_scalar_input(const void* value, DType dtype);
  // Computes the iteration geometry; call after adding operands.
  void build();

  int ntensors() const { return n_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  int64_t numel() const { return numel_; }
  const DimVector& shape() const { return shape_; }              // innermost first
  const DimVector& strides(int k) const { return strides_[k]; }  // bytes, innermost first
  char* data(int k) const { return data_[k]; }
  DType dtype(int k) const { return dtypes_[k]; }
  // Whether operand k is an add_scalar_input value: data(k) then points into this (host) iterator.
  bool is_scalar(int k) const { return data_[k] == scalars_[k]; }
  Device device() const { return device_; }
  bool is_contiguous_1d() const { return ndim() == 1; }

  // Calls loop(char** data, const int64_t* strides, int64_t n) over [begin, end) of the linear index,
  // strip by strip along the innermost dim.
  template <typename Loop>
  void for_each_range(int64_t begin, int64_t end, Loop&& loop) const;
  // Runs the whole range, split across OpenMP threads when large enough to pay for it.
  template <typename Loop>
  void for_each(Loop&& loop) const;

 private:
  void add(const Tensor& t);
  void coalesce();

  struct Source {
    const Tensor* tensor;  // null for a scalar
  };
  int n_ = 0;
  Source sources_[kMaxOperands]{};
  alignas(16) char scalars_[kMaxOperands][16]{};  // values of scalar operands (up to complex128)
  char* data_[kMaxOperands]{};
  DType dtypes_[kMaxOperands]{};
  DimVector strides_[kMaxOperands];
  DimVector shape_;
  int64_t numel_ = 0;
  Device device_;
};

// Elements below which splitting work across threads costs more than it saves.
constexpr int64_t kParallelGrain = 32768;

template <typename Loop>
void TensorIterator::for_each_range(int64_t begin, int64_t end, Loop&& loop) const {
  int nd = ndim();
  int64_t strides_inner[kMaxOperands];
  for (int k = 0; k < n_; ++k) strides_inner[k] = nd ? strides_[k][0] : 0;
  if (nd <= 1) {
    char* ptrs[kMaxOperands];
    for (int k = 0; k < n_; ++k) ptrs[k] = data_[k] + begin * strides_inner[k];
    loop(ptrs, strides_inner, end - begin);
    return;
  }
  // Multi-index of `begin`, innermost first.
  DimVector idx(nd);
  int64_t rem = begin;
  for (int d = 0; d < nd; ++d) {
    idx[d] = rem % shape_[d];
    rem /= shape_[d];
  }
  int64_t pos = begin;
  while (pos < end) {
    // Each operand's address at (0, idx[1], idx[2], ...); along dim 1 the next strip is one dim-1 stride
    // further, so the pointers step instead of summing every dim's offset for each strip (strips of a few
    // elements, e.g. a batch of small transposed matrices, spent most of their time in that sum).
    char* row[kMaxOperands];
    for (int k = 0; k < n_; ++k) {
      int64_t off = 0;
      for (int d = 1; d < nd; ++d) off += idx[d] * strides_[k][d];
      row[k] = data_[k] + off;
    }
    while (true) {
      char* ptrs[kMaxOperands];
      for (int k = 0; k < n_; ++k) ptrs[k] = row[k] + idx[0] * strides_inner[k];
      const int64_t n = std::min(shape_[0] - idx[0], end - pos);
      loop(ptrs, strides_inner, n);
      pos += n;
      if (pos >= end) return;
      idx[0] = 0;  // the strip ran to the end of dim 0
      if (++idx[1] == shape_[1]) break;
      for (int k = 0; k < n_; ++k) row[k] += strides_[k][1];
    }
    idx[1] = 0;
    for (int d = 2; d < nd; ++d) {
      if (++idx[d] < shape_[d]) break;
      idx[d] = 0;
    }
  }
}
template <typename Loop>
void TensorIterator::for_each(Loop&& loop) const {
  parallel_for(0, numel_, kParallelGrain, [&](int64_t b, int64_t e) { for_each_range(b, e, loop); });
}

}  // namespace tandem
