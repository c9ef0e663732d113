"""Recurrent layers: RNN, LSTM, GRU (layers, bidirectional, batch_first, dropout, proj_size, PackedSequence input)
and the single-step cells, with PyTorch's parameter names, initialisation, shapes and errors. The recurrence
itself (fused cells, packed rows, both directions) is nn/_rnn_engine.py, which torch.lstm & co. share.

A shorter sequence's state simply stops being carried (forward direction) or starts later from its initial state
(reverse direction), which is what PyTorch computes.
"""
import math
import numbers
import warnings
import weakref

import tandem

from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from .._rnn_engine import cell_step, run_layers

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
# The cell math each mode runs (_rnn_engine.cell_step).
_CELL = {"RNN_TANH": "rnn_tanh", "RNN_RELU": "rnn_relu", "LSTM": "lstm", "GRU": "gru"}


def _packed_sequence():
    from ..utils.rnn import PackedSequence

    return PackedSequence


def _check_number_arguments(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size):
    if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
        raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                         "being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                      f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                      stacklevel=3)
    if not isinstance(bias, bool):
        raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
    if not isinstance(batch_first, bool):
        raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
    if not isinstance(input_size, int):
        raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
    if input_size <= 0:
        raise ValueError("input_size must be greater than zero")
    if not isinstance(hidden_size, int):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNNBase(Module):
    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        _check_number_arguments(input_size, hidden_size, num_layers, bias, batch_first, dropout, proj_size)
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [(f"weight_ih_l{layer}{suffix}", (gate_size, layer_input)),
                          (f"weight_hh_l{layer}{suffix}", (gate_size, real_hidden))]
                if bias:
                    shapes += [(f"bias_ih_l{layer}{suffix}", (gate_size,)), (f"bias_hh_l{layer}{suffix}", (gate_size,))]
                if proj_size > 0:
                    shapes.append((f"weight_hr_l{layer}{suffix}", (proj_size, hidden_size)))
                for name, shape in shapes:
                    setattr(self, name, Parameter(tandem.empty(shape, device=device, dtype=dtype)))
                self._flat_weights_names.extend(name for name, _ in shapes)
                self._all_weights.append([name for name, _ in shapes])
        self.reset_parameters()
        self._init_flat_weights()

    # PyTorch keeps _flat_weights as a list that forward runs with, synced by __setattr__ when a weight is
    # reassigned. Code that swaps in other tensors assigns the list itself (higher's functional RNNs); tandem reads
    # the weights by name unless the list was assigned. As PyTorch's, forward drops an assigned list once a weight
    # attribute is no longer the one seen when the list was last built (_flat_weight_refs).
    @property
    def _flat_weights(self):
        assigned = self.__dict__.get("_assigned_flat_weights")
        if assigned is not None:
            return assigned
        return [getattr(self, name) for name in self._flat_weights_names]

    @_flat_weights.setter
    def _flat_weights(self, weights):
        self.__dict__["_assigned_flat_weights"] = list(weights)

    def _init_flat_weights(self):
        """PyTorch's reset of the list to the module's weights by name (after weights were replaced)."""
        self.__dict__.pop("_assigned_flat_weights", None)
        weights = [getattr(self, name, None) for name in self.__dict__.get("_flat_weights_names", ())]
        self.__dict__["_flat_weight_refs"] = [None if w is None else weakref.ref(w) for w in weights]

    def _weights_have_changed(self):
        names = self.__dict__.get("_flat_weights_names", ())
        for ref, name in zip(self.__dict__.get("_flat_weight_refs", ()), names):
            weight = getattr(self, name, None)
            if weight is not None and ref is not None and ref() is not weight:
                return True
        return False

    def _update_flat_weights(self):
        if "_assigned_flat_weights" in self.__dict__ and self._weights_have_changed():
            self._init_flat_weights()

    def _apply(self, fn, recurse=True):
        result = super()._apply(fn, recurse)
        self._init_flat_weights()
        return result

    def __getstate__(self):
        self._update_flat_weights()
        state = self.__dict__.copy()
        state.pop("_flat_weight_refs", None)  # weak references do not pickle
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        assigned = self.__dict__.pop("_assigned_flat_weights", None)
        self._init_flat_weights()
        if assigned is not None:
            self.__dict__["_assigned_flat_weights"] = assigned

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        assigned = self.__dict__.get("_assigned_flat_weights")
        if assigned is not None and name in self.__dict__.get("_flat_weights_names", ()):
            assigned[self._flat_weights_names.index(name)] = value

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """Kept for PyTorch programs that call it: tandem's weights are always usable as they are."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # --- argument checks (PyTorch's messages) ---

    def _weight_dtype(self):
        return self._flat_weights[0].dtype

    def check_input(self, input, batch_sizes):
        weight_dtype = self._weight_dtype()
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                             f"Convert input: input.to({weight_dtype}), or convert model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")

    def _expected_state_size(self, input, batch_sizes, size):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch, size)

    def get_expected_hidden_size(self, input, batch_sizes):
        return self._expected_state_size(input, batch_sizes, self.proj_size if self.proj_size > 0 else
                                         self.hidden_size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.shape) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.shape)))

    # forward calls these PyTorch hooks, so a subclass that overrides one (to relax a check, or to permute its own
    # state) changes forward as in PyTorch
    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        return hx if permutation is None else hx.index_select(1, permutation)

    # --- the forward pass shared by RNN, LSTM and GRU ---

    def _prepare(self, input, hx):
        """(rows, batch_sizes list, batch_sizes tensor, sorted/unsorted indices, hx as batched, layout flags)."""
        PackedSequence = _packed_sequence()
        if isinstance(input, PackedSequence):
            data, batch_sizes_t, sorted_indices, unsorted_indices = input
            return data, [int(b) for b in batch_sizes_t.tolist()], batch_sizes_t, sorted_indices, unsorted_indices, \
                hx, True, True
        name = "RNN" if self.mode.startswith("RNN") else self.mode
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D"
                             + (" tensor instead" if name == "RNN" else " instead"))
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
            hx = self._unbatched_state(hx)
        else:
            self._check_batched_state(hx)
        if self.batch_first and batched:
            input = input.transpose(0, 1)
        return input, None, None, None, None, hx, batched, False

    def _unbatched_state(self, hx):
        if hx is None:
            return None
        if self.mode == "LSTM":
            if hx[0].dim() != 2 or hx[1].dim() != 2:
                raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
            return hx[0].unsqueeze(1), hx[1].unsqueeze(1)
        if hx.dim() != 2:
            raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
        return hx.unsqueeze(1)

    def _check_batched_state(self, hx):
        if hx is None:
            return
        if self.mode == "LSTM":
            if hx[0].dim() != 3 or hx[1].dim() != 3:
                raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
        elif hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")

    def forward(self, input, hx=None):
        self._update_flat_weights()
        rows, batch_sizes, batch_sizes_t, sorted_indices, unsorted_indices, hx, batched, packed = \
            self._prepare(input, hx)
        # the checks see the input in the module's layout (rows are time-major) and the states in sorted order
        checked = rows.transpose(0, 1) if self.batch_first and not packed else rows
        lstm = self.mode == "LSTM"
        given = hx is not None
        if not given:
            def zeros(size):
                return tandem.zeros(self._expected_state_size(checked, batch_sizes_t, size), dtype=rows.dtype,
                                    device=rows.device)
            h0 = zeros(self.proj_size if self.proj_size > 0 else self.hidden_size)
            hx = (h0, zeros(self.hidden_size)) if lstm else h0
        if lstm and not packed:  # PyTorch's LSTM checks, then permutes; RNN/GRU permute, then check
            self.check_forward_args(checked, hx, batch_sizes_t)
        if given:
            hx = self.permute_hidden(hx, sorted_indices)
        if not lstm:
            self.check_forward_args(checked, hx, batch_sizes_t)
        elif packed:  # PyTorch leaves these to its C++ op (with other messages), not calling the hook
            _LSTMStates.check_forward_args(self, checked, hx, batch_sizes_t)
        if lstm and len(hx) != 2:  # a third state would be ignored
            raise RuntimeError("lstm expects two hidden states")
        h0, c0 = (hx[0], hx[1]) if lstm else (hx, None)
        if not packed:
            steps, batch = rows.shape[0], rows.shape[1]
            batch_sizes = [batch] * steps
            rows = rows.reshape(steps * batch, rows.shape[2])
        if not batch_sizes:  # no time steps (a batch of 0 sequences runs, as in PyTorch)
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        output, h_n, c_n = self._layers(rows, batch_sizes, h0, c0, stack_output=not packed)
        hidden = (h_n, c_n) if lstm else h_n
        if packed:
            return _packed_sequence()(output, batch_sizes_t, sorted_indices, unsorted_indices), \
                self.permute_hidden(hidden, unsorted_indices)
        if not batched:
            output = output.squeeze(1)
            hidden = (h_n.squeeze(1), c_n.squeeze(1)) if lstm else h_n.squeeze(1)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, self.permute_hidden(hidden, unsorted_indices)

    def _layers(self, rows, batch_sizes, h0, c0, stack_output):
        directions = 2 if self.bidirectional else 1
        flat = dict(zip(self._flat_weights_names, self._flat_weights))
        weights = [{name.split("_l")[0]: flat[name] for name in names} for names in self._all_weights]
        return run_layers(_CELL[self.mode], rows, batch_sizes, h0, c0, weights, self.num_layers, directions,
                          self.dropout, self.training, stack_output)


class RNN(RNNBase):
    """Elman RNN: h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)


