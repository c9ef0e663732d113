"""ASGD, Rprop, Adafactor and SparseAdam against PyTorch on every device: several steps with param groups,
state_dict round trips (resuming gives the same trajectory), argument checks and errors."""
import copy

import pytest
import torch

import tandem
from oracle import assert_same, from_torch

CASES = [
    ("ASGD", dict(lr=0.05, t0=2)),
    ("ASGD", dict(weight_decay=0.1, maximize=True, lambd=1e-2)),
    ("Rprop", dict()),
    ("Rprop", dict(lr=0.1, etas=(0.4, 1.5), step_sizes=(1e-3, 0.2), maximize=True)),
    ("Adafactor", dict()),
    ("Adafactor", dict(weight_decay=0.1, lr=0.05, d=1.5)),
    ("Adafactor", dict(eps=(1e-5, 1e-3), beta2_decay=-0.5, maximize=True)),
]


def _params(gen, dtype):
    return [torch.randn(3, 4, dtype=dtype, generator=gen), torch.randn(5, dtype=dtype, generator=gen),
            torch.randn(2, 3, 4, dtype=dtype, generator=gen)]


def _run(opt_t, opt_d, tp, dp, gen, steps, device):
    for _ in range(steps):
        grads = [torch.randn(p.shape, dtype=p.dtype, generator=gen) for p in tp]
        for p, g in zip(tp, grads):
            p.grad = g
        for p, g in zip(dp, grads):
            p.grad = from_torch(g, device)
        opt_t.step()
        opt_d.step()


@pytest.mark.parametrize("name,kwargs", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_steps_match_pytorch(device, name, kwargs, dtype):
    gen = torch.Generator().manual_seed(len(name) + len(kwargs))
    tdt = getattr(torch, dtype)
    tp = [p.requires_grad_() for p in _params(gen, tdt)]
    dp = [from_torch(p.detach(), device).requires_grad_() for p in tp]
    # Two param groups, the second with its own lr.
    opt_t = getattr(torch.optim, name)([{"params": tp[:2]}, {"params": tp[2:], "lr": 0.02}], **kwargs)
    opt_d = getattr(tandem.optim, name)([{"params": dp[:2]}, {"params": dp[2:], "lr": 0.02}], **kwargs)
    _run(opt_t, opt_d, tp, dp, gen, 5, device)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)
    for a, b in zip(dp, tp):
        assert_same(a.detach(), b.detach(), **tol)
        assert a.device == tandem.device(device)
    sd_t, sd_d = opt_t.state_dict(), opt_d.state_dict()
    assert [sorted(g) for g in sd_d["param_groups"]] == [sorted(g) for g in sd_t["param_groups"]]
    assert [g["params"] for g in sd_d["param_groups"]] == [g["params"] for g in sd_t["param_groups"]]
    assert sorted(sd_d["state"]) == sorted(sd_t["state"])
    for k in sd_t["state"]:
        assert sorted(sd_d["state"][k]) == sorted(sd_t["state"][k])
        for key, value in sd_t["state"][k].items():
            assert_same(sd_d["state"][k][key], value, **tol)

    # Round trip: fresh optimizers loaded from the state dicts continue alike. (Loading casts floating state to
    # the parameter's dtype in both libraries, e.g. ASGD's float32 eta, so the reference is reloaded as well.)
    tp2 = [p.detach().clone().requires_grad_() for p in tp]
    dp2 = [from_torch(p.detach(), device).requires_grad_() for p in tp]
    opt_t2 = getattr(torch.optim, name)([{"params": tp2[:2]}, {"params": tp2[2:], "lr": 0.5}], **kwargs)
    opt_d2 = getattr(tandem.optim, name)([{"params": dp2[:2]}, {"params": dp2[2:], "lr": 0.5}], **kwargs)
    opt_t2.load_state_dict(copy.deepcopy(sd_t))
    opt_d2.load_state_dict(copy.deepcopy(sd_d))
    assert opt_d2.param_groups[1]["lr"] == 0.02
    _run(opt_t2, opt_d2, tp2, dp2, gen, 3, device)
    for a, b in zip(dp2, tp2):
        assert_same(a.detach(), b.detach(), **tol)


def test_repr_and_defaults():
    for name in ("ASGD", "Rprop", "Adafactor", "SparseAdam"):
        p = torch.zeros(2, requires_grad=True)
        q = tandem.zeros(2, requires_grad=True)
        want = repr(getattr(torch.optim, name)([p]))
        got = repr(getattr(tandem.optim, name)([q]))
        # tandem's param groups leave out PyTorch's fused/capturable/differentiable/foreach internals where the
        # constructor does not take them; every key tandem prints is PyTorch's, with PyTorch's value.
        want_lines = set(want.splitlines())
        assert set(got.splitlines()) <= want_lines, (got, want)


@pytest.mark.parametrize("name,kwargs", [
    ("ASGD", dict(lr=-1)), ("ASGD", dict(lambd=-1)), ("ASGD", dict(alpha=-1)), ("ASGD", dict(weight_decay=-1)),
    ("Rprop", dict(lr=-1)), ("Rprop", dict(etas=(1.5, 1.2))), ("Rprop", dict(etas=(0.5, 0.9))),
    ("Adafactor", dict(lr=-1)), ("Adafactor", dict(beta2_decay=0.5)), ("Adafactor", dict(eps=(-1, 1e-3))),
    ("Adafactor", dict(eps=(None, -1))), ("Adafactor", dict(d=0.5)), ("Adafactor", dict(weight_decay=-1)),
    ("SparseAdam", dict(lr=0)), ("SparseAdam", dict(eps=0)), ("SparseAdam", dict(betas=(1.0, 0.9))),
    ("SparseAdam", dict(betas=(0.9, -0.1))),
])
def test_argument_errors(name, kwargs):
    with pytest.raises(ValueError) as want:
        getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)], **kwargs)
    with pytest.raises(ValueError) as got:
        getattr(tandem.optim, name)([tandem.zeros(1, requires_grad=True)], **kwargs)
    assert str(got.value) == str(want.value)


def test_sparse_adam_refuses_dense_gradients(device):
    """tandem has no sparse tensors, so every gradient is dense: SparseAdam refuses it as PyTorch does."""
    tp = torch.zeros(3, requires_grad=True)
    tp.grad = torch.ones(3)
    with pytest.raises(RuntimeError) as want:
        torch.optim.SparseAdam([tp]).step()
    dp = tandem.zeros(3, device=device, requires_grad=True)
    dp.grad = tandem.ones(3, device=device)
    opt = tandem.optim.SparseAdam([dp])
    with pytest.raises(RuntimeError) as got:
        opt.step()
    assert str(got.value).split("\nhint:")[0] == str(want.value)
    # Without gradients a step does nothing, and the state dict round-trips.
    dp.grad = None
    opt.step()
    assert opt.state_dict()["param_groups"][0]["betas"] == (0.9, 0.999)
    opt.load_state_dict(opt.state_dict())
