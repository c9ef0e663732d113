"""torch.lstm / gru / rnn_tanh / rnn_relu (padded and packed overloads) and the four cell forms against PyTorch:
outputs, final states and every gradient in float64 on every device, and PyTorch's argument errors."""
import pytest
import torch

import tandem
from oracle import assert_close_to_torch, from_torch

MODULES = {"lstm": "LSTM", "gru": "GRU", "rnn_tanh": "RNN", "rnn_relu": "RNN"}


def twin_weights(name, device, **kw):
    """A PyTorch module's float64 flat weights (requiring grad) and tandem leaves with the same values."""
    torch.manual_seed(0)
    extra = {"nonlinearity": "relu"} if name == "rnn_relu" else {}
    ref = getattr(torch.nn, MODULES[name])(3, 4, dtype=torch.float64, **extra, **kw)
    ref_w = [w.detach().clone().requires_grad_() for w in ref._flat_weights]
    ours_w = [from_torch(w.detach(), device).requires_grad_() for w in ref_w]
    return ref_w, ours_w


def states(name, layers, batch, proj=0):
    g = torch.Generator().manual_seed(1)
    h = torch.randn(layers, batch, proj or 4, dtype=torch.float64, generator=g)
    if name == "lstm":
        return [h, torch.randn(layers, batch, 4, dtype=torch.float64, generator=g)]
    return [h]


def leaves(ref_list, device):
    ref = [x.clone().requires_grad_() for x in ref_list]
    return ref, [from_torch(x.detach(), device).requires_grad_() for x in ref]


def as_hx(name, states_):
    return tuple(states_) if name == "lstm" else states_[0]


def compare(ours_out, ref_out, ours_leaves, ref_leaves, device):
    assert type(ours_out) is tuple and len(ours_out) == len(ref_out)
    for o, r in zip(ours_out, ref_out):
        assert_close_to_torch(o, r.detach(), device=device, rtol=1e-9, atol=1e-10)
    g = torch.Generator().manual_seed(2)
    cotangents = [torch.randn(r.shape, dtype=torch.float64, generator=g) for r in ref_out]
    torch.autograd.backward(list(ref_out), cotangents)
    tandem.autograd.backward(list(ours_out), [from_torch(c, device) for c in cotangents])
    for o, r in zip(ours_leaves, ref_leaves):
        assert_close_to_torch(o.grad, r.grad, device=device, rtol=1e-9, atol=1e-10)


LAYER_CASES = [
    ("lstm", dict(num_layers=1)),
    ("lstm", dict(num_layers=2, bidirectional=True)),
    ("lstm", dict(num_layers=2, proj_size=2, bias=False)),
    ("gru", dict(num_layers=2)),
    ("gru", dict(bidirectional=True)),
    ("rnn_tanh", dict(bias=False)),
    ("rnn_relu", dict(num_layers=2, bidirectional=True)),
]


@pytest.mark.parametrize("name,kw", LAYER_CASES)
@pytest.mark.parametrize("batch_first", [False, True])
def test_padded_form_matches_pytorch(device, name, kw, batch_first):
    ref_w, ours_w = twin_weights(name, device, **kw)
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    g = torch.Generator().manual_seed(3)
    shape = (2, 5, 3) if batch_first else (5, 2, 3)
    ref_x, ours_x = leaves([torch.randn(shape, dtype=torch.float64, generator=g)], device)
    ref_h, ours_h = leaves(states(name, layers, 2, kw.get("proj_size", 0)), device)
    args = (kw.get("bias", True), kw.get("num_layers", 1), 0.0, False, kw.get("bidirectional", False), batch_first)
    ref_out = getattr(torch, name)(ref_x[0], as_hx(name, ref_h), ref_w, *args)
    ours_out = getattr(tandem, name)(ours_x[0], as_hx(name, ours_h), ours_w, *args)
    compare(ours_out, ref_out, ours_x + ours_h + ours_w, ref_x + ref_h + ref_w, device)


@pytest.mark.parametrize("name,kw", LAYER_CASES[:2] + LAYER_CASES[3:5] + LAYER_CASES[6:])
def test_packed_form_matches_pytorch(device, name, kw):
    ref_w, ours_w = twin_weights(name, device, **kw)
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    g = torch.Generator().manual_seed(4)
    batch_sizes = torch.tensor([3, 3, 2, 1])
    ref_x, ours_x = leaves([torch.randn(int(batch_sizes.sum()), 3, dtype=torch.float64, generator=g)], device)
    ref_h, ours_h = leaves(states(name, layers, 3), device)
    args = (kw.get("bias", True), kw.get("num_layers", 1), 0.0, True, kw.get("bidirectional", False))
    ref_out = getattr(torch, name)(ref_x[0], batch_sizes, as_hx(name, ref_h), ref_w, *args)
    ours_out = getattr(tandem, name)(ours_x[0], from_torch(batch_sizes), as_hx(name, ours_h), ours_w, *args)
    compare(ours_out, ref_out, ours_x + ours_h + ours_w, ref_x + ref_h + ref_w, device)


