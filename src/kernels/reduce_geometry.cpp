#include "kernels/reduce_geometry.h"

namespace tandem::cpu {

namespace {
// Drops size-1 dims of [begin, end) and merges neighbours where the outer stride equals size * stride of the
// inner one, so a contiguous block becomes a single dim.
void merge_dims(const Tensor& in, int64_t begin, int64_t end, DimVector& sizes, DimVector& strides) {
  for (int64_t d = begin; d < end; ++d) {
    int64_t size = in.sizes()[d], stride = in.strides()[d];
    if (size == 1) continue;
    if (!sizes.empty() && strides.back() == size * stride) {
      sizes[sizes.size() - 1] *= size;
      strides[strides.size() - 1] = stride;
    } else {
      sizes.push_back(size);
      strides.push_back(stride);
    }
  }
}
}  // namespace

ReduceGeometry make_reduce_geometry(const Tensor& in, int64_t n_reduced) {
  ReduceGeometry g;
  int64_t nd = in.dim();
  merge_dims(in, 0, nd - n_reduced, g.kept_sizes, g.kept_strides);
  merge_dims(in, nd - n_reduced, nd, g.red_sizes, g.red_strides);
  for (int64_t s : g.kept_sizes) g.n_out *= s;
  for (int64_t s : g.red_sizes) g.n_red *= s;
  return g;
}

}  // namespace tandem::cpu
