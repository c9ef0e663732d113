// The CUDA elementwise loop: runs out = f(in...) over a built TensorIterator. Two kernels per (f, dtypes):
// a contiguous one (every tensor operand dense and 16-byte-vector aligned, or broadcast as one value) that
// moves kVec elements per thread with vector loads and stores, and a strided one that finds each element's
// operands through an OffsetCalculator. Host scalars (add_scalar_input) live in the iterator's host memory,
// so their values travel to the kernel by value.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

// The functors are generic over every dtype, so sign(uint8) compares an unsigned value with zero and
// pow(uint8) with -1; that is intended, and host compilers accept it silently.
#pragma nv_diag_suppress 186
#pragma nv_diag_suppress 514

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "core/dtype.h"
#include "kernels/functors.h"
#include "kernels/offset_calculator.h"
#include "kernels/tensor_iterator.h"

namespace tandem::cuda {

constexpr int kThreads = 256;
constexpr int kVec = 4;  // elements per thread in the contiguous kernel: 16-byte accesses for float32

template <typename T>
struct alignas(sizeof(T) * kVec) VecTile {
  T v[kVec];
};

// One input operand: a device pointer, or (ptr == nullptr) a host scalar's value. `broadcast` marks an
// operand whose stride is 0 in the contiguous kernel (one value for every element).
template <typename T>
struct Input {
  const T* ptr;
  T value;
  bool broadcast;

  __device__ TANDEM_INLINE T at_byte(int64_t offset) const {
    return ptr ? *reinterpret_cast<const T*>(reinterpret_cast<const char*>(ptr) + offset) : value;
  }
  // Elements base .. base + kVec - 1; past the end (n) the last element repeats, so a partial tile computes
  // with the same code as a full one.
  __device__ TANDEM_INLINE VecTile<T> tile(int64_t base, int64_t n) const {
    VecTile<T> r;
    if (!broadcast && base + kVec <= n) return *reinterpret_cast<const VecTile<T>*>(ptr + base);
    T x = broadcast ? (ptr ? *ptr : value) : T{};
#pragma unroll
    for (int j = 0; j < kVec; ++j) r.v[j] = broadcast ? x : ptr[base + j < n ? base + j : n - 1];
    return r;
  }
};

template <typename out_t, typename F, typename... Tiles>
__device__ TANDEM_INLINE void apply_tile(out_t* out, int64_t base, int64_t n, const F& f,
                                         const Tiles&... tiles) {
  VecTile<out_t> r;
#pragma unroll
  for (int j = 0; j < kVec; ++j) r.v[j] = f(tiles.v[j]...);
  if (base + kVec <= n) {
    *reinterpret_cast<VecTile<out_t>*>(out + base) = r;
  } else {
    for (int j = 0; j < kVec && base + j < n; ++j) out[base + j] = r.v[j];
  }
}

template <typename out_t, typename F, typename... Ts>
__global__ void contiguous_kernel(int64_t n, out_t* out, F f, Input<Ts>... in) {
  const int64_t tiles = (n + kVec - 1) / kVec;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < tiles; t += step)
    apply_tile(out, t * kVec, n, f, in.tile(t * kVec, n)...);
}

template <typename out_t, int N, typename F, typename... Ts, size_t... K>
__device__ TANDEM_INLINE void strided_element(char* out, const OperandOffsets<N>& off, const F& f,
                                              std::index_sequence<K...>, const Input<Ts>&... in) {
  *reinterpret_cast<out_t*>(out + off.v[0]) = f(in.at_byte(off.v[K + 1])...);
}

template <typename out_t, int N, typename F, typename... Ts>
__global__ void strided_kernel(int64_t n, OffsetCalculator<N> calc, char* out, F f, Input<Ts>... in) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    strided_element<out_t>(out, calc.get(i), f, std::index_sequence_for<Ts...>{}, in...);
}

inline unsigned grid_for(int64_t work) {
  return static_cast<unsigned>(std::min<int64_t>((work + kThreads - 1) / kThreads, INT32_MAX));
}

template <typename T>
Input<T> make_input(const TensorIterator& iter, int k) {
  Input<T> in{};
  if (iter.is_scalar(k)) {
    std::memcpy(&in.value, iter.data(k), sizeof(T));
    in.broadcast = true;
  } else {
    in.ptr = reinterpret_cast<const T*>(iter.data(k));
    in.broadcast = iter.strides(k)[0] == 0;
  }
  return in;
}

// Whether operand k can take part in the contiguous kernel: a value, stride 0, or dense and tile-aligned.
template <typename T>
bool fits_contiguous(const TensorIterator& iter, int k) {
  if (iter.is_scalar(k) || iter.strides(k)[0] == 0) return true;
  return iter.strides(k)[0] == static_cast<int64_t>(sizeof(T)) &&
         reinterpret_cast<uintptr_t>(iter.data(k)) % sizeof(VecTile<T>) == 0;
}

template <typename out_t, typename... Ts, typename F, size_t... K>
void launch_elementwise_impl(const TensorIterator& iter, const F& f, std::index_sequence<K...>) {
  const int64_t n = iter.numel();
  if (n == 0) return;
  const Device device = iter.device();
  DeviceGuard guard(device);
  cudaStream_t stream = current_stream(device);
  const bool contiguous = iter.ndim() == 1 && iter.strides(0)[0] == static_cast<int64_t>(sizeof(out_t)) &&
                          reinterpret_cast<uintptr_t>(iter.data(0)) % sizeof(VecTile<out_t>) == 0 &&
                          (fits_contiguous<Ts>(iter, K + 1) && ...);
  if (contiguous) {
    contiguous_kernel<out_t, F, Ts...><<<grid_for((n + kVec - 1) / kVec), kThreads, 0, stream>>>(
        n, reinterpret_cast<out_t*>(iter.data(0)), f, make_input<Ts>(iter, K + 1)...);
  } else {
    constexpr int N = sizeof...(Ts) + 1;
    strided_kernel<out_t, N, F, Ts...><<<grid_for(n), kThreads, 0, stream>>>(
        n, OffsetCalculator<N>(iter), iter.data(0), f, make_input<Ts>(iter, K + 1)...);
  }
  TANDEM_CUDA_CHECK_LAUNCH();
}

// out = f(in_1, ..., in_n) over `iter`: operand k + 1 has storage type Ts[k], the output out_t, and f maps
// storage values to an out_t.
template <typename out_t, typename... Ts, typename F>
void launch_elementwise(const TensorIterator& iter, const F& f) {
  launch_elementwise_impl<out_t, Ts...>(iter, f, std::index_sequence_for<Ts...>{});
}

// The CPU loops' conversions around a functor: inputs widen to opmath_t, the result narrows to out_t.
template <typename out_t, typename in_t, typename F>
struct UnaryFn {
  F f;
  __device__ TANDEM_INLINE out_t operator()(in_t a) const {
    return convert<out_t>(f(static_cast<opmath_t<in_t>>(a)));
  }
};

template <typename out_t, typename in_t, typename F>
struct BinaryFn {
  F f;
  __device__ TANDEM_INLINE out_t operator()(in_t a, in_t b) const {
    using op_t = opmath_t<in_t>;
    return convert<out_t>(f(static_cast<op_t>(a), static_cast<op_t>(b)));
  }
};

}  // namespace tandem::cuda
