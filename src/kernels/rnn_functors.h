// The per-element math of the fused recurrent cells (ops/rnn_cell.h), written once for the CPU loop and the
// CUDA kernel. Values are in Acc (float for 16-bit floats). The backward passes recompute the gate
// activations from the saved pre-activations instead of saving them: one read of what forward read, no extra
// buffer.
#pragma once
#include "core/macros.h"
#include "kernels/functors.h"

namespace tandem {

// LSTM, gates (i, f, g, o) in PyTorch's order, pre-activation: c = σ(f) c_prev + σ(i) tanh(g), h = σ(o)
// tanh(c).
template <typename Acc>
struct LstmCellMath {
  TANDEM_HOST_DEVICE static void forward(Acc i, Acc f, Acc g, Acc o, Acc c_prev, Acc& h, Acc& c) {
    c = SigmoidOp{}(f)*c_prev + SigmoidOp{}(i)*TanhOp{}(g);
    h = SigmoidOp{}(o)*TanhOp{}(c);
  }
  // grad_h and grad_c are the gradients of h and c (0 where none arrived); writes the gate gradients
  // (pre-activation) and the gradient of c_prev.
  TANDEM_HOST_DEVICE static void backward(Acc i, Acc f, Acc g, Acc o, Acc c_prev, Acc grad_h, Acc grad_c,
                                          Acc& di, Acc& df, Acc& dg, Acc& d_o, Acc& dc_prev) {
    const Acc si = SigmoidOp{}(i), sf = SigmoidOp{}(f), tg = TanhOp{}(g), so = SigmoidOp{}(o);
    const Acc tc = TanhOp{}(sf * c_prev + si * tg);
    const Acc dc = grad_c + grad_h * so * (Acc(1) - tc * tc);
    d_o = grad_h * tc * so * (Acc(1) - so);
    di = dc * tg * si * (Acc(1) - si);
    df = dc * c_prev * sf * (Acc(1) - sf);
    dg = dc * si * (Acc(1) - tg * tg);
    dc_prev = dc * sf;
  }
};

// GRU, gates (r, z, n): x and hh are the input and hidden projections of one gate (with their biases);
// r = σ(x_r + hh_r), z = σ(x_z + hh_z), n = tanh(x_n + r hh_n), h' = (1 - z) n + z h = n + z (h - n).
template <typename Acc>
struct GruCellMath {
  TANDEM_HOST_DEVICE static Acc forward(Acc xr, Acc xz, Acc xn, Acc hr, Acc hz, Acc hn, Acc h) {
    const Acc r = SigmoidOp{}(xr + hr), z = SigmoidOp{}(xz + hz);
    const Acc n = TanhOp{}(xn + r * hn);
    return n + z * (h - n);
  }
  // Writes the gradients of the pre-activations of r and z (shared by both projections), of x_n, of hh_n
  // (r times x_n's) and of h.
  TANDEM_HOST_DEVICE static void backward(Acc xr, Acc xz, Acc xn, Acc hr, Acc hz, Acc hn, Acc h, Acc grad,
                                          Acc& dr, Acc& dz, Acc& dxn, Acc& dhn, Acc& dh) {
    const Acc r = SigmoidOp{}(xr + hr), z = SigmoidOp{}(xz + hz);
    const Acc n = TanhOp{}(xn + r * hn);
    dxn = grad * (Acc(1) - z) * (Acc(1) - n * n);
    dhn = dxn * r;
    dr = dxn * hn * r * (Acc(1) - r);
    dz = grad * (h - n) * z * (Acc(1) - z);
    dh = grad * z;
  }
};

}  // namespace tandem
