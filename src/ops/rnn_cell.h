// The fused recurrent cells: nn.LSTM/GRU and their cells (python/tandem/nn/modules/rnn.py) run one per step
// after the hidden projection, so a step's gate math is one kernel forward and one backward (the math is in
// kernels/rnn_functors.h, shared by every device).
#pragma once
#include <array>
#include <utility>

#include "core/tensor.h"

namespace tandem {

// gates: (N, 4H) pre-activation in PyTorch's order (i, f, g, o); c_prev: (N, H). Returns (h, c).
std::pair<Tensor, Tensor> lstm_cell(const Tensor& gates, const Tensor& c_prev);
// The gradients of gates and c_prev from those of h and c (grad_c may be undefined). grad_gates_out, when
// defined, is where the gates' gradient is written (a contiguous matrix of the gates' shape, dtype and
// device): the whole-layer LSTM backward (python/tandem/nn/_rnn_engine.py) has each step fill its rows of one
// buffer.
std::pair<Tensor, Tensor> lstm_cell_backward(const Tensor& gates, const Tensor& c_prev, const Tensor& grad_h,
                                             const Tensor& grad_c, const Tensor& grad_gates_out = Tensor());
// x_proj, h_proj: (N, 3H) input and hidden projections (with biases) in PyTorch's order (r, z, n); h: (N, H).
// Returns h'.
Tensor gru_cell(const Tensor& x_proj, const Tensor& h_proj, const Tensor& h);
// The gradients of x_proj, h_proj and h from that of h'.
std::array<Tensor, 3> gru_cell_backward(const Tensor& x_proj, const Tensor& h_proj, const Tensor& h,
                                        const Tensor& grad);

}  // namespace tandem
