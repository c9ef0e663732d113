"""optim: SGD/Adam/AdamW steps against PyTorch's, param groups, state dicts and the lr schedulers."""
import math

import pytest
import torch

import tandem
from tandem import nn, optim


def T(t, dtype=None):
    return tandem.tensor(t.tolist(), dtype=dtype or getattr(tandem, str(t.dtype).replace("torch.", "")))


def make_pair(shapes, dtype=torch.float32, device="cpu"):
    torch.manual_seed(0)
    ref = [torch.nn.Parameter(torch.randn(s, dtype=dtype)) for s in shapes]
    ours = [nn.Parameter(T(p.detach()).to(device)) for p in ref]
    return ref, ours


def run(ref_opt, our_opt, ref, ours, steps=5, device="cpu"):
    g = torch.Generator().manual_seed(1)
    for _ in range(steps):
        for r, o in zip(ref, ours):
            grad = torch.randn(r.shape, generator=g, dtype=r.dtype)
            r.grad = grad
            o.grad = T(grad).to(device)
        ref_opt.step()
        our_opt.step()
    for r, o in zip(ref, ours):
        torch.testing.assert_close(torch.tensor(o.cpu().tolist(), dtype=r.dtype), r.detach(), atol=1e-5, rtol=1e-5)


SGD_CONFIGS = [
    dict(lr=0.1),
    dict(lr=0.1, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01),
    dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1),
    dict(lr=0.1, momentum=0.5, maximize=True),
]


@pytest.mark.parametrize("cfg", SGD_CONFIGS)
def test_sgd_matches_torch(cfg, device):
    ref, ours = make_pair([(3, 4), (5,), ()], device=device)
    run(torch.optim.SGD(ref, **cfg), optim.SGD(ours, **cfg), ref, ours, device=device)


ADAM_CONFIGS = [
    dict(lr=0.01),
    dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1),
    dict(lr=0.01, amsgrad=True),
    dict(lr=0.02, weight_decay=0.05, amsgrad=True, maximize=True),
]


@pytest.mark.parametrize("cls", ["Adam", "AdamW"])
@pytest.mark.parametrize("cfg", ADAM_CONFIGS)
def test_adam_matches_torch(cls, cfg, device):
    ref, ours = make_pair([(3, 4), (7,)], device=device)
    run(getattr(torch.optim, cls)(ref, **cfg), getattr(optim, cls)(ours, **cfg), ref, ours, steps=6, device=device)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_other_float_dtypes(dtype):
    ref, ours = make_pair([(4, 4)], dtype=dtype)
    g = torch.randn(4, 4, dtype=dtype)
    for opt_t, opt_o in [(torch.optim.SGD(ref, lr=0.1, momentum=0.9), optim.SGD(ours, lr=0.1, momentum=0.9)),
                         (torch.optim.Adam(ref, lr=0.01), optim.Adam(ours, lr=0.01))]:
        ref[0].grad, ours[0].grad = g, T(g)
        opt_t.step()
        opt_o.step()
    tol = 1e-10 if dtype == torch.float64 else 2e-2
    torch.testing.assert_close(torch.tensor(ours[0].tolist(), dtype=dtype), ref[0].detach(), atol=tol, rtol=tol)


def test_params_without_grad_are_skipped_and_groups_have_own_lr():
    a, b = nn.Parameter(tandem.ones(2)), nn.Parameter(tandem.ones(2))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[1]["lr"] == 0.5
    a.grad, b.grad = tandem.ones(2), None
    opt.step()
    assert a.tolist() == pytest.approx([0.9, 0.9]) and b.tolist() == [1.0, 1.0]
    b.grad = tandem.ones(2)
    opt.step()
    assert b.tolist() == pytest.approx([0.5, 0.5])


def test_zero_grad():
    p = nn.Parameter(tandem.ones(2))
    opt = optim.SGD([p], lr=0.1)
    p.grad = tandem.ones(2)
    opt.zero_grad(set_to_none=False)
    assert p.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


