#include "ops/gemm_launch.h"

#include "kernels/kernel_table.h"

namespace tandem {

void launch_gemm(const Tensor& a, const Tensor& b, const Tensor& out, double alpha, double beta) {
  if (out.numel() == 0) return;
  const size_t nb = static_cast<size_t>(out.dim() - 2);
  auto operand = [&](const Tensor& t) {
    MatrixOperand o;
    o.data = t.data_ptr();
    o.row_stride = t.strides()[nb];
    o.col_stride = t.strides()[nb + 1];
    o.batch_strides = DimVector(IntArrayRef(t.strides()).first(nb));
    return o;
  };
  GemmArgs g;
  g.device = out.device();
  g.dtype = out.dtype();
  g.batch_sizes = DimVector(IntArrayRef(out.sizes()).first(nb));
  g.m = out.sizes()[nb];
  g.n = out.sizes()[nb + 1];
  g.k = a.sizes()[nb + 1];
  g.a = operand(a);
  g.b = operand(b);
  g.out = operand(out);
  g.alpha = alpha;
  g.beta = beta;
  kernel_table(out.device().type).linalg.gemm(g);
  out.bump_version();
}

}  // namespace tandem
