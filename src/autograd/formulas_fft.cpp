// Gradients of the FFT ops (PyTorch's formulas), from public ops so they run on every device.
#include "autograd/formulas_fft.h"

#include "autograd/formula_node.h"
#include "ops/complex.h"
#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/factories.h"
#include "ops/join.h"
#include "ops/view.h"

namespace tandem::autograd {

namespace {
using Grads = std::vector<Tensor>;

FftNorm norm_of(const FormulaNode& n) { return static_cast<FftNorm>(n.variant); }
}  // namespace

Tensor record_fft_c2c(const Tensor& x, IntArrayRef dims, FftNorm norm, bool forward, const Tensor& out) {
  auto node = make_node("FftC2CBackward0", [](FormulaNode& n, const Tensor& g) {
    return Grads{fft_c2c(g, n.ints, norm_of(n), n.real == 0)};
  });
  node->ints = DimVector(dims);
  node->variant = static_cast<int8_t>(norm);
  node->real = forward ? 1 : 0;
  return record(node, {&x}, out);
}

Tensor record_fft_r2c(const Tensor& x, IntArrayRef dims, FftNorm norm, const Tensor& out) {
  auto node = make_node("FftR2CBackward0", [](FormulaNode& n, const Tensor& g) {
    // The onesided result left out the conjugate half: its gradient there is zero.
    const int64_t last = n.ints.back();
    const int64_t missing = n.sizes[last] - g.size(last);
    Tensor padded = g;
    if (missing > 0) {
      DimVector zero_shape(g.sizes());
      zero_shape[last] = missing;
      padded = cat({g, full(zero_shape, Scalar(0.0), g.dtype(), g.device())}, last);
    }
    return Grads{real(fft_c2c(padded, n.ints, norm_of(n), false))};
  });
  node->ints = DimVector(dims);
  node->sizes = DimVector(x.sizes());
  node->variant = static_cast<int8_t>(norm);
  return record(node, {&x}, out);
}

Tensor record_fft_c2r(const Tensor& x, IntArrayRef dims, FftNorm norm, const Tensor& out) {
  auto node = make_node("FftC2RBackward0", [](FormulaNode& n, const Tensor& g) {
    const int64_t last = n.ints.back();
    Tensor gi = fft_r2c(g, n.ints, norm_of(n), true);
    // Entries 1 .. (n - half) each stand for themselves and their conjugate: double them.
    const int64_t half = gi.size(last), doubled = g.size(last) - half;
    if (doubled <= 0) return Grads{gi};
    Tensor k = arange(Scalar(int64_t{0}), Scalar(half), Scalar(int64_t{1}), DType::Int64, g.device());
    Tensor twice = logical_and(ge(k, Scalar(int64_t{1})), le(k, Scalar(doubled)));
    Tensor weight = add(to_dtype(twice, g.dtype()), Scalar(1.0));  // 2 where doubled, else 1
    DimVector shape(static_cast<size_t>(g.dim()), 1);
    shape[last] = half;
    return Grads{mul(gi, reshape(weight, shape))};
  });
  node->ints = DimVector(dims);
  node->variant = static_cast<int8_t>(norm);
  return record(node, {&x}, out);
}

}  // namespace tandem::autograd
