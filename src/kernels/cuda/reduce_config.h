// How the CUDA fold kernel lays a reduction out on blocks and threads. Host code with no CUDA dependency, so
// the CPU tests check the launch shapes. Two layouts:
//   x over the reduction: a group of block_x threads (a part of a warp, a warp, or the whole block) folds one
//     output, with vectorised loads when the reduced dim is contiguous (sum(dim=-1), argmax(dim=1), whole
//     tensors); groups combine with warp shuffles.
//   x over the outputs: when the outputs are contiguous and the reduction is not (sum(dim=0)), neighbouring
//     threads fold neighbouring outputs, so each step reads a contiguous row; block_y threads share an
//     output.
// When the outputs alone cannot fill the GPU, grid_y blocks split the reduction into chunks whose partial
// results a second pass combines (no atomics, so results are deterministic).
#pragma once
#include <algorithm>
#include <cstdint>

#include "kernels/cuda/strided_offsets.h"

namespace tandem::cuda {

constexpr int64_t kReduceThreads = 512;
constexpr int64_t kMaxGridY = 65535;

struct ReduceConfig {
  int64_t block_x = 1, block_y = 1, grid_x = 1, grid_y = 1;
  bool x_is_reduce = true;
  bool vectorized = false;  // 16-byte loads along a contiguous reduced dim
  int64_t vector = 1;       // elements per load
  int64_t red_chunk = 0;    // reduced elements per grid_y slice (a multiple of `vector`)
};

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t pow2_ceil(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

// `allow_vector` is false for the second pass, whose inputs are accumulators rather than elements.
inline ReduceConfig choose_reduce_config(const StridedOffsets& kept, const StridedOffsets& red, int64_t n_out,
                                         int64_t n_red, int64_t elem_size, int64_t sm_count, bool allow_split,
                                         bool allow_vector) {
  ReduceConfig c;
  const bool red_contig = red.ndim == 1 && red.strides[0] == 1;
  const bool out_contig = kept.ndim >= 1 && kept.strides[kept.ndim - 1] == 1;
  c.x_is_reduce = red_contig || !out_contig;
  c.vectorized = allow_vector && red_contig && elem_size < 16;
  c.vector = c.vectorized ? 16 / elem_size : 1;
  // Each thread should have about four loads in flight per pass over its part.
  const int64_t loads = std::max<int64_t>(1, ceil_div(n_red, c.vector * 4));
  int64_t outputs_per_block;
  if (c.x_is_reduce) {
    // Whole warps always (the shuffles assume full warps): block_x * block_y == kReduceThreads.
    c.block_x = std::min(kReduceThreads, pow2_ceil(loads));
    c.block_y = kReduceThreads / c.block_x;
    outputs_per_block = c.block_y;
  } else {
    c.block_x = std::min<int64_t>(32, pow2_ceil(n_out));
    c.block_y = std::min(kReduceThreads / c.block_x, pow2_ceil(loads));
    outputs_per_block = c.block_x;
  }
  c.grid_x = ceil_div(n_out, outputs_per_block);
  const int64_t red_threads = c.x_is_reduce ? c.block_x : c.block_y;
  const int64_t target_blocks = sm_count * (2048 / kReduceThreads);
  int64_t splits = 1;
  if (allow_split && c.grid_x < target_blocks) {
    // Split only while every thread keeps at least sixteen loads of work per slice.
    const int64_t min_chunk = red_threads * c.vector * 16;
    splits =
        std::clamp<int64_t>(std::min(ceil_div(target_blocks, c.grid_x), n_red / min_chunk), 1, kMaxGridY);
  }
  c.red_chunk = ceil_div(ceil_div(n_red, splits), c.vector) * c.vector;
  c.grid_y = c.red_chunk ? ceil_div(n_red, c.red_chunk) : 1;
  return c;
}

}  // namespace tandem::cuda
