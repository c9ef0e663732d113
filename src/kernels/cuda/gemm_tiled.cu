// Integer gemm (cuBLAS has none): a 16 x 16 shared-memory tiled kernel accumulating as the CPU loop does
// (GemmAccumulator: wrapping 64-bit arithmetic), so results match the CPU's exactly. Grid dims are capped at
// 65535 and every block walks its tiles and batch entries in grid-stride loops, so any size fits.
#include <type_traits>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "kernels/cuda/gemm_cuda.h"
#include "kernels/cuda/gemm_plan.h"
#include "kernels/gemm_math.h"

namespace tandem::cuda {

namespace {

constexpr int kTile = 16;
constexpr int64_t kMaxGridDim = 65535;

// The geometry of one launch: `count` products whose operands are the given strides apart.
struct TiledGemm {
  int64_t m, n, k;
  int64_t a_rs, a_cs, b_rs, b_cs, out_rs, out_cs;
  int64_t count, a_bs, b_bs, out_bs;
};

template <typename T>
__global__ void gemm_tiled_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out,
                                  TiledGemm t, typename GemmAccumulator<T>::type alpha,
                                  typename GemmAccumulator<T>::type beta, bool read_out) {
  using Acc = GemmAccumulator<T>;
  using A = typename Acc::type;
  __shared__ A a_tile[kTile][kTile];
  __shared__ A b_tile[kTile][kTile + 1];  // padded: column reads hit distinct banks
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t tiles_m = (t.m + kTile - 1) / kTile, tiles_n = (t.n + kTile - 1) / kTile;
  // Loop bounds depend on the block only, so every thread of a block reaches each __syncthreads().
  for (int64_t z = blockIdx.z; z < t.count; z += gridDim.z) {
    const T* az = a + z * t.a_bs;
    const T* bz = b + z * t.b_bs;
    T* oz = out + z * t.out_bs;
    for (int64_t tile_m = blockIdx.y; tile_m < tiles_m; tile_m += gridDim.y) {
      for (int64_t tile_n = blockIdx.x; tile_n < tiles_n; tile_n += gridDim.x) {
        const int64_t row = tile_m * kTile + ty, col = tile_n * kTile + tx;
        A acc = 0;
        for (int64_t p0 = 0; p0 < t.k; p0 += kTile) {
          const int64_t pa = p0 + tx, pb = p0 + ty;
          a_tile[ty][tx] = row < t.m && pa < t.k ? Acc::load(az[row * t.a_rs + pa * t.a_cs]) : A(0);
          b_tile[ty][tx] = pb < t.k && col < t.n ? Acc::load(bz[pb * t.b_rs + col * t.b_cs]) : A(0);
          __syncthreads();
          for (int q = 0; q < kTile; ++q) acc += a_tile[ty][q] * b_tile[q][tx];
          __syncthreads();
        }
        if (row < t.m && col < t.n) {
          T& o = oz[row * t.out_rs + col * t.out_cs];
          A v = alpha * acc;
          if (read_out) v += beta * Acc::load(o);
          o = Acc::store(v);
        }
      }
    }
  }
}

int64_t grid_dim(int64_t blocks) { return blocks < kMaxGridDim ? blocks : kMaxGridDim; }

}  // namespace

void gemm_tiled(const GemmArgs& g) {
  cudaStream_t stream = current_stream(g.device);
  const GemmBatchPlan plan(g);
  dispatch_dtype(g.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // bool products are rejected by the front ends (as on the CPU, whose loop skips them too).
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      using Acc = GemmAccumulator<T>;
      const T* a = static_cast<const T*>(g.a.data);
      const T* b = static_cast<const T*>(g.b.data);
      T* out = static_cast<T*>(g.out.data);
      plan.for_each_launch([&](const GemmLaunch& l) {
        const TiledGemm t{g.m,
                          g.n,
                          g.k,
                          g.a.row_stride,
                          g.a.col_stride,
                          g.b.row_stride,
                          g.b.col_stride,
                          g.out.row_stride,
                          g.out.col_stride,
                          l.count,
                          l.a_stride,
                          l.b_stride,
                          l.out_stride};
        const dim3 grid(static_cast<unsigned>(grid_dim((g.n + kTile - 1) / kTile)),
                        static_cast<unsigned>(grid_dim((g.m + kTile - 1) / kTile)),
                        static_cast<unsigned>(grid_dim(l.count)));
        gemm_tiled_kernel<T>
            <<<grid, dim3(kTile, kTile), 0, stream>>>(a + l.a_offset, b + l.b_offset, out + l.out_offset, t,
                                                      Acc::scalar(g.alpha), Acc::scalar(g.beta), g.beta != 0);
        TANDEM_CUDA_CHECK_LAUNCH();
      });
    }
  });
}

}  // namespace tandem::cuda
