"""torch.lstm, torch.gru, torch.rnn_tanh, torch.rnn_relu and their single-step cells (torch.lstm_cell, ...): the
ATen functional forms nn.LSTM & co. are built on in PyTorch, with its two overloads (a padded (L, N, F) input with
batch_first, or packed (data, batch_sizes)), flat parameter lists and checks. They run tandem's recurrence
(nn/_rnn_engine.py), so they differentiate and run on every device exactly as nn.LSTM does."""
import numbers

from . import _C

Tensor = _C.Tensor

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]

_GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def _engine():
    from .nn import _rnn_engine  # noqa: PLC0415  (nn imports tandem: resolved at call time)
    return _rnn_engine


# ---- argument binding (PyTorch's parser for the two overloads) ----

def _is_tensors(value):
    return isinstance(value, (list, tuple)) and all(isinstance(v, Tensor) for v in value)


_KINDS = {
    "Tensor": lambda v: isinstance(v, Tensor),
    "tuple of Tensors": _is_tensors,
    "bool": lambda v: isinstance(v, bool),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, numbers.Real),
}


def _signatures(name):
    hx = "tuple of Tensors" if name == "lstm" else "Tensor"
    tail = [("tuple of Tensors", "params"), ("bool", "has_biases"), ("int", "num_layers"), ("float", "dropout"),
            ("bool", "train"), ("bool", "bidirectional")]
    packed = [("Tensor", "data"), ("Tensor", "batch_sizes"), (hx, "hx")] + tail
    padded = [("Tensor", "input"), (hx, "hx")] + tail + [("bool", "batch_first")]
    return packed, padded


