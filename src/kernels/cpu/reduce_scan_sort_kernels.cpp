// CPU cumsum, row by row along the last dim (sort/argsort/topk are in sort_kernels.cpp).
#include "kernels/cpu/isa_region.h"
#include "kernels/cpu/last_dim_rows.h"
#include "kernels/cpu/reduce_fold.h"

TANDEM_CPU_KERNELS_BEGIN

void cumsum(const Tensor& out, const Tensor& in) {
  dispatch_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = wrapping_t<opmath_t<T>>;  // integer running sums wrap, as in PyTorch
    Rows ri(in), ro(out);
    int64_t n = last_size(in), si = last_stride(in), so = last_stride(out);
    const T* src = in.data<T>();
    T* dst = out.data<T>();
    parallel_over_outputs(ri.count, n, [&](int64_t b, int64_t e) {
      OffsetCounter pi(ri.sizes, ri.strides, b), po(ro.sizes, ro.strides, b);
      for (int64_t r = b; r < e; ++r, pi.next(), po.next()) {
        const T* s = src + pi.offset();
        T* d = dst + po.offset();
        A acc = A(0);
        for (int64_t i = 0; i < n; ++i) {
          acc = static_cast<A>(acc + static_cast<A>(s[i * si]));
          d[i * so] = convert<T>(acc);
        }
      }
    });
  });
}

TANDEM_CPU_KERNELS_END
