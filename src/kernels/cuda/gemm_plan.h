// How the CUDA gemm walks a GemmArgs batch: batch dims are merged wherever all three operands allow it, the
// innermost merged dim becomes one batched launch (`count` products at uniform strides, which cuBLAS's
// strided-batched calls and the tiled kernel's z-grid take as they are), and any dims left before it are
// walked on the host. A broadcast operand keeps stride 0; nothing is materialised.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "core/small_vector.h"
#include "kernels/linalg_kernels.h"

namespace tandem::cuda {

// Element offsets of one batched launch's first product, and the strides between its products.
struct GemmLaunch {
  int64_t a_offset = 0, b_offset = 0, out_offset = 0;
  int64_t count = 1;
  int64_t a_stride = 0, b_stride = 0, out_stride = 0;
};

struct GemmBatchPlan {
  struct Dim {
    int64_t size, a, b, out;
  };
  std::vector<Dim> outer;  // walked on the host, outermost first
  Dim inner{1, 0, 0, 0};   // one launch

  explicit GemmBatchPlan(const GemmArgs& g) {
    std::vector<Dim> dims;
    for (size_t d = 0; d < g.batch_sizes.size(); ++d) {
      const Dim dim{g.batch_sizes[d], g.a.batch_strides[d], g.b.batch_strides[d], g.out.batch_strides[d]};
      if (dim.size == 1) continue;  // its strides never matter
      if (!dims.empty()) {
        Dim& last = dims.back();
        // The outer dim steps exactly over the inner one in every operand: the two are one dim.
        if (last.a == dim.a * dim.size && last.b == dim.b * dim.size && last.out == dim.out * dim.size) {
          last = {last.size * dim.size, dim.a, dim.b, dim.out};
          continue;
        }
      }
      dims.push_back(dim);
    }
    if (!dims.empty()) {
      inner = dims.back();
      dims.pop_back();
    }
    outer = std::move(dims);
  }

  // Calls fn(GemmLaunch) once per index of the outer dims.
  template <typename Fn>
  void for_each_launch(const Fn& fn) const {
    const size_t nd = outer.size();
    DimVector idx(nd, 0);
    int64_t launches = 1;
    for (const Dim& d : outer) launches *= d.size;
    for (int64_t l = 0; l < launches; ++l) {
      GemmLaunch launch{0, 0, 0, inner.size, inner.a, inner.b, inner.out};
      for (size_t d = 0; d < nd; ++d) {
        launch.a_offset += idx[d] * outer[d].a;
        launch.b_offset += idx[d] * outer[d].b;
        launch.out_offset += idx[d] * outer[d].out;
      }
      fn(launch);
      for (size_t d = nd; d-- > 0 && ++idx[d] == outer[d].size;) idx[d] = 0;
    }
  }
};

}  // namespace tandem::cuda
