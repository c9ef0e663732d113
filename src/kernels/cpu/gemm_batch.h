// Walks the batch of a GemmArgs: calls fn(a, b, out) with the data pointers of every batch element.
#pragma once
#include <cstdint>

#include "kernels/cpu/isa_region.h"
#include "kernels/linalg_kernels.h"

TANDEM_CPU_KERNELS_BEGIN

template <typename T, typename Fn>
void for_each_batch(const GemmArgs& g, const Fn& fn) {
  const int64_t nd = static_cast<int64_t>(g.batch_sizes.size());
  int64_t count = 1;
  for (int64_t s : g.batch_sizes) count *= s;
  DimVector idx(static_cast<size_t>(nd), 0);
  T* a = static_cast<T*>(g.a.data);
  T* b = static_cast<T*>(g.b.data);
  T* out = static_cast<T*>(g.out.data);
  for (int64_t i = 0; i < count; ++i) {
    int64_t oa = 0, ob = 0, oo = 0;
    for (int64_t d = 0; d < nd; ++d) {
      oa += idx[d] * g.a.batch_strides[d];
      ob += idx[d] * g.b.batch_strides[d];
      oo += idx[d] * g.out.batch_strides[d];
    }
    fn(a + oa, b + ob, out + oo);
    for (int64_t d = nd - 1; d >= 0 && ++idx[d] == g.batch_sizes[d]; --d) idx[d] = 0;
  }
}

// fn(a, b, out) for batch elements [begin, end) (row-major order over batch_sizes), each located from its
// index, so that threads can take ranges of a batch.
template <typename T, typename Fn>
void for_batch_range(const GemmArgs& g, int64_t begin, int64_t end, const Fn& fn) {
  const int64_t nd = static_cast<int64_t>(g.batch_sizes.size());
  for (int64_t i = begin; i < end; ++i) {
    int64_t rest = i, oa = 0, ob = 0, oo = 0;
    for (int64_t d = nd - 1; d >= 0; --d) {
      const int64_t at = rest % g.batch_sizes[d];
      rest /= g.batch_sizes[d];
      oa += at * g.a.batch_strides[d];
      ob += at * g.b.batch_strides[d];
      oo += at * g.out.batch_strides[d];
    }
    fn(static_cast<T*>(g.a.data) + oa, static_cast<T*>(g.b.data) + ob, static_cast<T*>(g.out.data) + oo);
  }
}

// The BLAS product for float32/float64 (linalg_blas.cpp) and the plain loop for every other dtype
// (linalg_loop.cpp). Both see k > 0 and a non-empty output.
void gemm_blas(const GemmArgs& g);
// complex64/complex128 through cblas_cgemm/zgemm (linalg_blas.cpp); m, n, k and ldc fit BLAS's int.
void gemm_blas_complex(const GemmArgs& g);
void gemm_loop(const GemmArgs& g);
// float16/bfloat16, accumulating in float (linalg_half.cpp).
void gemm_half(const GemmArgs& g);
// float16/bfloat16 through oneDNN's matmul primitive (linalg_onednn_half.cpp, builds with oneDNN only):
// false, with the output untouched, where oneDNN has no fast kernel for the dtype, the layout or the CPU.
bool onednn_half_gemm(const GemmArgs& g);

TANDEM_CPU_KERNELS_END