def test_keywords_and_module_agreement():
    """Keyword arguments bind as in PyTorch, and the form computes what nn.LSTM does with the same weights."""
    tandem.manual_seed(0)
    m = tandem.nn.LSTM(3, 4, 2, batch_first=True)
    x = tandem.randn(2, 5, 3)
    out, (h, c) = m(x)
    zeros = tandem.zeros(2, 2, 4)
    res = tandem.lstm(input=x, hx=(zeros, zeros), params=m._flat_weights, has_biases=True, num_layers=2,
                      dropout=0.0, train=False, bidirectional=False, batch_first=True)
    for a, b in zip(res, (out, h, c)):
        assert tandem.equal(a, b)


def test_dropout_between_layers_in_training():
    """train=True with dropout=1 zeroes every layer's input but the first: the output is then what a layer
    gives from zeros."""
    _, w = twin_weights("gru", "cpu", num_layers=2)
    x = tandem.randn(5, 2, 3, dtype=tandem.float64)
    h = tandem.zeros(2, 2, 4, dtype=tandem.float64)
    out_train, _ = tandem.gru(x, h, w, True, 2, 1.0, True, False, False)
    out_zero, _ = tandem.gru(tandem.zeros(5, 2, 4, dtype=tandem.float64), h[1:], w[4:], True, 1, 0.0, False, False,
                             False)
    assert tandem.allclose(out_train, out_zero)


CELL_CASES = [("lstm_cell", 4, True), ("lstm_cell", 4, False), ("gru_cell", 3, True), ("gru_cell", 3, False),
              ("rnn_tanh_cell", 1, True), ("rnn_relu_cell", 1, True)]


@pytest.mark.parametrize("name,gates,bias", CELL_CASES)
def test_cells_match_pytorch(device, name, gates, bias):
    g = torch.Generator().manual_seed(5)
    r = lambda *s: torch.randn(*s, dtype=torch.float64, generator=g)  # noqa: E731
    tensors = [r(2, 3), r(2, 4)] + ([r(2, 4)] if name == "lstm_cell" else []) + [r(4 * gates, 3), r(4 * gates, 4)]
    tensors += [r(4 * gates), r(4 * gates)] if bias else []
    ref, ours = leaves(tensors, device)

    def call(mod, t):
        hx = (t[1], t[2]) if name == "lstm_cell" else t[1]
        rest = t[3:] if name == "lstm_cell" else t[2:]
        return getattr(mod, name)(t[0], hx, *rest)

    ref_out, ours_out = call(torch, ref), call(tandem, ours)
    if name != "lstm_cell":
        ref_out, ours_out = (ref_out,), (ours_out,)
    compare(ours_out, ref_out, ours, ref, device)


def test_cell_with_one_bias_matches_pytorch():
    g = torch.Generator().manual_seed(6)
    x, h, w_ih, w_hh, b = (torch.randn(*s, dtype=torch.float64, generator=g) for s in
                           [(2, 3), (2, 4), (4, 3), (4, 4), (4,)])
    for b_ih, b_hh in ((b, None), (None, b)):
        want = torch.rnn_tanh_cell(x, h, w_ih, w_hh, b_ih, b_hh)
        got = tandem.rnn_tanh_cell(*(from_torch(t) if t is not None else None for t in (x, h, w_ih, w_hh, b_ih, b_hh)))
        assert_close_to_torch(got, want)
    want = torch.gru_cell(x, h, torch.cat([w_ih] * 3), torch.cat([w_hh] * 3), b_ih=torch.cat([b] * 3))
    got = tandem.gru_cell(from_torch(x), from_torch(h), from_torch(torch.cat([w_ih] * 3)),
                          from_torch(torch.cat([w_hh] * 3)), b_ih=from_torch(torch.cat([b] * 3)))
    assert_close_to_torch(got, want)


def raises_like(fn_name, args_ref, args_ours, kwargs=None):
    kwargs = kwargs or {}
    with pytest.raises(Exception) as want:
        getattr(torch, fn_name)(*args_ref, **kwargs)
    with pytest.raises(want.type) as got:
        getattr(tandem, fn_name)(*args_ours, **kwargs)
    return str(got.value), str(want.value)