class _LSTMStates:
    """PyTorch's LSTM hooks for its (h, c) pair, shared by nn.LSTM and the dynamically quantized LSTM."""

    def get_expected_cell_size(self, input, batch_sizes):
        return self._expected_state_size(input, batch_sizes, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)


class LSTM(_LSTMStates, RNNBase):
    """LSTM with gates (i, f, g, o) in PyTorch's order; proj_size > 0 projects h with weight_hr."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """GRU with gates (r, z, n) in PyTorch's order."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(tandem.empty((num_chunks * hidden_size, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(tandem.empty((num_chunks * hidden_size, hidden_size), device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(tandem.empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(tandem.empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, name, input, states):
        """input (and states) as 2-D, checking PyTorch's dimension rules; None states become zeros."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for i, s in enumerate(states):
            if s is not None and s.dim() not in (1, 2):
                what = "hidden" if len(states) == 1 else f"hx[{i}]"
                raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {s.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        states = [tandem.zeros((input.shape[0], self.hidden_size), dtype=input.dtype, device=input.device)
                  if s is None else (s if batched else s.unsqueeze(0)) for s in states]
        # PyTorch's checks and messages (the GEMMs below would name themselves instead); a 1-D input with a 2-D
        # state (or the reverse) leaves a state that is not 2-D, which PyTorch's cell refuses by its rank
        for i, s in enumerate(states):
            if s.dim() != 2:
                raise RuntimeError(f"Expected 2D hidden{i} (batch x hidden_size), but got {s.dim()}D tensor")
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected {self.input_size}")
        for i, s in enumerate(states):
            if s.size(0) != input.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{i} batch size {s.size(0)}")
            if s.size(1) != self.hidden_size:
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {s.size(1)}, expected "
                                   f"{self.hidden_size}")
        return input, states, batched

    def _step(self, kind, input, h, c):
        b_ih, b_hh = self.bias_ih, self.bias_hh
        if b_ih is not None and kind != "gru":
            b_ih, b_hh = b_ih + b_hh, None
        return cell_step(kind, F.linear(input, self.weight_ih, b_ih), h, c, self.weight_hh.t(), b_hh)


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (h,), batched = self._batched("RNNCell", input, [hx])
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        h, _ = self._step("rnn_" + self.nonlinearity, input, h, None)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (h, c), batched = self._batched("LSTMCell", input, [None, None] if hx is None else list(hx))
        h, c = self._step("lstm", input, h, c)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (h,), batched = self._batched("GRUCell", input, [hx])
        h, _ = self._step("gru", input, h, None)
        return h if batched else h.squeeze(0)
