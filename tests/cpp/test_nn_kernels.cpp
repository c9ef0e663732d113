// The nn kernel slots as linear maps: col2im must be the exact adjoint of im2col (<im2col(x), c> ==
// <x, col2im(c)>) for every window geometry, and avg-pool backward the adjoint of avg-pool forward.
#include <gtest/gtest.h>

#include "kernels/kernel_table.h"
#include "ops/random.h"

using namespace tandem;

namespace {

double dot(const Tensor& a, const Tensor& b) {
  double s = 0;
  for (int64_t i = 0; i < a.numel(); ++i) s += a.data<double>()[i] * b.data<double>()[i];
  return s;
}

Window2d window(int64_t kh, int64_t kw, int64_t s, int64_t p, int64_t d) {
  Window2d g;
  g.n = 2, g.c = 3, g.h = 7, g.w = 6, g.kh = kh, g.kw = kw, g.sh = s, g.sw = s + 1, g.ph = p, g.pw = p,
  g.dh = d, g.dw = d;
  g.oh = (g.h + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
  g.ow = (g.w + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
  return g;
}

}  // namespace

TEST(NnKernels, Col2imIsTheAdjointOfIm2col) {
  const NnKernels& k = kernel_table(DeviceType::CPU).nn;
  for (Window2d g :
       {window(3, 3, 1, 1, 1), window(2, 3, 2, 0, 1), window(3, 2, 1, 2, 2), window(1, 1, 1, 0, 1)}) {
    Tensor x = randn(DimVector{g.n, g.c, g.h, g.w}, DType::Float64, Device());
    Tensor c = randn(DimVector{g.c * g.kh * g.kw, g.n * g.oh * g.ow}, DType::Float64, Device());
    Tensor cols = empty(c.sizes(), DType::Float64), back = empty(x.sizes(), DType::Float64);
    k.im2col(cols, x, g);
    k.col2im(back, c, g);
    EXPECT_NEAR(dot(cols, c), dot(x, back), 1e-9) << "kh=" << g.kh << " s=" << g.sh << " p=" << g.ph;
  }
}

TEST(NnKernels, AvgPoolBackwardIsTheAdjointOfForward) {
  const NnKernels& k = kernel_table(DeviceType::CPU).nn;
  Window2d g = window(3, 3, 2, 1, 1);
  for (bool include_pad : {true, false}) {
    Tensor x = randn(DimVector{g.n, g.c, g.h, g.w}, DType::Float64, Device());
    Tensor go = randn(DimVector{g.n, g.c, g.oh, g.ow}, DType::Float64, Device());
    Tensor out = empty(go.sizes(), DType::Float64), gi = empty(x.sizes(), DType::Float64);
    k.avg_pool2d(out, x, g, include_pad);
    k.avg_pool2d_backward(gi, go, g, include_pad);
    EXPECT_NEAR(dot(out, go), dot(x, gi), 1e-9);
  }
}
