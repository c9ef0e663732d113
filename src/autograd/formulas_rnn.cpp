// Gradients of the fused recurrent cells (ops/rnn_cell.h). One kernel normally; under create_graph the same
// gradients from differentiable ops (recomputing the gates), so second-order code gets its own graph.
#include "autograd/formulas.h"
#include "ops/elementwise.h"
#include "ops/join.h"
#include "ops/rnn_cell.h"
#include "ops/view.h"

namespace tandem::autograd {
namespace {
using Grads = std::vector<Tensor>;

Tensor one_minus(const Tensor& x) { return sub(Scalar(1.0), x); }
// s (1 - s): the derivative of sigmoid at the input whose sigmoid is s (tanh: 1 - t^2 likewise).
Tensor sigmoid_slope(const Tensor& s) { return mul(s, one_minus(s)); }
Tensor tanh_slope(const Tensor& t) { return one_minus(mul(t, t)); }

Grads lstm_grads_differentiable(const Tensor& gates, const Tensor& c_prev, const Tensor& grad_h,
                                const Tensor& grad_c) {
  std::vector<Tensor> g = chunk(gates, 4, 1);
  Tensor si = sigmoid(g[0]), sf = sigmoid(g[1]), tg = tanh(g[2]), so = sigmoid(g[3]);
  Tensor tc = tanh(add(mul(sf, c_prev), mul(si, tg)));
  Tensor dc = add(grad_c, mul(mul(grad_h, so), tanh_slope(tc)));
  Tensor d_o = mul(mul(grad_h, tc), sigmoid_slope(so));
  Tensor di = mul(mul(dc, tg), sigmoid_slope(si));
  Tensor df = mul(mul(dc, c_prev), sigmoid_slope(sf));
  Tensor dg = mul(mul(dc, si), tanh_slope(tg));
  return {cat({di, df, dg, d_o}, 1), mul(dc, sf)};
}

// The LSTM cell has two outputs (h, c), so it needs more than FormulaNode's single incoming gradient.
struct LstmCellNode final : Node {
  std::string name() const override { return "ThnnFusedLstmCellBackward0"; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    Tensor gates = gates_.unpack(*this), c_prev = c_prev_.unpack(*this);
    // The engine zero-fills the gradient of an output nothing used.
    if (GradMode::is_enabled()) return lstm_grads_differentiable(gates, c_prev, grads[0], grads[1]);
    auto [grad_gates, grad_c_prev] = lstm_cell_backward(gates, c_prev, grads[0], grads[1]);
    return {grad_gates, grad_c_prev};
  }
  void release_saved() override {
    gates_.release();
    c_prev_.release();
  }
  SavedTensor gates_, c_prev_;
};

Grads gru_grads_differentiable(const Tensor& x_proj, const Tensor& h_proj, const Tensor& h,
                               const Tensor& grad) {
  std::vector<Tensor> x = chunk(x_proj, 3, 1), hh = chunk(h_proj, 3, 1);
  Tensor r = sigmoid(add(x[0], hh[0])), z = sigmoid(add(x[1], hh[1]));
  Tensor n = tanh(add(x[2], mul(r, hh[2])));
  Tensor dxn = mul(mul(grad, one_minus(z)), tanh_slope(n));
  Tensor dr = mul(mul(dxn, hh[2]), sigmoid_slope(r));
  Tensor dz = mul(mul(grad, sub(h, n)), sigmoid_slope(z));
  return {cat({dr, dz, dxn}, 1), cat({dr, dz, mul(dxn, r)}, 1), mul(grad, z)};
}

}  // namespace

void record_lstm_cell(const Tensor& gates, const Tensor& c_prev, const Tensor& h, const Tensor& c) {
  auto node = std::make_shared<LstmCellNode>();
  set_history(node, {&gates, &c_prev}, {&h, &c});
  node->gates_ = SavedTensor(gates, false);
  node->c_prev_ = SavedTensor(c_prev, false);
}

void record_gru_cell(const Tensor& x_proj, const Tensor& h_proj, const Tensor& h, const Tensor& out) {
  auto node = make_node("ThnnFusedGruCellBackward0", [](FormulaNode& n, const Tensor& g) -> Grads {
    Tensor x_proj = n.saved_tensor(0), h_proj = n.saved_tensor(1), h = n.saved_tensor(2);
    if (GradMode::is_enabled()) return gru_grads_differentiable(x_proj, h_proj, h, g);
    auto r = gru_cell_backward(x_proj, h_proj, h, g);
    return {r[0], r[1], r[2]};
  });
  set_history(node, {&x_proj, &h_proj, &h}, {&out});
  node->saved.emplace_back(x_proj, false);
  node->saved.emplace_back(h_proj, false);
  node->saved.emplace_back(h, false);
}

}  // namespace tandem::autograd
