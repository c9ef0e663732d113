// Kernel slots of the index family (filled per device type at backend registration).
#pragma once
#include <vector>

#include "core/tensor.h"

namespace tandem {

// One index operand of an IndexPlan: int64 positions (negative ones count from the end, already checked to be
// in range) read at `strides` over the plan's shape, selecting along a dim of the indexed tensor that has
// `dim_size` entries `dim_stride` elements apart.
struct IndexOperand {
  const int64_t* data;
  DimVector strides;
  int64_t dim_size;
  int64_t dim_stride;
};

// The geometry every gather/scatter-style op reduces to. For each multi-index i over `shape`, the element
//   self[i . self_strides + sum_k wrap(index_k[i . index_k.strides]) * index_k.dim_stride]
// is paired with other[i . other_strides]. All strides are in elements; pointers already include offsets.
// Advanced indexing, index_select, gather, scatter and take_along_dim only differ in how they build it.
struct IndexPlan {
  Device device;  // where self, other and the indices live
  DimVector shape;
  char* self = nullptr;
  DimVector self_strides;
  char* other = nullptr;
  DimVector other_strides;
  std::vector<IndexOperand> indices;
  DType dtype = DType::Float32;
};

// other[i] = self[index(i)]
using IndexGatherKernel = void (*)(const IndexPlan& plan);
// self[index(i)] = other[i], or += when accumulating (duplicates then add up).
using IndexPutKernel = void (*)(const IndexPlan& plan, bool accumulate);
// Smallest and largest value of a non-empty contiguous int64 tensor (front ends turn these into range
// errors).
using IndexMinMaxKernel = void (*)(const Tensor& index, int64_t* min, int64_t* max);
// Number of non-zero elements of a contiguous tensor.
using CountNonzeroKernel = int64_t (*)(const Tensor& x);
// out ([count, x.dim()] int64, contiguous) = coordinates of the non-zero elements of contiguous x, row-major.
using NonzeroKernel = void (*)(const Tensor& out, const Tensor& x);
// self's element at the k-th true position of mask (row-major) = source's k-th element: self, mask (bool,
// self's shape) and source (self's dtype, at least as many elements as mask has true ones) contiguous.
using MaskedScatterKernel = void (*)(const Tensor& self, const Tensor& mask, const Tensor& source);

// The slots, listed in kernels/kernel_slots.def.
struct IndexKernels {
#define TANDEM_INDEX_SLOT(name, Type) Type name = nullptr;
#include "kernels/kernel_slots.def"
#undef TANDEM_INDEX_SLOT
};

}  // namespace tandem
