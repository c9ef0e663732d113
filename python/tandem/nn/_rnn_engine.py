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


def cell_step(kind, x_proj, h, c, w_hh_t, b_hh, hidden_linear=None):
    """One step from x_proj = W_ih x + b_ih (+ b_hh, except for GRU: its candidate gate multiplies the hidden
    projection by r before adding it); w_hh_t is W_hh transposed. Returns (h', c') with c' None except for
    LSTM. The gate math is one fused C++ op (ops/rnn_cell.h) for LSTM and GRU. hidden_linear, where given,
    computes W_hh h + b_hh in place of w_hh_t and b_hh (the dynamically quantized layers' product)."""
    if kind == "gru":
        if hidden_linear is not None:
            h_proj = hidden_linear(h)
        else:
            h_proj = h.matmul(w_hh_t) if b_hh is None else tandem.addmm(b_hh, h, w_hh_t)
        return _C._gru_cell(x_proj, h_proj, h), None
    gates = hidden_linear(h) + x_proj if hidden_linear is not None else tandem.addmm(x_proj, h, w_hh_t)
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


def _run_direction(kind, x_proj, batch_sizes, h0, c0, w_hh, b_hh, w_hr, reverse, hidden_linear=None):
    """Runs one direction of one layer over packed rows. Returns (each step's output, final h, final c).
    hidden_linear replaces w_hh and b_hh where given (cell_step)."""
    steps = len(batch_sizes)
    x_steps = _step_rows(x_proj, batch_sizes)
    # Transposed once: every step's weight gradient then adds up in one (contiguous) buffer before a single
    # transpose back, instead of each step adding a transposed gradient into the weight's.
    w_hh_t = w_hh.t() if w_hh is not None else None
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
            h, c = cell_step(kind, x_steps[t], h, c, w_hh_t, b_hh, hidden_linear)
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
            h, c = cell_step(kind, x_steps[t], h, c, w_hh_t, b_hh, hidden_linear)
            if w_hr_t is not None:
                h = h.matmul(w_hr_t)
            outputs[t] = h
        h_n, c_n = h, c
    return outputs, h_n, c_n


def _rows(step_outputs):
    """The steps' outputs as packed rows."""
    return tandem.cat(step_outputs) if len(step_outputs) > 1 else step_outputs[0]


