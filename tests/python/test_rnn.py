"""RNN, LSTM, GRU and their cells against PyTorch: outputs, final states and every gradient in float64 (weights
copied from a PyTorch module), PackedSequence inputs, state_dict names, reprs and PyTorch's argument errors."""
import warnings

import numpy as np
import pytest
import torch

import tandem


def T(x, device="cpu"):
    return tandem.tensor(x.detach().numpy()).to(device)


def N(t):
    return t.detach().cpu().numpy()


def twin(cls, *args, device="cpu", **kw):
    """A PyTorch module and a tandem one with the same float64 weights."""
    torch.manual_seed(0)
    ref = getattr(torch.nn, cls)(*args, dtype=torch.float64, **kw)
    ours = getattr(tandem.nn, cls)(*args, dtype=tandem.float64, **kw).to(device)
    ours.load_state_dict({k: T(v, device) for k, v in ref.state_dict().items()})
    return ref, ours


def flat_states(h):
    return list(h) if isinstance(h, tuple) else [h]


def assert_close(ours, ref, tol=1e-10):
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(N(ours), ref.detach().numpy(), rtol=tol, atol=tol)


CONFIGS = [
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu", "num_layers": 2}),
    ("RNN", {"bias": False, "bidirectional": True}),
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {"proj_size": 3, "batch_first": True}),
    ("LSTM", {"proj_size": 2, "num_layers": 2, "bidirectional": True, "bias": False}),
    ("GRU", {}),
    ("GRU", {"num_layers": 3, "batch_first": True}),
    ("GRU", {"bidirectional": True, "num_layers": 2}),
]


def make_states(ref, batch, gen):
    D = 2 if ref.bidirectional else 1
    h_size = ref.proj_size if getattr(ref, "proj_size", 0) else ref.hidden_size
    h = torch.randn(ref.num_layers * D, batch, h_size, dtype=torch.float64, generator=gen)
    if isinstance(ref, torch.nn.LSTM):
        return (h, torch.randn(ref.num_layers * D, batch, ref.hidden_size, dtype=torch.float64, generator=gen))
    return h


@pytest.mark.parametrize("cls,kw", CONFIGS, ids=[f"{c}-{'-'.join(f'{k}={v}' for k, v in kw.items())}"
                                                  for c, kw in CONFIGS])
@pytest.mark.parametrize("with_states", [False, True])
def test_layers_match_pytorch(cls, kw, with_states, device):
    ref, ours = twin(cls, 5, 6, device=device, **kw)
    gen = torch.Generator().manual_seed(1)
    shape = (3, 4, 5) if kw.get("batch_first") else (4, 3, 5)
    x = torch.randn(*shape, dtype=torch.float64, generator=gen, requires_grad=True)
    xt = T(x, device).requires_grad_()
    args, targs = (x,), (xt,)
    if with_states:
        states = make_states(ref, 3, gen)
        states = tuple(s.requires_grad_() for s in states) if isinstance(states, tuple) else states.requires_grad_()
        tstates = tuple(T(s, device).requires_grad_() for s in states) if isinstance(states, tuple) \
            else T(states, device).requires_grad_()
        args, targs = (x, states), (xt, tstates)
    out, h = ref(*args)
    tout, th = ours(*targs)
    assert tout.device == tandem.device(device)
    assert_close(tout, out)
    for a, b in zip(flat_states(th), flat_states(h)):
        assert_close(a, b)
    # Gradients of every output (output, h_n and c_n) reach the input, the initial states and every weight.
    gen = torch.Generator().manual_seed(2)
    weights = [torch.randn(o.shape, dtype=torch.float64, generator=gen) for o in [out] + flat_states(h)]
    sum((o * w).sum() for o, w in zip([out] + flat_states(h), weights)).backward()
    sum((o * T(w, device)).sum() for o, w in zip([tout] + flat_states(th), weights)).backward()
    assert_close(xt.grad, x.grad)
    if with_states:
        for a, b in zip(flat_states(tstates), flat_states(states)):
            assert_close(a.grad, b.grad)
    for (name, p), (rname, rp) in zip(ours.named_parameters(), ref.named_parameters()):
        assert name == rname
        assert_close(p.grad, rp.grad)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_unbatched_input(cls):
    ref, ours = twin(cls, 4, 3, num_layers=2)
    x = torch.randn(6, 4, dtype=torch.float64)
    out, h = ref(x)
    tout, th = ours(T(x))
    assert_close(tout, out)
    for a, b in zip(flat_states(th), flat_states(h)):
        assert_close(a, b)
    out, h2 = ref(x, h)
    tout, _ = ours(T(x), tuple(T(s) for s in h) if isinstance(h, tuple) else T(h))
    assert_close(tout, out)


