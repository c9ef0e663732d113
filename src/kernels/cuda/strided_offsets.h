// Index arithmetic of the CUDA reduce and index kernels: a linear index over a shape becomes an element
// offset through fixed-size structs that kernels take by value as launch parameters. Host/device code with no
// CUDA dependency, so the CPU tests check the same arithmetic the kernels run.
#pragma once
#include <cstdint>

#include "core/error.h"
#include "core/macros.h"
#include "core/small_vector.h"
#include "kernels/index_kernels.h"

namespace tandem::cuda {

// The most dims a CUDA kernel handles after merging, as in PyTorch.
constexpr int kMaxDims = 25;

// Element offset of the row-major linear index i over `sizes` (outermost first) with `strides`.
struct StridedOffsets {
  int ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};

  TANDEM_HOST_DEVICE int64_t operator()(int64_t i) const {
    if (ndim == 1) return i * strides[0];  // the common case after merging, without a division
    int64_t off = 0;
    for (int d = ndim - 1; d > 0; --d) {
      off += (i % sizes[d]) * strides[d];
      i /= sizes[d];
    }
    return ndim ? off + i * strides[0] : 0;
  }
};

inline void check_dims(size_t ndim) {
  TANDEM_CHECK(ndim <= static_cast<size_t>(kMaxDims), NotImplemented,
               "CUDA kernels support tensors with at most ", kMaxDims, " dims that cannot be merged, got ",
               ndim, "\nhint: make the tensor contiguous() or reshape it to fewer dims first");
}

// Dims [0, n) of (sizes, strides) with size-1 dims dropped and neighbours merged where the outer stride is
// size * stride of the inner one, so a contiguous block becomes a single dim (the CPU engine does the same).
inline StridedOffsets merged_offsets(const int64_t* sizes, const int64_t* strides, int64_t n) {
  DimVector ms, mt;
  for (int64_t d = 0; d < n; ++d) {
    if (sizes[d] == 1) continue;
    if (!ms.empty() && mt[mt.size() - 1] == sizes[d] * strides[d]) {
      ms[ms.size() - 1] *= sizes[d];
      mt[mt.size() - 1] = strides[d];
    } else {
      ms.push_back(sizes[d]);
      mt.push_back(strides[d]);
    }
  }
  check_dims(ms.size());
  StridedOffsets r;
  r.ndim = static_cast<int>(ms.size());
  for (size_t d = 0; d < ms.size(); ++d) r.sizes[d] = ms[d], r.strides[d] = mt[d];
  return r;
}

// The geometry of an IndexPlan in launch-parameter form, for at most NI index operands. Unlike the reduce
// offsets, dims are not merged: index operands broadcast along some of them.
template <int NI>
struct IndexGeometry {
  int ndim = 0, num_indices = 0;
  int64_t shape[kMaxDims] = {}, self_strides[kMaxDims] = {}, other_strides[kMaxDims] = {};
  const int64_t* index_data[NI] = {};
  int64_t index_strides[NI][kMaxDims] = {};
  int64_t dim_size[NI] = {}, dim_stride[NI] = {};

  // Offsets (elements) of the self element that linear index i addresses, with the index terms, and of its
  // partner in other.
  TANDEM_HOST_DEVICE void offsets(int64_t i, int64_t& self_off, int64_t& other_off) const {
    int64_t idx_off[NI] = {};
    self_off = other_off = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      int64_t c = i % shape[d];
      i /= shape[d];
      self_off += c * self_strides[d];
      other_off += c * other_strides[d];
      for (int k = 0; k < num_indices; ++k) idx_off[k] += c * index_strides[k][d];
    }
    for (int k = 0; k < num_indices; ++k) {
      int64_t v = index_data[k][idx_off[k]];
      if (v < 0) v += dim_size[k];
      self_off += v * dim_stride[k];
    }
  }
};

template <int NI>
IndexGeometry<NI> make_index_geometry(const IndexPlan& plan) {
  check_dims(plan.shape.size());
  check_dims(plan.indices.size());  // callers pick NI = kMaxDims unless there is a single operand
  IndexGeometry<NI> g;
  g.ndim = static_cast<int>(plan.shape.size());
  g.num_indices = static_cast<int>(plan.indices.size());
  for (int d = 0; d < g.ndim; ++d) {
    g.shape[d] = plan.shape[d];
    g.self_strides[d] = plan.self_strides[d];
    g.other_strides[d] = plan.other_strides[d];
  }
  for (int k = 0; k < g.num_indices; ++k) {
    const IndexOperand& ix = plan.indices[k];
    g.index_data[k] = ix.data;
    g.dim_size[k] = ix.dim_size;
    g.dim_stride[k] = ix.dim_stride;
    for (int d = 0; d < g.ndim; ++d) g.index_strides[k][d] = ix.strides[d];
  }
  return g;
}

}  // namespace tandem::cuda