class _LstmLayer(Function):
    """One direction of one LSTM layer without projection, as ONE autograd node over every step.

    Forward: the input projection is one matrix product for the whole sequence, into a buffer where each step
    then adds its hidden projection in place (no copy of the projection) before the fused cell. Backward: per
    step only the cell's gradient (written into its rows of one buffer) and the hidden state's gradient
    dgates @ W_hh; the weight gradients are then ONE product each over all steps (dW_hh = dgates^T h_prev with
    the steps' rows as the inner dimension), where a per-step graph would add T small products into W_hh's
    gradient. Under create_graph (a gradient penalty), the backward rebuilds the per-step graph from the saved
    inputs and differentiates it, so second derivatives come from differentiable ops.

    Outputs: each step's h (packed rows, bs[t] rows at step t), then c_n (the final cell states)."""

    @staticmethod
    def forward(ctx, layer_input, w_ih, w_hh, b_ih, b_hh, h0, c0, batch_sizes, reverse):
        ctx.set_materialize_grads(False)
        steps, hidden = len(batch_sizes), w_hh.shape[1]
        offsets = _row_offsets(batch_sizes)
        gates = F.linear(layer_input, w_ih, None if b_ih is None else b_ih + b_hh)
        h_prev = gates.new_empty((offsets[-1], hidden))  # step t's incoming states, rows as its gates'
        c_prev = gates.new_empty((offsets[-1], hidden))
        w_hh_t = w_hh.t()
        outputs = [None] * steps
        finished_c = []  # forward: cell states of sequences that ended, last ones first
        h, c = h0, c0
        for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
            n, rows = batch_sizes[t], slice(offsets[t], offsets[t + 1])
            h_in, c_in = h_prev[rows], c_prev[rows]
            if reverse:  # sequences this long start here, from their initial state
                have = h.shape[0] if t < steps - 1 else 0
                if have:
                    h_in[:have] = h
                    c_in[:have] = c
                h_in[have:] = h0[have:n]
                c_in[have:] = c0[have:n]
            else:
                if n < c.shape[0]:  # the sequences from row n on ended at step t - 1
                    finished_c.append(c[n:])
                h_in.copy_(h[:n])
                c_in.copy_(c[:n])
            step_gates = gates[rows]
            step_gates.addmm_(h_in, w_hh_t)
            h, c = _C._lstm_cell(step_gates, c_in)
            outputs[t] = h
        c_n = tandem.cat([c] + finished_c[::-1]) if finished_c else c
        ctx.batch_sizes, ctx.offsets, ctx.reverse = batch_sizes, offsets, reverse
        ctx.save_for_backward(layer_input, w_ih, w_hh, b_ih, b_hh, h0, c0, gates, h_prev, c_prev)
        return (*outputs, c_n)

    @staticmethod
    def backward(ctx, *grads):
        saved = ctx.saved_tensors
        if tandem.is_grad_enabled():
            return _lstm_layer_graph_grads(ctx, saved, grads)
        layer_input, w_ih, w_hh, b_ih, b_hh, h0, c0, gates, h_prev, c_prev = saved
        grad_steps, grad_c_n = grads[:-1], grads[-1]
        batch_sizes, offsets, steps = ctx.batch_sizes, ctx.offsets, len(ctx.batch_sizes)
        need = ctx.needs_input_grad
        grad_gates = gates.new_empty(gates.shape)
        grad_h0 = grad_c0 = None
        carry_h = carry_c = None  # the gradients of the states the previous backward step received
        if ctx.reverse:  # step t's incoming state: step t + 1's rows, then the initial state's
            grad_h0, grad_c0 = h0.new_zeros(h0.shape), c0.new_zeros(c0.shape)
            for t in range(steps):
                n, rows = batch_sizes[t], slice(offsets[t], offsets[t + 1])
                dh = _plus(grad_steps[t], carry_h)
                dc = grad_c_n if t == 0 else carry_c
                _, dc_in = _C._lstm_cell_backward(gates[rows], c_prev[rows], _or_zeros(dh, n, h0), dc,
                                                  out=grad_gates[rows])
                dh_in = grad_gates[rows].mm(w_hh)
                keep = batch_sizes[t + 1] if t + 1 < steps else 0
                grad_h0[keep:n] = dh_in[keep:]
                grad_c0[keep:n] = dc_in[keep:]
                carry_h, carry_c = dh_in[:keep], dc_in[:keep]
        else:  # step t's incoming state: the first bs[t] rows of step t - 1's (or the initial state)
            for t in range(steps - 1, -1, -1):
                n, rows = batch_sizes[t], slice(offsets[t], offsets[t + 1])
                later = batch_sizes[t + 1] if t + 1 < steps else 0  # rows that went on to step t + 1
                dh = _plus(grad_steps[t], _padded(carry_h, n, None))
                dc = carry_c if later == n else _padded(carry_c, n, grad_c_n)
                _, carry_c = _C._lstm_cell_backward(gates[rows], c_prev[rows], _or_zeros(dh, n, h0), dc,
                                                    out=grad_gates[rows])
                carry_h = grad_gates[rows].mm(w_hh) if t > 0 or need[5] else None
            grad_h0, grad_c0 = carry_h, carry_c
        grad_input = grad_gates.mm(w_ih) if need[0] else None
        flipped = grad_gates.t()
        grad_w_ih = flipped.mm(layer_input) if need[1] else None
        grad_w_hh = flipped.mm(h_prev) if need[2] else None
        grad_b = grad_gates.sum(0) if need[3] or need[4] else None
        grad_b_hh = None if grad_b is None or not need[4] else (grad_b.clone() if need[3] else grad_b)
        return (grad_input, grad_w_ih, grad_w_hh, grad_b if need[3] else None, grad_b_hh,
                grad_h0 if need[5] else None, grad_c0 if need[6] else None, None, None)


def _row_offsets(batch_sizes):
    offsets = [0]
    for n in batch_sizes:
        offsets.append(offsets[-1] + n)
    return offsets


def _plus(a, b):
    """a + b where either may be None (a gradient that did not arrive)."""
    if a is None:
        return b
    return a if b is None else a + b


def _or_zeros(grad, n, like):
    return grad if grad is not None else like.new_zeros((n, like.shape[1]))


def _padded(top, n, rest):
    """An n-row gradient: `top`'s rows first (None: nothing arrived), then `rest`'s rows from there on (None:
    zeros). None when neither holds anything."""
    have = 0 if top is None else top.shape[0]
    if have == n:
        return top
    if top is None and rest is None:
        return None
    tail = rest[have:n] if rest is not None else (top.new_zeros((n - have, top.shape[1])))
    return tail if top is None else tandem.cat([top, tail])