@pytest.mark.parametrize("cls,kw", [("LSTM", {"num_layers": 2, "bidirectional": True}), ("GRU", {}),
                                    ("RNN", {"bidirectional": True}), ("LSTM", {"proj_size": 2})])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequences(cls, kw, enforce_sorted, device):
    from torch.nn.utils.rnn import pack_padded_sequence as torch_pack, pad_packed_sequence as torch_unpack
    from tandem.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    ref, ours = twin(cls, 3, 5, device=device, **kw)
    lengths = [5, 3, 3, 1] if enforce_sorted else [2, 5, 1, 4]
    x = torch.randn(5, 4, 3, dtype=torch.float64, requires_grad=True)
    xt = T(x, device).requires_grad_()
    out, h = ref(torch_pack(x, lengths, enforce_sorted=enforce_sorted))
    tout, th = ours(pack_padded_sequence(xt, lengths, enforce_sorted=enforce_sorted))
    padded, plengths = torch_unpack(out)
    tpadded, tlengths = pad_packed_sequence(tout)
    assert tlengths.tolist() == plengths.tolist()
    assert_close(tpadded, padded)
    for a, b in zip(flat_states(th), flat_states(h)):
        assert_close(a, b)
    (padded.sum() + sum(s.pow(2).sum() for s in flat_states(h))).backward()
    (tpadded.sum() + sum(s.pow(2).sum() for s in flat_states(th))).backward()
    assert_close(xt.grad, x.grad)
    for p, rp in zip(ours.parameters(), ref.parameters()):
        assert_close(p.grad, rp.grad)


@pytest.mark.parametrize("cls,kw", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu", "bias": False}),
                                    ("LSTMCell", {}), ("GRUCell", {}), ("GRUCell", {"bias": False})])
def test_cells_match_pytorch(cls, kw, device):
    ref, ours = twin(cls, 4, 6, device=device, **kw)
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    xt = T(x, device).requires_grad_()
    h = None
    th = None
    for _ in range(3):  # a few steps, feeding the state back
        h = ref(x, h)
        th = ours(xt, th)
    for a, b in zip(flat_states(th), flat_states(h)):
        assert_close(a, b)
    sum(s.sum() for s in flat_states(h)).backward()
    sum(s.sum() for s in flat_states(th)).backward()
    assert_close(xt.grad, x.grad)
    for p, rp in zip(ours.parameters(), ref.parameters()):
        assert_close(p.grad, rp.grad)
    # Unbatched input gives unbatched states.
    single = ours(xt[0].detach())
    assert [tuple(s.shape) for s in flat_states(single)] == [(6,)] * len(flat_states(single))
    assert_close(flat_states(single)[0], flat_states(ref(x[0].detach()))[0])


def test_state_dict_names_and_reprs():
    cases = [("LSTM", (10, 20), {"num_layers": 2, "bidirectional": True, "proj_size": 5, "batch_first": True,
                                 "dropout": 0.5, "bias": False}),
             ("GRU", (3, 4), {}), ("RNN", (3, 4), {"nonlinearity": "relu"}), ("RNNCell", (3, 4), {"bias": False,
                                                                                            "nonlinearity": "relu"}),
             ("LSTMCell", (3, 4), {}), ("GRUCell", (3, 4), {"bias": False})]
    for cls, args, kw in cases:
        ref = getattr(torch.nn, cls)(*args, **kw)
        ours = getattr(tandem.nn, cls)(*args, **kw)
        assert list(ours.state_dict()) == list(ref.state_dict()), cls
        assert [tuple(v.shape) for v in ours.state_dict().values()] == \
            [tuple(v.shape) for v in ref.state_dict().values()]
        assert repr(ours) == repr(ref)
    lstm = tandem.nn.LSTM(3, 4, num_layers=2)
    assert [len(w) for w in lstm.all_weights] == [4, 4]
    lstm.flatten_parameters()  # accepted (PyTorch programs call it)


def test_initialisation_is_uniform_within_one_over_sqrt_hidden():
    tandem.manual_seed(0)
    m = tandem.nn.LSTM(8, 16)
    bound = 1 / 16**0.5
    for p in m.parameters():
        v = N(p)
        assert v.min() >= -bound and v.max() <= bound and v.std() > bound / 3


def test_dropout_between_layers_only_in_training():
    tandem.manual_seed(0)
    m = tandem.nn.GRU(4, 8, num_layers=2, dropout=0.5)
    x = tandem.randn(5, 2, 4)
    m.eval()
    a, _ = m(x)
    b, _ = m(x)
    assert np.array_equal(N(a), N(b))
    m.train()
    c, _ = m(x)
    assert not np.allclose(N(a), N(c))
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1, but got dropout=0.3 "
                                         "and num_layers=1"):
        tandem.nn.LSTM(2, 3, dropout=0.3)