def both(*tensors):
    return list(tensors), [from_torch(t) if isinstance(t, torch.Tensor) else
                           type(t)(from_torch(v) for v in t) if isinstance(t, (list, tuple)) else t for t in tensors]


def tandem_free_cat(h):
    return torch.cat([h, h[:1]])


def layer_args(name="lstm", layers=1, hidden_layers=None, params=None, x_shape=(5, 2, 3)):
    x = torch.randn(*x_shape)
    h = torch.zeros(hidden_layers or layers, 2, 4)
    hx = (h, h) if name == "lstm" else h
    gates = 4 if name == "lstm" else 3
    w = params if params is not None else \
        [torch.randn(gates * 4, 3), torch.randn(gates * 4, 4)] + [torch.randn(gates * 4, 4)] * 2 * (layers - 1)
    return x, hx, w


@pytest.mark.parametrize("name", ["lstm", "gru"])
@pytest.mark.parametrize("case", ["params_count", "hidden_count", "c_count", "extra_hidden", "extra_params",
                                  "two_states", "empty", "no_layers", "p", "bool_type", "arity"])
def test_layer_errors_match_pytorch(name, case):
    x, hx, w = layer_args(name, layers=2)
    if case in ("c_count", "two_states") and name != "lstm":
        return
    tail = [False, 2, 0.0, False, False, False]
    if case == "params_count":
        w = w[:3]
    elif case == "hidden_count":
        hx = (hx[0][:1], hx[1][:1]) if name == "lstm" else hx[:1]
    elif case == "c_count":
        hx = (hx[0], hx[1][:1])
    elif case == "extra_hidden":
        hx = (tandem_free_cat(hx[0]), hx[1]) if name == "lstm" else tandem_free_cat(hx)
    elif case == "extra_params":
        w = w + w[:2]
    elif case == "two_states":
        hx = hx + (hx[0],)
    elif case == "empty":
        x = x[:0]
    elif case == "no_layers":
        tail[1] = 0
    elif case == "p":
        tail[2:4] = [1.5, True]
    elif case == "bool_type":
        tail[0] = 1
    elif case == "arity":
        tail = tail[:-1]
    ref, ours = both(x, hx, w, *tail)
    if name == "lstm" and case.startswith("extra"):  # PyTorch's LSTM ignores what is left over
        for a, b in zip(tandem.lstm(*ours), torch.lstm(*ref)):
            assert_close_to_torch(a, b, rtol=1e-5, atol=1e-6)
        return
    got, want = raises_like(name, ref, ours)
    first = (lambda s: s.split("\n didn't")[0].split("\n")[0])
    assert first(got) == first(want)
    if case in ("bool_type", "arity"):  # the overloads PyTorch lists
        assert [ln for ln in got.splitlines() if ln.startswith(" * ")] == \
               [ln for ln in want.splitlines() if ln.startswith(" * ")]


def test_packed_errors_match_pytorch():
    x, hx, w = layer_args("gru")
    ref, ours = both(x.reshape(10, 3), torch.tensor([2.0] * 5), hx, w, False, 1, 0.0, False, False)
    got, want = raises_like("gru", ref, ours)
    assert got == want


@pytest.mark.parametrize("case", ["states", "w_ih", "w_hh", "input_dim", "hidden_dim", "input_size", "batch",
                                  "hidden_size", "hidden1_size"])
def test_cell_errors_match_pytorch(case):
    x, h, c = torch.randn(2, 3), torch.zeros(2, 4), torch.zeros(2, 4)
    w_ih, w_hh = torch.randn(16, 3), torch.randn(16, 4)
    hx = (h, c)
    if case == "states":
        hx = (h,)
    elif case == "w_ih":
        w_ih = w_ih[:15]
    elif case == "w_hh":
        w_hh = torch.randn(12, 4)
    elif case == "input_dim":
        x = x[0]
    elif case == "hidden_dim":
        hx = (h[0], c)
    elif case == "input_size":
        x = x[:, :2]
    elif case == "batch":
        hx = (h, c[:1])
    elif case == "hidden_size":
        hx = (h[:, :3], c)
    elif case == "hidden1_size":
        hx = (h, c[:, :3])
    ref, ours = both(x, hx, w_ih, w_hh)
    got, want = raises_like("lstm_cell", ref, ours)
    assert got == want


def test_single_state_cell_type_error_matches_pytorch():
    ref, ours = both(torch.randn(2, 3), None, torch.randn(4, 3), torch.randn(4, 4))
    got, want = raises_like("rnn_relu_cell", ref, ours)
    assert got == want