def _lstm_layer_graph_grads(ctx, saved, grads):
    """The layer's gradients as a graph (create_graph): the per-step forward rebuilt from the saved inputs and
    differentiated, so the gradients' own graph reaches the inputs' history."""
    inputs = saved[:7]
    layer_input, w_ih, w_hh, b_ih, b_hh, h0, c0 = inputs
    with tandem.enable_grad():
        x_proj = F.linear(layer_input, w_ih, None if b_ih is None else b_ih + b_hh)
        steps, _, c_n = _run_direction("lstm", x_proj, ctx.batch_sizes, h0, c0, w_hh, None, None, ctx.reverse)
    pairs = [(o, g) for o, g in zip((*steps, c_n), grads) if g is not None]
    wanted = [i for i, x in enumerate(inputs) if x is not None and ctx.needs_input_grad[i]]
    found = tandem.autograd.grad([o for o, _ in pairs], [inputs[i] for i in wanted], [g for _, g in pairs],
                                 create_graph=True, allow_unused=True)
    result = [None] * 9
    for i, g in zip(wanted, found):
        result[i] = g
    return tuple(result)


def _lstm_layer(layer_input, params, batch_sizes, h0, c0, reverse):
    """One direction of an LSTM layer without projection through _LstmLayer. Returns (each step's output,
    final h, final c) as _run_direction does."""
    *outputs, c_n = _LstmLayer.apply(layer_input, params["weight_ih"], params["weight_hh"], params.get("bias_ih"),
                                     params.get("bias_hh"), h0, c0, list(batch_sizes), reverse)
    if reverse:
        return outputs, outputs[0], c_n
    # A sequence's final state is its last step's output: the steps' last rows, longest sequences first.
    finished = [outputs[t][batch_sizes[t + 1]:] for t in range(len(outputs) - 2, -1, -1)
                if batch_sizes[t + 1] < batch_sizes[t]]
    return outputs, (tandem.cat([outputs[-1]] + finished) if finished else outputs[-1]), c_n


def _projected_direction(kind, layer_input, params, batch_sizes, h0, c0, reverse):
    """One direction of a layer as a graph of per-step ops: the input projection, then _run_direction."""
    w_ih, w_hh, w_hr = params["weight_ih"], params["weight_hh"], params.get("weight_hr")
    b_ih, b_hh = params.get("bias_ih"), params.get("bias_hh")
    if b_ih is not None and kind != "gru":  # constant over time: both biases go into the projection
        b_ih = b_ih + b_hh
        b_hh = None
    x_proj = F.linear(layer_input, w_ih, b_ih)
    return _run_direction(kind, x_proj, batch_sizes, h0, c0, w_hh, b_hh, w_hr, reverse)


def run_layers(kind, rows, batch_sizes, h0, c0, weights, num_layers, directions, dropout, train, stack_output,
               run_direction=None):
    """Every layer over packed rows. weights[layer * directions + direction] maps weight_ih, weight_hh (and
    bias_ih, bias_hh, weight_hr where present) to tensors. The last layer's output is packed rows too, or with
    stack_output the (L, N, H * directions) tensor PyTorch's native implementation builds (each direction's
    steps stacked, the directions concatenated), so its grad_fn is PyTorch's (StackBackward0, CatBackward0).
    run_direction(params, layer_input, batch_sizes, h0, c0, reverse), where given, runs each direction in place
    of the float paths (the dynamically quantized layers). Returns (output, h_n, c_n), c_n None except for
    LSTM."""
    final_h, final_c = [], []
    layer_input = rows
    for layer in range(num_layers):
        stacked = stack_output and layer == num_layers - 1
        outs = []
        for direction in range(directions):
            index = layer * directions + direction
            params = weights[index]
            h0_d, c0_d = h0[index], c0[index] if c0 is not None else None
            if run_direction is not None:
                step_outputs, h_n, c_n = run_direction(params, layer_input, batch_sizes, h0_d, c0_d, direction == 1)
            elif kind == "lstm" and "weight_hr" not in params and not _C._autocast_active():
                step_outputs, h_n, c_n = _lstm_layer(layer_input, params, batch_sizes, h0_d, c0_d, direction == 1)
            else:
                step_outputs, h_n, c_n = _projected_direction(kind, layer_input, params, batch_sizes, h0_d, c0_d,
                                                              direction == 1)
            outs.append(tandem.stack(step_outputs) if stacked else _rows(step_outputs))
            final_h.append(h_n)
            final_c.append(c_n)
        layer_input = outs[0] if directions == 1 else tandem.cat(outs, dim=2 if stacked else 1)
        if dropout and train and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout, True)
    h_n = tandem.stack(final_h)
    c_n = tandem.stack(final_c) if c0 is not None else None
    return layer_input, h_n, c_n
