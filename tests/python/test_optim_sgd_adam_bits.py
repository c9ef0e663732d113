"""The fused SGD and Adam/AdamW updates (kernels/optim_functors.h) against PyTorch's single-tensor path, op by
op: SGD bit for bit (each add(alpha=) one fused multiply-add), Adam's moments bit for bit (lerp_ by 1 - beta1 and
addcmul_ by 1 - beta2, each 1 - beta computed in double), its parameters within what PyTorch's not correctly
rounded CPU sqrt (test_optim_fused.py) grows to. Until session 39 the SGD kernel rounded every product and the
Adam kernel took 1 - beta in float32 (1 - 0.999f: exp_avg_sq 1.3e-5 relative off, so a hand-written Adam failed
torch.allclose against torch.optim.Adam)."""
import itertools

import numpy as np
import pytest
import torch

import tandem

DEVICES = ["cpu", "cuda:0"]
STEPS = 5


def run(lib, opt_name, cfg, dtype, device="cpu"):
    rng = np.random.default_rng(11)
    init = rng.standard_normal(257)
    grads = [rng.standard_normal(257) for _ in range(STEPS)]
    dt = getattr(lib, dtype)
    kw = {"device": device} if lib is tandem else {}
    p = lib.nn.Parameter(lib.tensor(init, dtype=dt, **kw))
    opt = getattr(lib.optim, opt_name)([p], **cfg)
    for g in grads:
        p.grad = lib.tensor(g, dtype=dt, **kw)
        opt.step()
    state = {k: v.cpu().tolist() for k, v in opt.state[p].items() if isinstance(v, lib.Tensor) and v.dim() > 0}
    return p.detach().cpu().tolist(), state


SGD_GRID = [dict(zip(("lr", "momentum", "nesterov", "dampening", "weight_decay", "maximize"), v)) for v in
            itertools.product([0.1], [0.0, 0.9], [False, True], [0.0, 0.3], [0.0, 0.05], [False, True])
            if not (v[2] and (v[1] == 0 or v[3] != 0))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cfg", SGD_GRID, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_sgd_matches_torch_bit_for_bit(cfg, dtype):
    assert run(tandem, "SGD", cfg, dtype) == run(torch, "SGD", cfg, dtype)


@pytest.mark.parametrize("device", DEVICES)
def test_sgd_on_each_device(device):
    cfg = dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)
    assert run(tandem, "SGD", cfg, "float32", device) == run(torch, "SGD", cfg, "float32")


ADAM_GRID = [("Adam", {}), ("Adam", {"weight_decay": 0.1}), ("AdamW", {"weight_decay": 0.1}),
             ("Adam", {"amsgrad": True}), ("Adam", {"maximize": True, "betas": (0.3, 0.5)})]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, cfg", ADAM_GRID, ids=lambda x: x if isinstance(x, str) else str(x))
def test_adam_moments_bit_for_bit_and_params_close(name, cfg, dtype, device):
    cfg = dict(lr=0.01, **cfg)
    got_p, got_state = run(tandem, name, cfg, dtype, device)
    want_p, want_state = run(torch, name, cfg, dtype)
    # The first step's moments read the gradient only (no sqrt yet): bit for bit. Later steps go through
    # parameters that PyTorch's sqrt rounded, but the moments never read the parameters without decay.
    if "weight_decay" not in cfg:
        assert got_state["exp_avg"] == want_state["exp_avg"]
        assert got_state["exp_avg_sq"] == want_state["exp_avg_sq"]
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(got_p, want_p, **tol)
    for key in want_state:
        np.testing.assert_allclose(got_state[key], want_state[key], **tol)
