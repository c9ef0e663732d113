"""PyTorch's optimizer implementation switches (foreach, fused, capturable, differentiable) and tensor learning
rates: accepted with PyTorch's signatures, param-group keys and errors; every setting gives the same update."""
import inspect

import pytest
import torch

import tandem
from oracle import assert_same_error

NAMES = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "LBFGS"]


def make(lib, name, params, **kw):
    if name == "SGD":
        kw.setdefault("lr", 0.1)
    return getattr(lib.optim, name)(params, **kw)


@pytest.mark.parametrize("name", NAMES)
def test_signature_matches_pytorch(name):
    want = inspect.signature(getattr(torch.optim, name).__init__).parameters
    got = inspect.signature(getattr(tandem.optim, name).__init__).parameters
    assert [(p.name, p.kind, p.default) for p in got.values()] == [(p.name, p.kind, p.default) for p in want.values()]


@pytest.mark.parametrize("name", NAMES)
def test_param_group_keys_match_pytorch(name):
    want = make(torch, name, [torch.nn.Parameter(torch.zeros(2))]).param_groups[0]
    got = make(tandem, name, [tandem.nn.Parameter(tandem.zeros(2))]).param_groups[0]
    assert sorted(got) == sorted(want)
    assert {k: v for k, v in got.items() if k != "params"} == {k: v for k, v in want.items() if k != "params"}


@pytest.mark.parametrize("name", NAMES + ["ASGD", "Rprop", "SparseAdam"])
def test_param_group_keys_come_in_pytorchs_order(name):
    # Printed or logged optimizer state (print(opt.state_dict()), json.dumps of the param groups; program sweep
    # 'sweepgen') shows the keys in the order of PyTorch's defaults dict.
    want = make(torch, name, [torch.nn.Parameter(torch.zeros(2))])
    got = make(tandem, name, [tandem.nn.Parameter(tandem.zeros(2))])
    assert list(got.defaults) == list(want.defaults)
    assert list(got.param_groups[0]) == list(want.param_groups[0])
    assert repr(got.state_dict()["param_groups"]) == repr(want.state_dict()["param_groups"])
    # A group added later is filled in from the defaults in the same order.
    got.add_param_group({"params": [tandem.nn.Parameter(tandem.zeros(1))]})
    want.add_param_group({"params": [torch.nn.Parameter(torch.zeros(1))]})
    assert list(got.param_groups[1]) == list(want.param_groups[1])


@pytest.mark.parametrize("case", [
    lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.zeros(2))], fused=True, foreach=True),
    lambda lib: lib.optim.Adagrad([lib.nn.Parameter(lib.zeros(2))], fused=True, foreach=True),
    lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.zeros(2))], lr=0.1, fused=True, differentiable=True),
    lambda lib: lib.optim.AdamW([lib.nn.Parameter(lib.zeros(2))], fused=True, differentiable=True),
    lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.zeros(2))], lr=lib.tensor([0.1, 0.2])),
    lambda lib: lib.optim.RMSprop([lib.nn.Parameter(lib.zeros(2))], lr=lib.tensor([0.1, 0.2])),
    lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.zeros(2))], lr=lib.tensor(0.1), foreach=True),
    lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.zeros(2))], lr=lib.tensor(-1.0)),
])
def test_switch_errors_match_pytorch(case):
    assert_same_error(case)


def run_steps(lib, name, device, steps=3, **kw):
    lib_device = device if lib is tandem else "cpu"
    gen = torch.Generator().manual_seed(0)
    start = torch.randn(5, generator=gen, dtype=torch.float64)
    grads = [torch.randn(5, generator=gen, dtype=torch.float64) for _ in range(steps)]
    p = lib.nn.Parameter(lib.tensor(start.tolist(), dtype=lib.float64, device=lib_device))
    opt = make(lib, name, [p], weight_decay=0.01, **kw) if name != "LBFGS" else None
    for g in grads:
        p.grad = lib.tensor(g.tolist(), dtype=lib.float64, device=lib_device)
        opt.step()
    return p.detach().cpu().tolist()


@pytest.mark.parametrize("name,switches", [
    ("SGD", dict(foreach=True)), ("SGD", dict(fused=True)), ("Adam", dict(fused=True)),
    ("Adam", dict(foreach=False)), ("AdamW", dict(fused=True)), ("Adagrad", dict(fused=True)),
    ("RMSprop", dict(foreach=True)), ("Adadelta", dict(foreach=True)), ("Adamax", dict(foreach=True)),
    ("NAdam", dict(foreach=True)), ("RAdam", dict(foreach=False)),
])
def test_switches_give_pytorch_updates(name, switches, device):
    got = run_steps(tandem, name, device, **switches)
    assert got == pytest.approx(run_steps(torch, name, "cpu", **switches), rel=1e-12, abs=1e-12)
    assert got == run_steps(tandem, name, device)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "NAdam"])