def _type_name(value):
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def _bind(name, args, kwargs):
    """(packed?, the arguments by name) for whichever overload the call matches, else PyTorch's TypeError."""
    for signature in _signatures(name):
        names = [label for _, label in signature]
        if len(args) > len(names) or any(key not in names for key in kwargs):
            continue
        bound = dict(zip(names, args))
        if any(key in bound for key in kwargs):
            continue
        bound.update(kwargs)
        if len(bound) == len(names) and all(_KINDS[kind](bound[label]) for kind, label in signature):
            return names[0] == "data", bound
    got = ", ".join([_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
    forms = "".join(" * (" + ", ".join(f"{kind} {label}" for kind, label in signature) + ")\n"
                    for signature in _signatures(name))
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    + forms)


# ---- the layer forms ----

def _gather_params(lstm, params, has_biases, has_projections):
    """The flat list as one {weight_ih, weight_hh[, bias_ih, bias_hh][, weight_hr]} per layer and direction."""
    labels = ["weight_ih", "weight_hh"] + (["bias_ih", "bias_hh"] if has_biases else []) \
        + (["weight_hr"] if has_projections else [])
    stride = len(labels)
    if len(params) % stride != 0:  # ATen's two wordings: only LSTM without projections splits unchecked
        if lstm and not has_projections:
            raise RuntimeError(f"MatrixRef: ArrayRef size {len(params)} not divisible by stride {stride}")
        raise RuntimeError("got an incorrect number of RNN parameters")
    return [dict(zip(labels, params[i:i + stride])) for i in range(0, len(params), stride)]


def _check_counts(lstm, h0, c0, weights, groups, bidirectional):
    """ATen's checks of how many hidden states and weight groups came, for num_layers * directions groups. LSTM
    selects each layer's states (extra ones are ignored); the others want exactly one per group."""
    if lstm:
        if h0.dim() != 3 or c0.dim() != 3:
            raise RuntimeError(f"lstm expects 3-D hidden states, got {h0.dim()}-D and {c0.dim()}-D")
        short = h0 if h0.size(0) <= c0.size(0) else c0
        if short.size(0) < groups:
            raise IndexError(f"select(): index {short.size(0)} out of range for tensor of size {list(short.shape)} "
                             "at dimension 0")
        if len(weights) < groups:
            raise RuntimeError("Expected more weights in stacked_rnn")
        return
    hiddens = h0.size(0) if h0.dim() else 0
    if bidirectional and (hiddens % 2 or len(weights) % 2):
        raise RuntimeError("Odd number of params or hiddens given to a bidirectional RNN")
    if hiddens != groups:
        raise RuntimeError("Expected more hidden states in stacked_rnn")
    if len(weights) != groups:
        raise RuntimeError("Expected more weights in stacked_rnn")


def _run(name, args, kwargs):
    packed, a = _bind(name, args, kwargs)
    lstm = name == "lstm"
    hx = a["hx"]
    if lstm and len(hx) != 2:
        raise RuntimeError("lstm expects two hidden states")
    h0, c0 = (hx[0], hx[1]) if lstm else (hx, None)
    num_layers, directions = a["num_layers"], 2 if a["bidirectional"] else 1
    groups = max(num_layers, 0) * directions
    has_projections = lstm and h0.dim() == 3 and c0.dim() == 3 and h0.size(2) != c0.size(2)
    weights = _gather_params(lstm, list(a["params"]), a["has_biases"], has_projections)
    _check_counts(lstm, h0, c0, weights, groups, a["bidirectional"])
    if num_layers <= 0:  # ATen stacks an empty list of final states
        raise RuntimeError("stack expects a non-empty TensorList")
    dropout, train = float(a["dropout"]), a["train"]
    if train and num_layers > 1 and not 0 <= dropout <= 1:  # at::dropout's check, reached between layers
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {a['dropout']}")
    if packed:
        rows, batch_sizes_t = a["data"], a["batch_sizes"]
        if batch_sizes_t.dtype != _C.int64:
            raise RuntimeError(f"expected scalar type Long but found {batch_sizes_t.dtype._scalar_type_name}")
        if rows.dim() != 2:
            raise RuntimeError(f"packed input data must have 2 dimensions, got {rows.dim()}")
        batch_sizes = [int(b) for b in batch_sizes_t.tolist()]
        if sum(batch_sizes) != rows.size(0):
            raise RuntimeError(f"batch_sizes add up to {sum(batch_sizes)} rows, but data has {rows.size(0)}")
    else:
        x = a["input"]
        if x.dim() != 3:  # ATen would broadcast a 2-D input by accident; nn.LSTM's message says what is meant
            raise RuntimeError(f"input must have 3 dimensions, got {x.dim()}")
        if a["batch_first"]:
            x = x.transpose(0, 1)
        batch_sizes = [x.size(1)] * x.size(0)
        rows = x.reshape(x.size(0) * x.size(1), x.size(2))
    if not batch_sizes:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    batch = batch_sizes[0]
    for label, state in (("hx", h0), ("cx", c0)):
        if state is not None and state.size(1) != batch:
            raise RuntimeError(f"The size of tensor a ({state.size(1)}) must match the size of tensor b ({batch}) "
                               f"at non-singleton dimension 0\nhint: {label} holds {state.size(1)} sequences, the "
                               f"input {batch}")
    output, h_n, c_n = _engine().run_layers(name, rows, batch_sizes, h0, c0, weights, num_layers, directions,
                                            dropout, train, stack_output=not packed)
    if not packed and a["batch_first"]:
        output = output.transpose(0, 1)
    return (output, h_n, c_n) if lstm else (output, h_n)


def lstm(*args, **kwargs):
    """lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first) or
    lstm(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional) ->
    (output, h_n, c_n). hx is (h_0, c_0); params is nn.LSTM's _flat_weights order (a weight_hr per layer when
    h_0 is narrower than c_0)."""
    return _run("lstm", args, kwargs)


def gru(*args, **kwargs):
    """gru(input, hx, params, ...) or gru(data, batch_sizes, hx, params, ...) -> (output, h_n), as torch.lstm."""
    return _run("gru", args, kwargs)


def rnn_tanh(*args, **kwargs):
    """Elman RNN with tanh, as torch.gru's arguments -> (output, h_n)."""
    return _run("rnn_tanh", args, kwargs)


def rnn_relu(*args, **kwargs):
    """Elman RNN with relu, as torch.gru's arguments -> (output, h_n)."""
    return _run("rnn_relu", args, kwargs)


# ---- the cells ----

def _check_tensor(name, value, label, position):
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{label}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def _cell(kind, name, input, states, w_ih, w_hh, b_ih, b_hh):
    """PyTorch's cell checks (their order and words), then one step of tandem's fused cell."""
    for label, value, position in (("input", input, 1), ("w_ih", w_ih, 3), ("w_hh", w_hh, 4)):
        _check_tensor(name, value, label, position)
    for label, value, position in (("b_ih", b_ih, 5), ("b_hh", b_hh, 6)):
        if value is not None:
            _check_tensor(name, value, label, position)
    gates, hidden_size = _GATES[kind], w_hh.size(1) if w_hh.dim() > 1 else 0
    for label, w in (("weight_ih", w_ih), ("weight_hh", w_hh)):
        if w.size(0) != gates * hidden_size:
            raise RuntimeError(f"{label} first dim must be {gates} * hidden_size = {gates * hidden_size}, but got "
                               f"{w.size(0)}")
    if input.dim() != 2:
        raise RuntimeError(f"Expected 2D input (batch x feature), but got {input.dim()}D input")
    for i, s in enumerate(states):
        if s.dim() != 2:
            raise RuntimeError(f"Expected 2D hidden{i} (batch x hidden_size), but got {s.dim()}D tensor")
    if input.size(1) != w_ih.size(1):
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected {w_ih.size(1)}")
    for i, s in enumerate(states):
        if s.size(0) != input.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{i} batch size {s.size(0)}")
        if s.size(1) != hidden_size:
            raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {s.size(1)}, expected {hidden_size}")
    if kind != "gru" and b_hh is not None:  # both biases act on the pre-activation: fold them (GRU's cannot)
        b_ih, b_hh = (b_hh if b_ih is None else b_ih + b_hh), None
    from .nn import functional as F  # noqa: PLC0415
    return _engine().cell_step(kind, F.linear(input, w_ih, b_ih), states[0], states[1] if len(states) > 1 else None,
                               w_hh.t(), b_hh)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step: (h', c') from input (N, F) and hx = (h, c), each (N, H)."""
    if not _is_tensors(hx):
        raise TypeError(f"lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not {type(hx).__name__}")
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    return tuple(_cell("lstm", "lstm_cell", input, list(hx), w_ih, w_hh, b_ih, b_hh))


def _single_state_cell(kind):
    name = kind + "_cell"

    def cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        _check_tensor(name, hx, "hx", 2)
        return _cell(kind, name, input, [hx], w_ih, w_hh, b_ih, b_hh)[0]

    cell.__name__ = cell.__qualname__ = name
    cell.__doc__ = f"One {kind} step: h' from input (N, F) and hx (N, H)."
    return cell


gru_cell = _single_state_cell("gru")
rnn_tanh_cell = _single_state_cell("rnn_tanh")
rnn_relu_cell = _single_state_cell("rnn_relu")


def install(namespace):
    for name in __all__:
        namespace.setdefault(name, globals()[name])
