// The CUDA fold engine: out[o] = fold of in[o, r] over r for a Policy that names the accumulator type, its
// identity, how an element (at reduced position r) enters it, how two partial results combine, and how a
// final result is written (emit). Layouts are chosen by reduce_config.h. Every policy's combine is
// commutative and associative (the arg policies break ties by index), so any thread order gives the CPU's
// answer up to float rounding.
#pragma once
#include <cstring>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "kernels/cuda/reduce_config.h"

namespace tandem::cuda {

// __shfl_down_sync for any trivially copyable accumulator, moved as 32-bit words.
template <typename A>
__device__ __forceinline__ A shfl_down(A v, int delta, int width) {
  constexpr int kWords = (sizeof(A) + 3) / 4;
  uint32_t w[kWords] = {};
  memcpy(w, &v, sizeof(A));
#pragma unroll
  for (int i = 0; i < kWords; ++i) w[i] = __shfl_down_sync(0xffffffffu, w[i], delta, width);
  memcpy(&v, w, sizeof(A));
  return v;
}

template <typename P>
struct ReduceArgs {
  P policy;
  const void* in;              // elements (first pass) or accumulators (second pass)
  typename P::acc_t* partial;  // first pass of a split reduction: partial[slice * n_out + o]
  StridedOffsets kept, red;    // offsets of output o's first element and of reduced position r
  int64_t n_out, n_red, red_chunk;
  bool x_is_reduce, vectorized;
};

// Folds one loaded value: an element at reduced position r, or (second pass) a partial accumulator.
template <bool kInIsAcc, typename P, typename In>
__device__ __forceinline__ typename P::acc_t absorb(const P& p, typename P::acc_t a, In x, int64_t r) {
  if constexpr (kInIsAcc)
    return p.combine(a, x);
  else
    return p.step(a, x, r);
}

// Positions [lo, hi) of a row with any stride; four loads in flight per thread.
template <bool kInIsAcc, typename P, typename In>
__device__ typename P::acc_t fold_strided(const P& p, const In* base, const StridedOffsets& red, int64_t lo,
                                          int64_t hi, int64_t tr, int64_t nr) {
  using acc_t = typename P::acc_t;
  acc_t a0 = p.identity(), a1 = a0, a2 = a0, a3 = a0;
  int64_t r = lo + tr;
  for (; r + 3 * nr < hi; r += 4 * nr) {
    In x0 = base[red(r)], x1 = base[red(r + nr)], x2 = base[red(r + 2 * nr)], x3 = base[red(r + 3 * nr)];
    a0 = absorb<kInIsAcc>(p, a0, x0, r);
    a1 = absorb<kInIsAcc>(p, a1, x1, r + nr);
    a2 = absorb<kInIsAcc>(p, a2, x2, r + 2 * nr);
    a3 = absorb<kInIsAcc>(p, a3, x3, r + 3 * nr);
  }
  for (; r < hi; r += nr) a0 = absorb<kInIsAcc>(p, a0, base[red(r)], r);
  return p.combine(p.combine(a0, a1), p.combine(a2, a3));
}

template <typename T, int V>
struct alignas(16) Vec {
  T v[V];
};

// Positions [lo, hi) of a contiguous row in 16-byte loads: a scalar head up to the first aligned address,
// then vectors (four in flight per thread), then a scalar tail.
template <typename P, typename T>
__device__ typename P::acc_t fold_contiguous(const P& p, const T* row, int64_t lo, int64_t hi, int64_t tr,
                                             int64_t nr) {
  using acc_t = typename P::acc_t;
  constexpr int V = 16 / sizeof(T);
  using VecT = Vec<T, V>;
  const T* s = row + lo;
  const int64_t n = hi - lo;
  const int64_t misaligned = static_cast<int64_t>((reinterpret_cast<uintptr_t>(s) % 16) / sizeof(T));
  const int64_t head = min(n, misaligned ? V - misaligned : int64_t(0));
  acc_t a0 = p.identity(), a1 = a0, a2 = a0, a3 = a0;
  for (int64_t i = tr; i < head; i += nr) a0 = p.step(a0, s[i], lo + i);
  const VecT* v = reinterpret_cast<const VecT*>(s + head);
  const int64_t nv = (n - head) / V, first = lo + head;
  int64_t j = tr;
  for (; j + 3 * nr < nv; j += 4 * nr) {
    VecT x0 = v[j], x1 = v[j + nr], x2 = v[j + 2 * nr], x3 = v[j + 3 * nr];
#pragma unroll
    for (int e = 0; e < V; ++e) {
      a0 = p.step(a0, x0.v[e], first + j * V + e);
      a1 = p.step(a1, x1.v[e], first + (j + nr) * V + e);
      a2 = p.step(a2, x2.v[e], first + (j + 2 * nr) * V + e);
      a3 = p.step(a3, x3.v[e], first + (j + 3 * nr) * V + e);
    }
  }
  for (; j < nv; j += nr) {
    VecT x = v[j];
#pragma unroll
    for (int e = 0; e < V; ++e) a1 = p.step(a1, x.v[e], first + j * V + e);
  }
  for (int64_t i = head + nv * V + tr; i < n; i += nr) a2 = p.step(a2, s[i], lo + i);
  return p.combine(p.combine(a0, a1), p.combine(a2, a3));
}

// Combines the accumulators of the threads that share an output; the group's first thread gets the result.
template <typename P>
__device__ typename P::acc_t combine_in_block(const P& p, typename P::acc_t acc, bool x_is_reduce) {
  using acc_t = typename P::acc_t;
  __shared__ __align__(16) unsigned char raw[kReduceThreads * sizeof(acc_t)];
  acc_t* shared = reinterpret_cast<acc_t*>(raw);
  if (x_is_reduce) {
    const int width = min(static_cast<int>(blockDim.x), 32);
    for (int d = width / 2; d > 0; d /= 2) acc = p.combine(acc, shfl_down(acc, d, width));
    if (blockDim.x > 32) {
      // Several warps per output: combine the warps' results. block_y can be > 1 here (block_x = 64 with
      // block_y = 8, ...), so each row of the block gets its own slots; block_x is then a multiple of 32,
      // so every warp lies within one row and warp 0 of each row is a full warp for the shuffles.
      const int warps = static_cast<int>(blockDim.x / 32);
      const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
      acc_t* row = shared + threadIdx.y * warps;
      if (lane == 0) row[warp] = acc;
      __syncthreads();
      if (warp == 0) {
        acc = lane < warps ? row[lane] : p.identity();
        for (int d = 16; d > 0; d /= 2) acc = p.combine(acc, shfl_down(acc, d, 32));
      }
    }
    return acc;
  }
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  shared[t] = acc;
  __syncthreads();
  for (int h = blockDim.y / 2; h > 0; h /= 2) {
    if (static_cast<int>(threadIdx.y) < h) shared[t] = p.combine(shared[t], shared[t + h * blockDim.x]);
    __syncthreads();
  }
  return shared[threadIdx.x];
}

template <typename In, bool kInIsAcc, typename P>
__global__ void __launch_bounds__(kReduceThreads) reduce_kernel(ReduceArgs<P> a) {
  using acc_t = typename P::acc_t;
  const P& p = a.policy;
  int64_t o, tr, nr;
  if (a.x_is_reduce) {
    o = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y, tr = threadIdx.x, nr = blockDim.x;
  } else {
    o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x, tr = threadIdx.y, nr = blockDim.y;
  }
  const int64_t lo = static_cast<int64_t>(blockIdx.y) * a.red_chunk, hi = min(a.n_red, lo + a.red_chunk);
  acc_t acc = p.identity();
  if (o < a.n_out) {
    const In* base = static_cast<const In*>(a.in) + a.kept(o);
    if constexpr (!kInIsAcc && sizeof(In) < 16) {
      if (a.vectorized)
        acc = fold_contiguous(p, base, lo, hi, tr, nr);
      else
        acc = fold_strided<kInIsAcc>(p, base, a.red, lo, hi, tr, nr);
    } else {
      acc = fold_strided<kInIsAcc>(p, base, a.red, lo, hi, tr, nr);
    }
  }
  acc = combine_in_block(p, acc, a.x_is_reduce);
  if (tr == 0 && o < a.n_out) {
    if (a.partial)
      a.partial[static_cast<int64_t>(blockIdx.y) * a.n_out + o] = acc;
    else
      p.emit(o, acc);
  }
}

// Multiprocessors of the calling thread's current device (callers hold a DeviceGuard).
int current_sm_count();

template <typename In, bool kInIsAcc, typename P>
void launch_reduce_pass(const ReduceConfig& c, const ReduceArgs<P>& args, cudaStream_t stream) {
  dim3 grid(static_cast<unsigned>(c.grid_x), static_cast<unsigned>(c.grid_y));
  dim3 block(static_cast<unsigned>(c.block_x), static_cast<unsigned>(c.block_y));
  reduce_kernel<In, kInIsAcc, P><<<grid, block, 0, stream>>>(args);
  TANDEM_CUDA_CHECK_LAUNCH();
}

// Runs policy p over `in` (elements of type T on `device`): output o folds in[kept(o) + red(r)] for r in
// [0, n_red). Splits long reductions over blocks with a second pass through scratch memory.
template <typename T, typename P>
void run_reduce(const P& p, const T* in, const StridedOffsets& kept, const StridedOffsets& red, int64_t n_out,
                int64_t n_red, Device device) {
  using acc_t = typename P::acc_t;
  if (n_out == 0) return;
  DeviceGuard guard(device);
  cudaStream_t stream = current_stream(device);
  ReduceConfig c = choose_reduce_config(kept, red, n_out, n_red, sizeof(T), current_sm_count(), true, true);
  ReduceArgs<P> args{p, in, nullptr, kept, red, n_out, n_red, c.red_chunk, c.x_is_reduce, c.vectorized};
  if (c.grid_y == 1) return launch_reduce_pass<T, false>(c, args, stream);
  DataPtr scratch = allocate_scratch(static_cast<size_t>(c.grid_y * n_out) * sizeof(acc_t), device);
  args.partial = static_cast<acc_t*>(scratch.ptr);
  launch_reduce_pass<T, false>(c, args, stream);
  // Second pass: partials laid out [slice, output], folded over the slices.
  const int64_t sizes[2] = {n_out, c.grid_y}, strides[2] = {1, n_out};
  StridedOffsets kept2 = merged_offsets(sizes, strides, 1), red2 = merged_offsets(sizes + 1, strides + 1, 1);
  ReduceConfig c2 =
      choose_reduce_config(kept2, red2, n_out, c.grid_y, sizeof(acc_t), current_sm_count(), false, false);
  ReduceArgs<P> args2{p,     args.partial, nullptr,      kept2,          red2,
                      n_out, c.grid_y,     c2.red_chunk, c2.x_is_reduce, false};
  launch_reduce_pass<acc_t, true>(c2, args2, stream);
}

// The merged kept and reduced dims of a front end's view (kept dims first, `n_reduced` reduced dims last).
inline void reduce_offsets(const Tensor& in, int64_t n_reduced, StridedOffsets& kept, StridedOffsets& red) {
  const int64_t nd = in.dim();
  kept = merged_offsets(in.sizes().data(), in.strides().data(), nd - n_reduced);
  red = merged_offsets(in.sizes().data() + nd - n_reduced, in.strides().data() + nd - n_reduced, n_reduced);
}

}  // namespace tandem::cuda
