// Gradients of the random draws (see formulas_random.h).
#include "autograd/formulas_random.h"

#include "ops/copy.h"
#include "ops/elementwise.h"
#include "ops/random_gamma.h"

namespace tandem::autograd {

// d out / d alpha = _standard_gamma_grad(alpha, out), as PyTorch's StandardGammaBackward0.
Tensor record_standard_gamma(const Tensor& alpha, const Tensor& out) {
  auto node = make_node("StandardGammaBackward0", [](FormulaNode& n, const Tensor& g) {
    return std::vector<Tensor>{mul(g, standard_gamma_grad(n.saved_tensor(0), n.saved_tensor(1)))};
  });
  set_history(node, {&alpha}, {&out});
  node->saved.emplace_back(alpha, false);
  node->saved.emplace_back(out, true);
  return out;
}

// The samples are piecewise constant in the rates: PyTorch's PoissonBackward0 returns zeros.
Tensor record_poisson(const Tensor& rates, const Tensor& out) {
  auto node = make_node("PoissonBackward0", [](FormulaNode& n, const Tensor& g) {
    return std::vector<Tensor>{full(g.sizes(), Scalar(0.0), g.dtype(), g.device())};
  });
  return record(node, {&rates}, out);
}

}  // namespace tandem::autograd