def test_tensor_lr_is_read_each_step_and_stays_a_tensor(name, device):
    got = run_steps(tandem, name, device, lr=tandem.tensor(0.05))
    assert got == pytest.approx(run_steps(torch, name, "cpu", lr=torch.tensor(0.05)), rel=1e-6)
    p = tandem.nn.Parameter(tandem.zeros(3, device=device))
    opt = make(tandem, name, [p], lr=tandem.tensor(0.05))
    sched = tandem.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    lr = opt.param_groups[0]["lr"]
    p.grad = tandem.ones(3, device=device)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] is lr and isinstance(lr, tandem.Tensor)
    assert lr.item() == pytest.approx(0.025)


def test_capturable_needs_device_parameters(device):
    p = tandem.nn.Parameter(tandem.zeros(3, device=device))
    p.grad = tandem.ones(3, device=device)
    opt = tandem.optim.Adam([p], capturable=True)
    if device == "cpu":
        with pytest.raises(AssertionError, match=r"^If capturable=True, params and state_steps must be on supported "
                           r"devices: \['cuda', 'xpu', 'hpu', 'privateuseone', 'xla'\]\.$"):
            opt.step()
        assert p.tolist() == [0.0, 0.0, 0.0]
    else:
        opt.step()
        assert p.detach().cpu().tolist() == pytest.approx([-1e-3] * 3, rel=1e-5)


def test_differentiable_is_refused_at_step():
    p = tandem.nn.Parameter(tandem.zeros(3))
    p.grad = tandem.ones(3)
    opt = tandem.optim.Adam([p], differentiable=True)
    assert opt.param_groups[0]["differentiable"] is True
    with pytest.raises(NotImplementedError, match=r"^Adam\(differentiable=True\) is not supported"):
        opt.step()


def test_state_dict_round_trip_keeps_switches():
    p = tandem.nn.Parameter(tandem.zeros(3))
    opt = tandem.optim.AdamW([p], fused=True, capturable=False)
    p.grad = tandem.ones(3)
    opt.step()
    other = tandem.optim.AdamW([p])
    other.load_state_dict(opt.state_dict())
    assert other.param_groups[0]["fused"] is True
    assert other.param_groups[0]["decoupled_weight_decay"] is True


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "NAdam"])
def test_channels_last_parameters_step_like_contiguous_ones(name, device):
    """model.to(memory_format=channels_last) gives conv weights channels-last strides; the fused updates walk
    parameter, gradient and state in the parameter's element order, and state_dict round trips keep it."""
    def train(memory_format):
        tandem.manual_seed(0)
        conv = tandem.nn.Conv2d(3, 4, 3).to(device=device, dtype=tandem.float64, memory_format=memory_format)
        kw = dict(lr=0.1, momentum=0.9) if name == "SGD" else {}
        opt = getattr(tandem.optim, name)(conv.parameters(), **kw)
        x = tandem.randn(2, 3, 6, 6, dtype=tandem.float64, device=device).contiguous(memory_format=memory_format)
        for step in range(3):
            conv(x).square().sum().backward()
            opt.step()
            opt.zero_grad()
            if step == 1:
                opt.load_state_dict(opt.state_dict())
        return conv.weight
    plain, last = train(tandem.contiguous_format), train(tandem.channels_last)
    assert last.is_contiguous(memory_format=tandem.channels_last) and not last.is_contiguous()
    torch.testing.assert_close(last.detach().cpu().contiguous().numpy(), plain.detach().cpu().numpy(),
                               rtol=1e-12, atol=1e-12)


def test_fused_updates_refuse_gapped_parameters_and_mismatched_state():
    p = tandem.nn.Parameter(tandem.ones(8)[::2])  # a view with gaps: the flat walk would skip elements
    p.grad = tandem.ones(4)
    with pytest.raises(NotImplementedError, match=r"^adam: the parameter is a view with gaps between its elements"):
        tandem.optim.Adam([p]).step()
    w = tandem.nn.Parameter(tandem.ones(2, 3, 4, 5).contiguous(memory_format=tandem.channels_last))
    w.grad = tandem.ones(2, 3, 4, 5)
    opt = tandem.optim.SGD([w], lr=0.1, momentum=0.9)
    opt.step()
    opt.state[w]["momentum_buffer"] = tandem.zeros(2, 3, 4, 5)  # row-major state for a channels-last parameter
    with pytest.raises(RuntimeError, match=r"^sgd: momentum_buffer of shape \[2, 3, 4, 5\] .* does not match"):
        opt.step()
