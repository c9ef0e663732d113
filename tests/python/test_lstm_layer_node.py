"""nn.LSTM without projection runs each layer and direction as one autograd node (_LstmLayer in
nn/_rnn_engine.py: the steps' gates in one buffer, the weight gradients one product each). What test_rnn.py does not
reach: sequences of different lengths with initial states that require grad (both directions hand rows to and
from the initial state mid-sequence), outputs only partly used (gradients that never arrive), no biases,
second derivatives through packed bidirectional layers, retain_graph, an input modified after the forward, and
empty batches. PyTorch (float64) is the oracle."""
import numpy as np
import pytest
import torch

import tandem
from tandem.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


def T(x, device="cpu"):
    return tandem.tensor(x.detach().numpy()).to(device)


def assert_close(ours, ref, tol=1e-10):
    assert tuple(ours.shape) == tuple(ref.shape)
    assert ours.dtype == tandem.float64
    np.testing.assert_allclose(ours.detach().cpu().numpy(), ref.detach().numpy(), rtol=tol, atol=tol)


def twin(device, input_size=3, hidden=4, **kw):
    torch.manual_seed(0)
    ref = torch.nn.LSTM(input_size, hidden, dtype=torch.float64, **kw)
    ours = tandem.nn.LSTM(input_size, hidden, dtype=tandem.float64, **kw).to(device)
    ours.load_state_dict({k: T(v, device) for k, v in ref.state_dict().items()})
    return ref, ours


def states(ref, batch, device):
    gen = torch.Generator().manual_seed(3)
    shape = (ref.num_layers * (2 if ref.bidirectional else 1), batch, ref.hidden_size)
    h0, c0 = (torch.randn(shape, dtype=torch.float64, generator=gen, requires_grad=True) for _ in range(2))
    return (h0, c0), tuple(T(s, device).requires_grad_() for s in (h0, c0))


def assert_grads_match(ours, ref, pairs):
    for (name, p), (rname, rp) in zip(ours.named_parameters(), ref.named_parameters()):
        assert name == rname
        assert_close(p.grad, rp.grad)
    for a, b in pairs:
        assert_close(a.grad, b.grad)


@pytest.mark.parametrize("lengths", [[2, 5, 1, 4], [5, 5, 5, 5], [3, 1, 3, 2]])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_packed_lengths_with_initial_states_that_require_grad(lengths, bidirectional, device):
    ref, ours = twin(device, num_layers=2, bidirectional=bidirectional)
    x = torch.randn(max(lengths), 4, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1),
                    requires_grad=True)
    xt = T(x, device).requires_grad_()
    hx, thx = states(ref, 4, device)
    out, (h, c) = ref(torch.nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=False), hx)
    tout, (th, tc) = ours(pack_padded_sequence(xt, lengths, enforce_sorted=False), thx)
    padded, _ = torch.nn.utils.rnn.pad_packed_sequence(out)
    tpadded, _ = pad_packed_sequence(tout)
    for a, b in [(tpadded, padded), (th, h), (tc, c)]:
        assert_close(a, b)
    gen = torch.Generator().manual_seed(2)
    w = [torch.randn(t.shape, dtype=torch.float64, generator=gen) for t in (padded, h, c)]
    sum((t * v).sum() for t, v in zip((padded, h, c), w)).backward()
    sum((t * T(v, device)).sum() for t, v in zip((tpadded, th, tc), w)).backward()
    assert_grads_match(ours, ref, [(xt, x), (thx[0], hx[0]), (thx[1], hx[1])])


USES = {
    "last output": lambda out, h, c: out[-1].sum(),
    "c_n only": lambda out, h, c: c.pow(2).sum(),
    "h_n only": lambda out, h, c: h.sum(),
    "first and last steps": lambda out, h, c: out[0].sum() + 2 * out[-1].sum(),
}


@pytest.mark.parametrize("use", list(USES))
@pytest.mark.parametrize("bidirectional", [False, True])
def test_outputs_partly_used(use, bidirectional, device):
    # Gradients of unused outputs never arrive at the node (it takes them as None, not zeros).
    ref, ours = twin(device, num_layers=2, bidirectional=bidirectional)
    x = torch.randn(5, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1), requires_grad=True)
    xt = T(x, device).requires_grad_()
    hx, thx = states(ref, 2, device)
    USES[use](*_flat(ref(x, hx))).backward()
    USES[use](*_flat(ours(xt, thx))).backward()
    assert_grads_match(ours, ref, [(xt, x), (thx[0], hx[0]), (thx[1], hx[1])])


def _flat(result):
    out, (h, c) = result
    return out, h, c