def test_constructor_errors_match_torch():
    p = nn.Parameter(tandem.ones(1))
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.Adam([p], lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors, but one of the params is int"):
        optim.SGD([1], lr=0.1)
    with pytest.raises(TypeError, match="params argument given to the optimizer should be an iterable"):
        optim.SGD(p, lr=0.1)


def test_state_dict_round_trip_continues_identically(tmp_path):
    ref, ours = make_pair([(3, 3), (3,)])
    opt = optim.Adam(ours, lr=0.01, amsgrad=True)
    for p in ours:
        p.grad = tandem.ones(p.shape)
    opt.step()
    sd = opt.state_dict()
    assert sorted(sd) == ["param_groups", "state"]
    assert sd["param_groups"][0]["params"] == [0, 1]
    assert sorted(sd["state"][0]) == ["exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step"]
    tandem.save(sd, tmp_path / "opt")
    loaded = tandem.load(tmp_path / "opt")

    clones = [nn.Parameter(p.clone()) for p in ours]
    opt2 = optim.Adam(clones, lr=0.5, amsgrad=True)
    opt2.load_state_dict(loaded)
    assert opt2.param_groups[0]["lr"] == 0.01
    for a, b in zip(ours, clones):
        a.grad = tandem.full(a.shape, 0.5)
        b.grad = tandem.full(b.shape, 0.5)
    opt.step()
    opt2.step()
    assert [p.tolist() for p in ours] == [p.tolist() for p in clones]
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt2.load_state_dict({"state": {}, "param_groups": []})


def test_sgd_state_dict_matches_torch_layout():
    ref, ours = make_pair([(2,)])
    o, t = optim.SGD(ours, lr=0.1, momentum=0.9), torch.optim.SGD(ref, lr=0.1, momentum=0.9)
    ours[0].grad, ref[0].grad = tandem.ones(2), torch.ones(2)
    o.step()
    t.step()
    assert sorted(o.state_dict()["state"][0]) == sorted(t.state_dict()["state"][0])
    assert set(o.state_dict()["param_groups"][0]) <= set(t.state_dict()["param_groups"][0])


def lrs(sched_cls, steps, **kw):
    p = nn.Parameter(tandem.ones(1))
    p.grad = tandem.zeros(1)
    opt = optim.SGD([p], lr=0.1)
    s = getattr(optim.lr_scheduler, sched_cls)(opt, **kw)
    out = []
    for _ in range(steps):
        opt.step()
        s.step()
        out.append(s.get_last_lr()[0])
    return out


def torch_lrs(sched_cls, steps, **kw):
    p = torch.nn.Parameter(torch.ones(1))
    opt = torch.optim.SGD([p], lr=0.1)
    s = getattr(torch.optim.lr_scheduler, sched_cls)(opt, **kw)
    out = []
    for _ in range(steps):
        opt.step()
        s.step()
        out.append(s.get_last_lr()[0])
    return out


@pytest.mark.parametrize("name,kw", [("StepLR", dict(step_size=3, gamma=0.5)), ("CosineAnnealingLR", dict(T_max=5)),
                                     ("CosineAnnealingLR", dict(T_max=4, eta_min=0.01))])
def test_schedulers_match_torch(name, kw):
    ours, theirs = lrs(name, 12, **kw), torch_lrs(name, 12, **kw)
    assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-15)


def test_scheduler_state_dict():
    p = nn.Parameter(tandem.ones(1))
    opt = optim.SGD([p], lr=1.0)
    s = optim.lr_scheduler.StepLR(opt, 2, 0.1)
    for _ in range(3):
        s.step()
    sd = s.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 3
    s2 = optim.lr_scheduler.StepLR(optim.SGD([nn.Parameter(tandem.ones(1))], lr=1.0), 2, 0.1)
    s2.load_state_dict(sd)
    assert s2.last_epoch == 3 and math.isclose(s2.get_last_lr()[0], 0.1)


def test_fused_step_errors():
    p = tandem.ones(2, 2)
    with pytest.raises(RuntimeError, match="does not match the parameter"):
        tandem._C._sgd_step(p, tandem.ones(3), None, 0.1, 0, 0, 0, False, False, False)
    with pytest.raises(RuntimeError, match="momentum_buffer of shape \\[2\\]"):
        tandem._C._sgd_step(p, tandem.ones(2, 2), tandem.ones(2), 0.1, 0.9, 0, 0, False, False, False)
    with pytest.raises(RuntimeError, match="parameter of dtype int64 cannot be optimized"):
        tandem._C._adam_step(tandem.ones(2, dtype=tandem.int64), tandem.ones(2), tandem.ones(2), tandem.ones(2),
                             None, 1, 0.1, 0.9, 0.99, 1e-8, 0, False, False, False)


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_duplicate_parameters_in_one_group_warn_and_step_twice_as_pytorch(name, device):
    """PyTorch-GAN's unit.py chains two encoders that share a block: one group lists those parameters twice.
    PyTorch warns (no error) and updates such a parameter once per listing. (With SGD momentum the buffers of
    the two listings follow PyTorch's foreach internals, which tandem does not copy: not compared.)"""
    import torch

    kwargs = {"lr": 0.1}
    p = nn.Parameter(tandem.tensor([1.0, -2.0], device=device))
    q = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    msg = "optimizer contains a parameter group with duplicate parameters; in future, this will cause an error"
    with pytest.warns(UserWarning, match=msg):
        opt = getattr(optim, name)([p, p], **kwargs)
    with pytest.warns(UserWarning, match=msg):
        ref = getattr(torch.optim, name)([q, q], **kwargs)
    for _ in range(2):
        (p * p).sum().backward()
        (q * q).sum().backward()
        opt.step()
        ref.step()
        opt.zero_grad()
        ref.zero_grad()
    torch.testing.assert_close(torch.tensor(p.detach().cpu().tolist()), q.detach(), rtol=1e-5, atol=1e-5)
