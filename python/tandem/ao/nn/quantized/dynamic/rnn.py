"""Dynamically quantized recurrent layers (LSTM, GRU) and cells (LSTMCell, GRUCell, RNNCell), as PyTorch's
DynamicQuantizedLSTM & co.: int8 (or float16) weights, activations quantized at every product.

As in PyTorch on the CPU, each layer's input projection is one product over the whole sequence (one activation
range for all steps) and each step's hidden projection quantizes that step's h; both products add their own bias.
The recurrence, packed sequences, directions and layers are nn/_rnn_engine.py's, shared with the float layers."""
import math

import tandem
from tandem import nn
from tandem.nn._rnn_engine import _run_direction, cell_step, run_layers
from tandem.nn.modules import rnn as float_rnn

from ....._quantized_types import qint8
from ._packed import PackedWeight
from .linear import weight_options

__all__ = ["RNNBase", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _uniform(shape, hidden_size):
    bound = 1.0 / math.sqrt(hidden_size)
    return tandem.empty(shape).uniform_(-bound, bound)


def _apply_packed(packs, fn):
    for pack in packs:
        pack.apply(fn)


class RNNBase(float_rnn.RNNBase):
    """The layers' shared forward (argument checks, packed sequences, batch_first) is nn.RNNBase's; only the
    products differ."""

    _FLOAT_MODULE = nn.RNNBase

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, dtype=qint8):
        nn.Module.__init__(self)
        if mode not in ("LSTM", "GRU"):
            raise RuntimeError(f"Unsupported RNN mode: {mode}\nhint: dynamic quantization covers LSTM and GRU "
                               "layers (and the RNNCell, LSTMCell and GRUCell cells)")
        float_rnn._check_number_arguments(input_size, hidden_size, num_layers, bias, batch_first, dropout, 0)
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout, self.bidirectional = bias, batch_first, float(dropout), bidirectional
        self.proj_size, self.dtype = 0, dtype
        gates = float_rnn._GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        self._all_weight_values = []
        for layer in range(num_layers):
            for _ in range(directions):
                layer_input = input_size if layer == 0 else hidden_size * directions
                b_ih = _uniform(gates, hidden_size) if bias else None
                b_hh = _uniform(gates, hidden_size) if bias else None
                self._all_weight_values.append(
                    (PackedWeight.from_float(_uniform((gates, layer_input), hidden_size), b_ih, dtype),
                     PackedWeight.from_float(_uniform((gates, hidden_size), hidden_size), b_hh, dtype)))

    def _get_name(self):
        return "DynamicQuantized" + self.mode

    def _weight_dtype(self):
        return tandem.float32

    @property
    def _flat_weights(self):  # no float weights: the products are the packed ones
        return []

    def _layers(self, rows, batch_sizes, h0, c0, stack_output):
        kind = float_rnn._CELL[self.mode]

        def run_direction(packed, layer_input, batch_sizes, h0, c0, reverse):
            ih, hh = packed
            return _run_direction(kind, ih.linear(layer_input), batch_sizes, h0, c0, None, None, None, reverse,
                                  hidden_linear=hh.linear)

        with tandem.no_grad():
            return run_layers(kind, rows, batch_sizes, h0, c0, self._all_weight_values, self.num_layers,
                              2 if self.bidirectional else 1, self.dropout, self.training, stack_output,
                              run_direction=run_direction)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        if type(mod) not in (nn.LSTM, nn.GRU):
            raise AssertionError("nn.quantized.dynamic.RNNBase.from_float only works for nn.LSTM and nn.GRU, got "
                                 f"{type(mod).__name__}")
        if not mod.bias:
            raise AssertionError("mod.bias must be True")
        if mod.proj_size:
            raise NotImplementedError("dynamic quantization of an LSTM with proj_size > 0 is not supported by "
                                      "tandem\nhint: leave it out of quantize_dynamic's qconfig_spec")
        dtype, per_channel = weight_options(getattr(mod, "qconfig", None))
        new = cls(mod.input_size, mod.hidden_size, mod.num_layers, mod.bias, mod.batch_first, mod.dropout,
                  mod.bidirectional, dtype=dtype)
        new._all_weight_values = []
        for names in mod._all_weights:
            p = {name.split("_l")[0]: getattr(mod, name) for name in names}
            new._all_weight_values.append(
                (PackedWeight.from_float(p["weight_ih"], p.get("bias_ih"), dtype, per_channel),
                 PackedWeight.from_float(p["weight_hh"], p.get("bias_hh"), dtype, per_channel)))
        new.train(mod.training)
        return new

    def _apply(self, fn, recurse=True):
        _apply_packed([pack for pair in self._all_weight_values for pack in pair], fn)
        return super()._apply(fn, recurse)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        for i, (ih, hh) in enumerate(self._all_weight_values):
            destination[f"{prefix}_all_weight_values.{i}.param"] = (self.dtype,) + ih.state() + hh.state()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        for i in range(len(self._all_weight_values)):
            key = f"{prefix}_all_weight_values.{i}.param"
            if key not in state_dict:
                missing_keys.append(key)
                continue
            dtype, *tensors = state_dict.pop(key)
            self.dtype = dtype
            self._all_weight_values[i] = (PackedWeight(dtype, *tensors[:3]), PackedWeight(dtype, *tensors[3:]))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class LSTM(float_rnn._LSTMStates, RNNBase):
    _FLOAT_MODULE = nn.LSTM

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    _FLOAT_MODULE = nn.GRU

    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(float_rnn.RNNCellBase):
    """One step: W_ih x + b_ih and W_hh h + b_hh each quantize their input, then the float cell's gate math."""

    _FLOAT_MODULE = nn.RNNCellBase

    def __init__(self, input_size, hidden_size, bias=True, num_chunks=4, dtype=qint8):
        nn.Module.__init__(self)
        self.input_size, self.hidden_size, self.bias, self.weight_dtype = input_size, hidden_size, bias, dtype
        gates = num_chunks * hidden_size
        self._packed_weight_ih = PackedWeight.from_float(_uniform((gates, input_size), hidden_size),
                                                         _uniform(gates, hidden_size) if bias else None, dtype)
        self._packed_weight_hh = PackedWeight.from_float(_uniform((gates, hidden_size), hidden_size),
                                                         _uniform(gates, hidden_size) if bias else None, dtype)

    def _get_name(self):
        return "DynamicQuantized" + type(self).__name__

    def _step(self, kind, input, h, c):
        with tandem.no_grad():
            return cell_step(kind, self._packed_weight_ih.linear(input), h, c, None, None,
                             self._packed_weight_hh.linear)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        if type(mod) not in (nn.LSTMCell, nn.GRUCell, nn.RNNCell):
            raise AssertionError("nn.quantized.dynamic.RNNCellBase.from_float only works for nn.LSTMCell, "
                                 f"nn.GRUCell, and nn.RNNCell, got {type(mod).__name__}")
        dtype, per_channel = weight_options(getattr(mod, "qconfig", None))
        kwargs = {"nonlinearity": mod.nonlinearity} if type(mod) is nn.RNNCell else {}
        new = _CELLS[type(mod)](mod.input_size, mod.hidden_size, bias=mod.bias, dtype=dtype, **kwargs)
        new._packed_weight_ih = PackedWeight.from_float(mod.weight_ih, mod.bias_ih, dtype, per_channel)
        new._packed_weight_hh = PackedWeight.from_float(mod.weight_hh, mod.bias_hh, dtype, per_channel)
        return new

    def _apply(self, fn, recurse=True):
        _apply_packed([self._packed_weight_ih, self._packed_weight_hh], fn)
        return super()._apply(fn, recurse)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        for name in ("_packed_weight_ih", "_packed_weight_hh"):
            pack = getattr(self, name)
            destination[prefix + name] = (pack.dtype,) + pack.state()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        for name in ("_packed_weight_ih", "_packed_weight_hh"):
            if prefix + name in state_dict:
                setattr(self, name, PackedWeight(*state_dict.pop(prefix + name)))
            else:
                missing_keys.append(prefix + name)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class RNNCell(RNNCellBase):
    _FLOAT_MODULE = nn.RNNCell

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", dtype=qint8):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, dtype=dtype)
        self.nonlinearity = nonlinearity

    forward = float_rnn.RNNCell.forward


class LSTMCell(RNNCellBase):
    _FLOAT_MODULE = nn.LSTMCell

    def __init__(self, *args, **kwargs):
        super().__init__(*args, num_chunks=4, **kwargs)

    forward = float_rnn.LSTMCell.forward


class GRUCell(RNNCellBase):
    _FLOAT_MODULE = nn.GRUCell

    def __init__(self, *args, **kwargs):
        super().__init__(*args, num_chunks=3, **kwargs)

    forward = float_rnn.GRUCell.forward


_CELLS = {nn.LSTMCell: LSTMCell, nn.GRUCell: GRUCell, nn.RNNCell: RNNCell}