def test_no_biases_and_batch_first(device):
    ref, ours = twin(device, bias=False, batch_first=True, num_layers=2)
    x = torch.randn(2, 6, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1), requires_grad=True)
    xt = T(x, device).requires_grad_()
    out, (h, c) = ref(x)
    tout, (th, tc) = ours(xt)
    assert_close(tout, out)
    (out.sum() + c.sum()).backward()
    (tout.sum() + tc.sum()).backward()
    assert [n for n, _ in ours.named_parameters()] == ["weight_ih_l0", "weight_hh_l0", "weight_ih_l1",
                                                        "weight_hh_l1"]
    assert_grads_match(ours, ref, [(xt, x)])


@pytest.mark.parametrize("bidirectional", [False, True])
def test_second_derivatives_through_packed_layers(bidirectional):
    # create_graph: the node rebuilds the per-step graph and differentiates it, so a gradient penalty reaches
    # every weight.
    ref, ours = twin("cpu", num_layers=2, bidirectional=bidirectional)
    lengths = [4, 2, 3]
    x = torch.randn(4, 3, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1), requires_grad=True)
    xt = T(x).requires_grad_()
    hx, thx = states(ref, 3, "cpu")
    out, (h, c) = ref(torch.nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=False), hx)
    tout, (th, tc) = ours(pack_padded_sequence(xt, lengths, enforce_sorted=False), thx)
    gx, gh = torch.autograd.grad(out.data.pow(2).sum() + c.sum(), (x, hx[0]), create_graph=True)
    tgx, tgh = tandem.autograd.grad(tout.data.pow(2).sum() + tc.sum(), (xt, thx[0]), create_graph=True)
    assert_close(tgx, gx)
    assert_close(tgh, gh)
    (gx.pow(2).sum() + gh.sum()).backward()
    (tgx.pow(2).sum() + tgh.sum()).backward()
    assert_grads_match(ours, ref, [(xt, x), (thx[1], hx[1])])


def test_gradcheck_of_one_layer(device):
    ours = tandem.nn.LSTM(2, 3, dtype=tandem.float64, bidirectional=True).to(device)
    x = tandem.randn(3, 2, 2, dtype=tandem.float64, generator=tandem.Generator().manual_seed(0)).to(device)
    h0 = tandem.zeros(2, 2, 3, dtype=tandem.float64, device=device).requires_grad_()
    c0 = tandem.rand(2, 2, 3, dtype=tandem.float64, generator=tandem.Generator().manual_seed(1)).to(device)
    x.requires_grad_()
    c0.requires_grad_()

    def f(x, h0, c0):
        out, (h, c) = ours(x, (h0, c0))
        return out, h, c

    assert tandem.autograd.gradcheck(f, (x, h0, c0))
    assert tandem.autograd.gradgradcheck(f, (x, h0, c0))


def test_retain_graph_and_a_second_backward(device):
    ref, ours = twin(device)
    xt = T(torch.randn(3, 2, 3, dtype=torch.float64), device)
    out, _ = ours(xt)
    out.sum().backward(retain_graph=True)
    once = ours.weight_hh_l0.grad.clone()
    out.sum().backward()
    assert_close(ours.weight_hh_l0.grad, 2 * torch.tensor(once.cpu().numpy()))
    out, _ = ours(xt)
    out.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.sum().backward()


def test_input_modified_after_the_forward_is_refused(device):
    ours = tandem.nn.LSTM(3, 4).to(device)
    x = tandem.randn(3, 2, 3, device=device).requires_grad_()
    y = x * 1  # a non-leaf the layer saves
    out, _ = ours(y)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_empty_batch(device):
    ref, ours = twin(device, num_layers=2, bidirectional=True)
    x = torch.randn(3, 0, 3, dtype=torch.float64, requires_grad=True)
    xt = T(x, device).requires_grad_()
    out, (h, c) = ref(x)
    tout, (th, tc) = ours(xt)
    for a, b in [(tout, out), (th, h), (tc, c)]:
        assert_close(a, b)
    (out.sum() + c.sum()).backward()
    (tout.sum() + tc.sum()).backward()
    assert_grads_match(ours, ref, [(xt, x)])


def test_inference_and_float32(device):
    # Without grad the same node's forward runs (nothing recorded); float32 stays float32.
    ref, ours = twin(device, num_layers=2)
    ref, ours = ref.float(), ours.float()
    x = torch.randn(4, 2, 3, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        out, (h, c) = ref(x)
    with tandem.no_grad():
        tout, (th, tc) = ours(tandem.tensor(x.numpy()).to(device))
    assert tout.dtype == tandem.float32 and tout.grad_fn is None and tc.grad_fn is None
    np.testing.assert_allclose(tout.cpu().numpy(), out.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tc.cpu().numpy(), c.numpy(), rtol=1e-5, atol=1e-6)


def test_one_node_per_layer_and_direction():
    ours = tandem.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    out, (h, c) = ours(tandem.randn(5, 2, 3))
    assert [f.name() for f, _ in c.grad_fn.next_functions] == ["_LstmLayerBackward"] * 4
    # Every step's output of one direction comes from the same node.
    steps = out.grad_fn.next_functions[0][0].next_functions
    assert len(steps) == 5 and len({id(f) for f, _ in steps}) == 1
