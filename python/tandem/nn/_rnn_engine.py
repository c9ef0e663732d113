"""The recurrent computation shared by nn.RNN/LSTM/GRU and the functional forms torch.rnn_tanh, torch.lstm, ...:
one step of a cell (cell_step) and every layer and direction over packed rows (run_layers).

Every sequence is handled as PackedSequence data: rows of all time steps stacked, ``batch_sizes[t]`` rows at step
t, longest sequences first; an ordinary (L, N, F) input is N rows at every step. Each layer's input projection is
one matrix product over the whole sequence; a step is one addmm for the hidden projection plus one fused C++
cell op (``_C._lstm_cell``/``_C._gru_cell``)."""
import tandem

from .. import _C
from ..autograd import Function
from . import functional as F


def cell_step(kind, x_proj, h, c, w_hh_t, b_hh):
    """One step from x_proj = W_ih x + b_ih (+ b_hh, except for GRU: its candidate gate multiplies the hidden
    projection by r before adding it); w_hh_t is W_hh transposed. Returns (h', c') with c' None except for
    LSTM. The gate math is one fused C++ op (ops/rnn_cell.h) for LSTM and GRU."""
    if kind == "gru":
        h_proj = h.matmul(w_hh_t) if b_hh is None else tandem.addmm(b_hh, h, w_hh_t)
        return _C._gru_cell(x_proj, h_proj, h), None
    gates = tandem.addmm(x_proj, h, w_hh_t)
    if kind == "lstm":
        return _C._lstm_cell(gates, c)
    return (tandem.tanh(gates) if kind == "rnn_tanh" else tandem.relu(gates)), None


class _StepRows(Function):
    """The packed rows split into one block per time step, with ONE backward node that concatenates the blocks'
    gradients. Slicing each step out separately would give every step's gradient its own zero tensor the size
    of the whole sequence (a slice's backward), which made the LSTM backward pass 6x slower."""

    @staticmethod
    def forward(ctx, rows, *sizes):
        ctx.steps = len(sizes)
        return tuple(rows.split(list(sizes)))

    @staticmethod
    def backward(ctx, *grads):
        return (tandem.cat(grads),) + (None,) * ctx.steps


def _step_rows(rows, batch_sizes):
    if len(batch_sizes) == 1:
        return (rows,)
    if rows.requires_grad and tandem.is_grad_enabled():
        return _StepRows.apply(rows, *batch_sizes)
    return rows.split(batch_sizes)


def _run_direction(kind, x_proj, batch_sizes, h0, c0, w_hh, b_hh, w_hr, reverse):
    """Runs one direction of one layer over packed rows. Returns (each step's output, final h, final c)."""
    steps = len(batch_sizes)
    x_steps = _step_rows(x_proj, batch_sizes)
    # Transposed once: every step's weight gradient then adds up in one (contiguous) buffer before a single
    # transpose back, instead of each step adding a transposed gradient into the weight's.
    w_hh_t = w_hh.t()
    w_hr_t = w_hr.t() if w_hr is not None else None
    outputs = [None] * steps
    if not reverse:
        h, c = h0, c0
        finished_h, finished_c = [], []  # states of sequences that ended, last ones first
        for t in range(steps):
            n = batch_sizes[t]
            if n < h.shape[0]:  # the sequences from row n on ended at step t - 1
                finished_h.append(h[n:])
                h = h[:n]
                if c is not None:
                    finished_c.append(c[n:])
                    c = c[:n]
            h, c = cell_step(kind, x_steps[t], h, c, w_hh_t, b_hh)
            if w_hr_t is not None:
                h = h.matmul(w_hr_t)
            outputs[t] = h
        h_n = tandem.cat([h] + finished_h[::-1]) if finished_h else h
        c_n = (tandem.cat([c] + finished_c[::-1]) if finished_c else c) if c is not None else None
    else:
        n = batch_sizes[-1]
        h = h0[:n]
        c = c0[:n] if c0 is not None else None
        for t in range(steps - 1, -1, -1):
            n = batch_sizes[t]
            if n > h.shape[0]:  # sequences that are this long start here, from their initial state
                h = tandem.cat([h, h0[h.shape[0]:n]])
                if c is not None:
                    c = tandem.cat([c, c0[c.shape[0]:n]])
            h, c = cell_step(kind, x_steps[t], h, c, w_hh_t, b_hh)
            if w_hr_t is not None:
                h = h.matmul(w_hr_t)
            outputs[t] = h
        h_n, c_n = h, c
    return outputs, h_n, c_n


def _rows(step_outputs):
    """The steps' outputs as packed rows."""
    return tandem.cat(step_outputs) if len(step_outputs) > 1 else step_outputs[0]


def run_layers(kind, rows, batch_sizes, h0, c0, weights, num_layers, directions, dropout, train, stack_output):
    """Every layer over packed rows. weights[layer * directions + direction] maps weight_ih, weight_hh (and
    bias_ih, bias_hh, weight_hr where present) to tensors. The last layer's output is packed rows too, or with
    stack_output the (L, N, H * directions) tensor PyTorch's native implementation builds (each direction's
    steps stacked, the directions concatenated), so its grad_fn is PyTorch's (StackBackward0, CatBackward0).
    Returns (output, h_n, c_n), c_n None except for LSTM."""
    final_h, final_c = [], []
    layer_input = rows
    for layer in range(num_layers):
        stacked = stack_output and layer == num_layers - 1
        outs = []
        for direction in range(directions):
            index = layer * directions + direction
            params = weights[index]
            w_ih, w_hh, w_hr = params["weight_ih"], params["weight_hh"], params.get("weight_hr")
            b_ih, b_hh = params.get("bias_ih"), params.get("bias_hh")
            if b_ih is not None and kind != "gru":  # constant over time: both biases go into the projection
                b_ih = b_ih + b_hh
                b_hh = None
            x_proj = F.linear(layer_input, w_ih, b_ih)
            step_outputs, h_n, c_n = _run_direction(kind, x_proj, batch_sizes, h0[index],
                                                    c0[index] if c0 is not None else None, w_hh, b_hh, w_hr,
                                                    reverse=direction == 1)
            outs.append(tandem.stack(step_outputs) if stacked else _rows(step_outputs))
            final_h.append(h_n)
            final_c.append(c_n)
        layer_input = outs[0] if directions == 1 else tandem.cat(outs, dim=2 if stacked else 1)
        if dropout and train and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout, True)
    h_n = tandem.stack(final_h)
    c_n = tandem.stack(final_c) if c0 is not None else None
    return layer_input, h_n, c_n
