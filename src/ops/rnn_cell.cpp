#include "ops/rnn_cell.h"
#include "ops/autocast.h"

#include "autograd/formulas.h"
#include "core/error.h"
#include "core/profiler.h"
#include "kernels/kernel_table.h"
#include "ops/copy.h"

namespace tandem {

namespace {

// `t` must be an (rows, width) matrix of `like`'s dtype and device; returns it contiguous.
Tensor matrix_operand(const char* op, const char* name, const Tensor& t, const Tensor& like, int64_t rows,
                      int64_t width) {
  TANDEM_CHECK(t.dim() == 2 && t.sizes()[0] == rows && t.sizes()[1] == width, Runtime, op, ": ", name,
               " must have shape [", rows, ", ", width, "], got ", t.shape_str(),
               "\nhint: the cell's tensors are (batch, gates * hidden) and (batch, hidden) matrices");
  TANDEM_CHECK(t.dtype() == like.dtype() && t.device() == like.device(), Runtime, op, ": ", name, " is ",
               dtype_name(t.dtype()), " on ", t.device().str(), " but the other operands are ",
               dtype_name(like.dtype()), " on ", like.device().str(),
               "\nhint: the input, states and weights must share one dtype and device");
  return contiguous(t);
}

void check_state(const char* op, const Tensor& state) {
  TANDEM_CHECK(state.dim() == 2, Runtime, op, ": the state must be a (batch, hidden) matrix, got shape ",
               state.shape_str());
  TANDEM_CHECK(is_floating(state.dtype()), Runtime, op, ": expected a floating-point dtype, got ",
               dtype_name(state.dtype()),
               "\nhint: recurrent layers compute in float16, bfloat16, float32 or float64");
}

}  // namespace

std::pair<Tensor, Tensor> lstm_cell(const Tensor& gates_, const Tensor& c_prev_) {
  profiler::RecordScope profile_scope("aten::_thnn_fused_lstm_cell", gates_, c_prev_);
  if (autocast::is_active()) return autocast::run(autocast::kRnnCell, lstm_cell, gates_, c_prev_);
  check_state("lstm_cell", c_prev_);
  const int64_t rows = c_prev_.sizes()[0], hidden = c_prev_.sizes()[1];
  Tensor gates = matrix_operand("lstm_cell", "gates", gates_, c_prev_, rows, 4 * hidden);
  Tensor c_prev = contiguous(c_prev_);
  Tensor h = empty(c_prev.sizes(), c_prev.dtype(), c_prev.device());
  Tensor c = empty(c_prev.sizes(), c_prev.dtype(), c_prev.device());
  if (c.numel() > 0) kernel_table(c.device().type).nn.lstm_cell(h, c, gates, c_prev);
  if (autograd::should_record(gates_, c_prev_)) autograd::record_lstm_cell(gates_, c_prev_, h, c);
  return {h, c};
}

std::pair<Tensor, Tensor> lstm_cell_backward(const Tensor& gates_, const Tensor& c_prev_,
                                             const Tensor& grad_h_, const Tensor& grad_c_,
                                             const Tensor& grad_gates_out) {
  profiler::RecordScope profile_scope("tandem::lstm_cell_backward", gates_, c_prev_, grad_h_, grad_c_);
  const int64_t rows = c_prev_.sizes()[0], hidden = c_prev_.sizes()[1];
  Tensor gates = matrix_operand("lstm_cell_backward", "gates", gates_, c_prev_, rows, 4 * hidden);
  Tensor c_prev = contiguous(c_prev_);
  Tensor grad_h = matrix_operand("lstm_cell_backward", "grad_h", grad_h_, c_prev, rows, hidden);
  Tensor grad_c = grad_c_.defined()
                      ? matrix_operand("lstm_cell_backward", "grad_c", grad_c_, c_prev, rows, hidden)
                      : Tensor();
  TANDEM_CHECK(!grad_gates_out.defined() || grad_gates_out.is_contiguous(), Runtime,
               "lstm_cell_backward: out must be contiguous");
  Tensor grad_gates = grad_gates_out.defined() ? matrix_operand("lstm_cell_backward", "out", grad_gates_out,
                                                                c_prev, rows, 4 * hidden)
                                               : empty(gates.sizes(), gates.dtype(), gates.device());
  Tensor grad_c_prev = empty(c_prev.sizes(), c_prev.dtype(), c_prev.device());
  if (c_prev.numel() > 0)
    kernel_table(c_prev.device().type)
        .nn.lstm_cell_backward(grad_gates, grad_c_prev, gates, c_prev, grad_h, grad_c);
  return {grad_gates, grad_c_prev};
}

Tensor gru_cell(const Tensor& x_proj_, const Tensor& h_proj_, const Tensor& h_) {
  profiler::RecordScope profile_scope("aten::_thnn_fused_gru_cell", x_proj_, h_proj_, h_);
  if (autocast::is_active()) return autocast::run(autocast::kRnnCell, gru_cell, x_proj_, h_proj_, h_);
  check_state("gru_cell", h_);
  const int64_t rows = h_.sizes()[0], hidden = h_.sizes()[1];
  Tensor x_proj = matrix_operand("gru_cell", "input projection", x_proj_, h_, rows, 3 * hidden);
  Tensor h_proj = matrix_operand("gru_cell", "hidden projection", h_proj_, h_, rows, 3 * hidden);
  Tensor h = contiguous(h_);
  Tensor h_new = empty(h.sizes(), h.dtype(), h.device());
  if (h.numel() > 0) kernel_table(h.device().type).nn.gru_cell(h_new, x_proj, h_proj, h);
  if (autograd::should_record(x_proj_, h_proj_, h_)) autograd::record_gru_cell(x_proj_, h_proj_, h_, h_new);
  return h_new;
}

std::array<Tensor, 3> gru_cell_backward(const Tensor& x_proj_, const Tensor& h_proj_, const Tensor& h_,
                                        const Tensor& grad_) {
  const int64_t rows = h_.sizes()[0], hidden = h_.sizes()[1];
  Tensor x_proj = matrix_operand("gru_cell_backward", "input projection", x_proj_, h_, rows, 3 * hidden);
  Tensor h_proj = matrix_operand("gru_cell_backward", "hidden projection", h_proj_, h_, rows, 3 * hidden);
  Tensor h = contiguous(h_);
  Tensor grad = matrix_operand("gru_cell_backward", "grad", grad_, h, rows, hidden);
  std::array<Tensor, 3> r{empty(x_proj.sizes(), h.dtype(), h.device()),
                          empty(h_proj.sizes(), h.dtype(), h.device()),
                          empty(h.sizes(), h.dtype(), h.device())};
  if (h.numel() > 0)
    kernel_table(h.device().type).nn.gru_cell_backward(r[0], r[1], r[2], x_proj, h_proj, h, grad);
  return r;
}

}  // namespace tandem
