// The patch matrix shared by conv2d and conv_transpose2d (im2col's `cols`: rows (c, ky, kx), columns
// (n, oy, ox)) and the views through which one batched GEMM reads or writes it per batch element, so that no
// operand or result is permuted into place with an extra copy. The convolutions build it a few batch
// elements at a time (batch_per_round), in one reused buffer that stays in cache between im2col, the GEMM
// and col2im.
#pragma once
#include <cstdint>

#include "core/parallel.h"
#include "core/tensor.h"
#include "kernels/nn_kernels.h"
#include "ops/view.h"

namespace tandem {

// cols (c*kh*kw, n*oh*ow) = the patch matrix of the contiguous n x c x h x w `input` (g's sizes).
void im2col(const Tensor& cols, const Tensor& input, const Window2d& g);
// Its adjoint: the contiguous n x c x h x w `out` = every entry of `cols` summed at its input position.
void col2im(const Tensor& out, const Tensor& cols, const Window2d& g);
// How many batch elements one round of the patch matrix covers. On one CPU thread about 2**18 entries (1 MiB
// of float32, so it stays in cache between the kernels that write and read it), at least one. With more
// threads (and fewer batch elements than threads: per_element_on_threads takes the rest) the whole batch:
// each round's parallel im2col/col2im regions alternate with the GEMMs' threads, whose spinning between calls
// then holds the cores the next region needs (under load one round per batch element ran 3-5x slower at 2
// threads). On a GPU the whole batch too (each round costs kernel launches).
int64_t batch_per_round(const Window2d& g, Device device);
// Whether a convolution on the CPU runs as whole batch elements per thread (each element's patch matrix,
// GEMM and col2im on one thread, in its cache) rather than in rounds of parallel kernels: with more than one
// thread and at least as many batch elements as threads.
bool per_element_on_threads(const Window2d& g, Device device);
// The per-element convolutions' loop: every batch element i, in `shares` fixed shares of the batch
// (contiguous ranges, at least one element each as per_element_on_threads guarantees) that the threads take
// in one parallel region, each share with its own (ck, l) patch-matrix buffer `cols`. body(share, i, first,
// one, cols): `first` marks the share's first element, where a per-share partial sum starts (beta 0); `one`
// is g for a single batch element (im2col/col2im of element i). The buffers are allocated before the region:
// an out-of-memory error inside it could not reach the caller.
template <typename Body>
void for_each_element_in_shares(const Window2d& g, int64_t shares, int64_t ck, int64_t l, DType dtype,
                                Device device, const Body& body) {
  const Tensor buffers = empty(DimVector{shares, ck, l}, dtype, device);
  Window2d one = g;
  one.n = 1;
  parallel_for(0, shares, 1, [&](int64_t s0, int64_t s1) {
    for (int64_t share = s0; share < s1; ++share) {
      const Tensor cols = select(buffers, 0, share);
      const int64_t begin = g.n * share / shares, end = g.n * (share + 1) / shares;
      for (int64_t i = begin; i < end; ++i) body(share, i, i == begin, one, cols);
    }
  });
}
// A (rows, cols) matrix over the start of a contiguous (rows, more columns) buffer.
Tensor leading_columns(const Tensor& buffer, int64_t cols);
// Group gi's share of dim `dim` (its input channels, its filters, its rows of the output gradient).
Tensor group_slice(const Tensor& t, int64_t dim, int64_t gi, int64_t groups);
// A (rows, n * l) patch matrix as n matrices (rows, l): the (n, rows, l) view with strides (l, n * l, 1).
Tensor per_batch(const Tensor& cols, int64_t n);
// Channels [c0, c0 + count) of a contiguous N x C x H x W tensor as N matrices (count, H * W).
Tensor channel_rows(const Tensor& t, int64_t c0, int64_t count);
// out[b] = a @ b[b] (+ out[b] when `accumulate`) for every batch element b of `b` and `out` (3-D views),
// `a` one matrix for all.
void gemm_per_batch(const Tensor& a, const Tensor& b, const Tensor& out, bool accumulate = false);

}  // namespace tandem