def test_float32_matches_pytorch():
    torch.manual_seed(0)
    ref = torch.nn.LSTM(16, 32, num_layers=2)
    ours = tandem.nn.LSTM(16, 32, num_layers=2)
    ours.load_state_dict({k: tandem.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    x = torch.randn(20, 4, 16)
    out, _ = ref(x)
    tout, _ = ours(tandem.tensor(x.numpy()))
    assert tout.dtype == tandem.float32
    np.testing.assert_allclose(N(tout), out.detach().numpy(), rtol=1e-5, atol=1e-6)


def errors(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e), str(e).replace("torch.", "tandem.")  # dtypes print with their own module
    return None


@pytest.mark.parametrize("make,call", [
    (lambda L: L.nn.LSTM(3, 4), lambda L, m: m(L.zeros(2, 3, 5, dtype=L.float64))),  # dtype mismatch
    (lambda L: L.nn.LSTM(3, 4), lambda L, m: m(L.zeros(2, 3, 5))),  # input_size
    (lambda L: L.nn.GRU(3, 4), lambda L, m: m(L.zeros(2, 3, 3, 1))),  # 4-D input
    (lambda L: L.nn.LSTM(3, 4), lambda L, m: m(L.zeros(2, 3, 3, 1))),
    (lambda L: L.nn.RNN(3, 4), lambda L, m: m(L.zeros(2, 3, 3), L.zeros(1, 2, 4))),  # batch of h0
    (lambda L: L.nn.RNN(3, 4), lambda L, m: m(L.zeros(2, 3, 3), L.zeros(2, 4))),  # 2-D h0 for 3-D input
    (lambda L: L.nn.RNN(3, 4), lambda L, m: m(L.zeros(2, 3), L.zeros(1, 1, 4))),
    (lambda L: L.nn.LSTM(3, 4), lambda L, m: m(L.zeros(2, 3, 3), (L.zeros(1, 3, 4), L.zeros(1, 3, 5)))),
    (lambda L: L.nn.LSTM(3, 4), lambda L, m: m(L.zeros(2, 3, 3), (L.zeros(1, 3, 4), L.zeros(3, 4)))),
    (lambda L: L.nn.LSTM(3, 4, proj_size=2), lambda L, m: m(L.zeros(2, 3, 3), (L.zeros(1, 3, 4), L.zeros(1, 3, 4)))),
    (lambda L: L.nn.LSTMCell(3, 4), lambda L, m: m(L.zeros(2, 2, 3))),
    (lambda L: L.nn.LSTMCell(3, 4), lambda L, m: m(L.zeros(2, 3), (L.zeros(1, 1, 4), L.zeros(2, 4)))),
    (lambda L: L.nn.GRUCell(3, 4), lambda L, m: m(L.zeros(2, 3), L.zeros(1, 1, 4))),
    (lambda L: L.nn.RNNCell(3, 4), lambda L, m: m(L.zeros(1, 1, 3))),
])
def test_forward_errors_match_pytorch(make, call):
    expected = errors(lambda: call(torch, make(torch)))
    assert expected is not None
    assert errors(lambda: call(tandem, make(tandem))) == expected


@pytest.mark.parametrize("make", [
    lambda L: L.nn.LSTM(3, 4, dropout=1.5),
    lambda L: L.nn.LSTM(3, 4, dropout=True),
    lambda L: L.nn.GRU(3, 4, bias=1),
    lambda L: L.nn.GRU(3, 4, batch_first=None),
    lambda L: L.nn.RNN(3.0, 4),
    lambda L: L.nn.RNN(0, 4),
    lambda L: L.nn.RNN(3, "4"),
    lambda L: L.nn.RNN(3, 0),
    lambda L: L.nn.RNN(3, 4, num_layers=0),
    lambda L: L.nn.RNN(3, 4, nonlinearity="sigmoid"),
    lambda L: L.nn.LSTM(3, 4, proj_size=-1),
    lambda L: L.nn.LSTM(3, 4, proj_size=4),
    lambda L: L.nn.GRU(3, 4, proj_size=2),
])
def test_constructor_errors_match_pytorch(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = errors(lambda: make(torch))
        assert expected is not None
        assert errors(lambda: make(tandem)) == expected


def test_fused_cells_pass_gradcheck(device):
    gen = tandem.Generator().manual_seed(0)
    gates = tandem.randn(3, 8, dtype=tandem.float64, generator=gen).to(device).requires_grad_()
    c = tandem.randn(3, 2, dtype=tandem.float64, generator=gen).to(device).requires_grad_()
    assert tandem.autograd.gradcheck(lambda g, c: tandem._C._lstm_cell(g, c), (gates, c))
    x = tandem.randn(3, 6, dtype=tandem.float64, generator=gen).to(device).requires_grad_()
    hp = tandem.randn(3, 6, dtype=tandem.float64, generator=gen).to(device).requires_grad_()
    h = tandem.randn(3, 2, dtype=tandem.float64, generator=gen).to(device).requires_grad_()
    assert tandem.autograd.gradcheck(tandem._C._gru_cell, (x, hp, h))
    h_new, c_new = tandem._C._lstm_cell(gates, c)
    assert h_new.grad_fn.name() == c_new.grad_fn.name() == "ThnnFusedLstmCellBackward0"


@pytest.mark.parametrize("cls", ["LSTM", "GRU"])
def test_double_backward_matches_pytorch(cls):
    # A gradient penalty through the layer: create_graph rebuilds the cell gradients from differentiable ops.
    ref, ours = twin(cls, 3, 4, num_layers=2)
    x = torch.randn(5, 2, 3, dtype=torch.float64, requires_grad=True)
    xt = T(x).requires_grad_()
    (gx,) = torch.autograd.grad(ref(x)[0].pow(2).sum(), x, create_graph=True)
    (gxt,) = tandem.autograd.grad(ours(xt)[0].pow(2).sum(), xt, create_graph=True)
    assert_close(gxt, gx)
    gx.pow(2).sum().backward()
    gxt.pow(2).sum().backward()
    for p, rp in zip(ours.parameters(), ref.parameters()):
        assert_close(p.grad, rp.grad)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_layers_compute_in_float(dtype, device):
    ref, ours = twin("LSTM", 8, 16, device=device)
    ours = ours.to(getattr(tandem, dtype))
    x = torch.randn(6, 3, 8, dtype=torch.float64)
    out, _ = ref(x)
    tout, (h, c) = ours(T(x, device).to(getattr(tandem, dtype)))
    assert tout.dtype == h.dtype == c.dtype == getattr(tandem, dtype)
    tol = 2e-2 if dtype == "bfloat16" else 3e-3
    np.testing.assert_allclose(N(tout.double()), out.detach().numpy(), atol=tol, rtol=tol)
    tout.float().sum().backward()
    assert all(p.grad is not None and p.grad.dtype == getattr(tandem, dtype) for p in ours.parameters())


def test_cell_op_errors():
    with pytest.raises(RuntimeError, match=r"lstm_cell: gates must have shape \[2, 12\], got \[2, 8\]"):
        tandem._C._lstm_cell(tandem.zeros(2, 8), tandem.zeros(2, 3))
    with pytest.raises(RuntimeError, match="gru_cell: hidden projection is float64 on cpu but the other operands "
                                           "are float32 on cpu"):
        tandem._C._gru_cell(tandem.zeros(2, 9), tandem.zeros(2, 9, dtype=tandem.float64), tandem.zeros(2, 3))
    with pytest.raises(RuntimeError, match="lstm_cell: expected a floating-point dtype, got int64"):
        tandem._C._lstm_cell(tandem.zeros(2, 8, dtype=tandem.int64), tandem.zeros(2, 2, dtype=tandem.int64))


@pytest.mark.parametrize("cls,kw", [("RNN", {}), ("LSTM", {"num_layers": 2, "bidirectional": True}),
                                    ("GRU", {"batch_first": True})])
def test_a_batch_of_no_sequences_runs_as_pytorch(device, cls, kw):
    # PyTorch runs a (L, 0, F) input (an empty last batch of a dataset split); only zero time steps are refused.
    ref, ours = twin(cls, 3, 4, device=device, **kw)
    shape = (0, 5, 3) if kw.get("batch_first") else (5, 0, 3)
    out_p, h_p = ref(torch.zeros(shape, dtype=torch.float64))
    out_t, h_t = ours(tandem.zeros(shape, dtype=tandem.float64, device=device))
    for t, p in zip([out_t, *flat_states(h_t)], [out_p, *flat_states(h_p)]):
        assert tuple(t.shape) == tuple(p.shape) and t.dtype == tandem.float64 and str(t.device) == device
    (out_t.sum() + flat_states(h_t)[0].sum()).backward()
    for name, param in ours.named_parameters():
        assert str(param.grad.device) == device and not N(param.grad).any(), name
    with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0 in RNN"):
        ours(tandem.zeros((5, 0, 3) if kw.get("batch_first") else (0, 2, 3), dtype=tandem.float64, device=device))
