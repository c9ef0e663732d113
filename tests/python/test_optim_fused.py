"""The fused updates of RMSprop, Adagrad, Adadelta, Adamax, NAdam and RAdam (one kernel pass per parameter,
kernels/optim_functors.h) against PyTorch's single-tensor path over several steps, params and every state tensor,
for every option combination, in float32 and float64, on every device; float16 within tolerance; channels-last
params; state-dict reloads; mismatched state refused with a clear error.

Adamax must agree bit for bit. The five others take square roots, and PyTorch's CPU sqrt is not correctly rounded
(it calls MKL's vectorised sqrt: about 20% of float32 and 1% of float64 results are 1 ulp off), so those agree to
within what a last-bit difference in a square root grows to over the steps, far tighter than any misplaced term."""
import itertools

import pytest
import torch

import tandem
from tandem import nn, optim

STEPS = 8  # RAdam's rectified update starts at step 6 with betas (0.9, 0.999)
EXACT = dict(rtol=0, atol=0)
SQRT_ULPS = {torch.float32: dict(rtol=1e-5, atol=1e-6), torch.float64: dict(rtol=1e-13, atol=1e-14)}


def tolerance(name, dtype):
    return EXACT if name == "Adamax" else SQRT_ULPS[dtype]


def grid(**options):
    return [dict(zip(options, values)) for values in itertools.product(*options.values())]


# Each optimizer with every option on and off; betas/alpha of 0.3 take lerp's other branch (weight >= 0.5).
CONFIGS = {
    "RMSprop": grid(lr=[0.01], alpha=[0.9, 0.3], momentum=[0, 0.9], centered=[False, True], weight_decay=[0, 0.1],
                    maximize=[False, True]),
    "Adagrad": grid(lr=[0.1], lr_decay=[0, 0.05], weight_decay=[0, 0.1], initial_accumulator_value=[0, 0.5],
                    maximize=[False, True]),
    "Adadelta": grid(lr=[1.0, 0.5], rho=[0.9, 0.5], weight_decay=[0, 0.1], maximize=[False, True]),
    "Adamax": grid(lr=[0.02], betas=[(0.9, 0.999), (0.3, 0.8)], weight_decay=[0, 0.1], maximize=[False, True]),
    "NAdam": grid(lr=[0.02], betas=[(0.9, 0.999), (0.3, 0.8)], momentum_decay=[4e-3, 0.1], weight_decay=[0, 0.1],
                  decoupled_weight_decay=[False, True], maximize=[False, True]),
    "RAdam": grid(lr=[0.02], betas=[(0.9, 0.999), (0.8, 0.9)], weight_decay=[0, 0.1],
                  decoupled_weight_decay=[False, True], maximize=[False, True]),
}
RICH = {name: configs[-1] for name, configs in CONFIGS.items()}
CASES = [(name, cfg) for name, configs in CONFIGS.items() for cfg in configs]


def case_id(x):
    return x if isinstance(x, str) else "-".join(f"{k}={v}" for k, v in x.items())


def to_tandem(t, device="cpu"):
    return tandem.tensor(t.tolist(), dtype=getattr(tandem, str(t.dtype).replace("torch.", ""))).to(device)


def to_torch(t):
    return torch.tensor(t.detach().cpu().tolist(), dtype=getattr(torch, str(t.dtype).replace("tandem.", "")))


def run_pair(name, cfg, device, dtype, shapes=((3, 4), (5,), ()), steps=STEPS, check=None):
    """Runs torch's and tandem's optimizer side by side; check(ref_params, our_params, ref_opt, our_opt) after
    every step."""
    torch.manual_seed(0)
    ref = [torch.nn.Parameter(torch.randn(s, dtype=dtype)) for s in shapes]
    ours = [nn.Parameter(to_tandem(p.detach(), device)) for p in ref]
    ref_opt = getattr(torch.optim, name)(ref, foreach=False, **cfg)
    our_opt = getattr(optim, name)(ours, **cfg)
    gen = torch.Generator().manual_seed(1)
    for _ in range(steps):
        for r, o in zip(ref, ours):
            grad = torch.randn(r.shape, generator=gen, dtype=dtype)
            r.grad, o.grad = grad, to_tandem(grad, device)
        ref_opt.step()
        our_opt.step()
        check(ref, ours, ref_opt, our_opt)
    return ref, ours, ref_opt, our_opt


def same_values(ref, ours, ref_opt, our_opt):
    """Params and state agree (bit for bit for Adamax)."""
    tol = tolerance(type(our_opt).__name__, ref[0].dtype)
    for r, o in zip(ref, ours):
        torch.testing.assert_close(to_torch(o), r.detach(), **tol)
    for r, o in zip(ref, ours):
        theirs, mine = ref_opt.state[r], our_opt.state[o]
        assert sorted(mine) == sorted(theirs)
        for key, value in theirs.items():
            torch.testing.assert_close(to_torch(mine[key]), value, **tol, msg=key)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("name,cfg", CASES, ids=case_id)
def test_matches_torch_step_by_step(name, cfg, dtype):
    run_pair(name, cfg, "cpu", dtype, check=same_values)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("name", RICH)
def test_matches_torch_on_each_device(name, dtype, device):
    _, ours, _, our_opt = run_pair(name, RICH[name], device, dtype, steps=4, check=same_values)
    for p in ours:
        for key, value in our_opt.state[p].items():
            expected = "cpu" if key in ("step", "mu_product") else device
            assert str(value.device) == expected, key


@pytest.mark.parametrize("dtype,tol", [(torch.float16, 2e-2), (torch.bfloat16, 1e-1)], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("name", RICH)
def test_16_bit_params_within_tolerance(name, dtype, tol, device):
    def close(ref, ours, ref_opt, our_opt):
        # The fused step computes in float32 and rounds once per state update; PyTorch after every op.
        for r, o in zip(ref, ours):
            torch.testing.assert_close(to_torch(o).double(), r.detach().double(), rtol=tol, atol=tol)

    _, ours, _, _ = run_pair(name, RICH[name], device, dtype, steps=4, check=close)
    assert all(str(p.dtype) == str(dtype).replace("torch", "tandem") for p in ours)


@pytest.mark.parametrize("name", RICH)
def test_channels_last_params(name, device):
    torch.manual_seed(0)
    start = torch.randn(2, 3, 4, 5, dtype=torch.float64)
    ref = torch.nn.Parameter(start.contiguous(memory_format=torch.channels_last))
    ours = nn.Parameter(to_tandem(start, device).contiguous(memory_format=tandem.channels_last))
    ref_opt = getattr(torch.optim, name)([ref], foreach=False, **RICH[name])
    our_opt = getattr(optim, name)([ours], **RICH[name])
    gen = torch.Generator().manual_seed(1)
    for _ in range(3):
        grad = torch.randn(start.shape, generator=gen, dtype=torch.float64)
        ref.grad, ours.grad = grad, to_tandem(grad, device)  # a contiguous gradient for a channels-last param
        ref_opt.step()
        our_opt.step()
        same_values([ref], [ours], ref_opt, our_opt)
    assert ours.is_contiguous(memory_format=tandem.channels_last)


def test_state_dict_reload_continues_like_torch(tmp_path):
    for name, cfg in RICH.items():
        ref, ours, ref_opt, our_opt = run_pair(name, cfg, "cpu", torch.float32, steps=3, check=lambda *a: None)
        tandem.save(our_opt.state_dict(), tmp_path / "opt")
        fresh = getattr(optim, name)(ours, **cfg)
        fresh.load_state_dict(tandem.load(tmp_path / "opt"))
        gen = torch.Generator().manual_seed(5)
        for _ in range(3):
            for r, o in zip(ref, ours):
                grad = torch.randn(r.shape, generator=gen, dtype=r.dtype)
                r.grad, o.grad = grad, to_tandem(grad)
            ref_opt.step()
            fresh.step()
        same_values(ref, ours, ref_opt, fresh)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_long_tensors_match_torch(dtype):
    # PyTorch's vectorised loops (and their scalar tails) run here: the same bits for Adamax.
    for name, cfg in RICH.items():
        run_pair(name, cfg, "cpu", dtype, shapes=((1000,), (37,)), steps=6, check=same_values)


def test_mismatched_state_is_refused():
    p = nn.Parameter(tandem.ones(2, 3))
    opt = optim.RMSprop([p], momentum=0.9)
    p.grad = tandem.ones(2, 3)
    opt.step()
    opt.state[p]["momentum_buffer"] = tandem.zeros(3)
    with pytest.raises(RuntimeError, match=r"rmsprop: momentum_buffer of shape \[3\] \(float32, cpu\) does not "
                                           r"match the parameter of shape \[2, 3\]"):
        opt.step()
    opt = optim.Adamax([p])
    opt.step()
    opt.state[p]["exp_inf"] = tandem.zeros(2, 3, dtype=tandem.float64)
    with pytest.raises(RuntimeError, match="adamax: exp_inf of shape"):
        opt.step()
    # A state dict saved without centered's grad_avg: PyTorch's KeyError.
    opt = optim.RMSprop([p])
    opt.step()
    opt.param_groups[0]["centered"] = True
    with pytest.raises(KeyError, match="grad_avg"):
        opt.step()


def test_fused_entry_point_errors():
    p = tandem.ones(2, 2)
    with pytest.raises(ValueError, match="unknown optimizer 'adam'"):
        tandem._C._optim_step("adam", p, p, p, step=1, lr=0.1, weight_decay=0, eps=1e-8, maximize=False)
    with pytest.raises(RuntimeError, match="radam: the optimizer state has no exp_avg_sq"):
        tandem._C._optim_step("radam", p, tandem.ones(2, 2), tandem.zeros(2, 2), None, step=1, lr=0.1,
                              weight_decay=0, eps=1e-8, maximize=False, beta1=0.9, beta2=0.99)
    with pytest.raises(RuntimeError, match="adagrad: parameter of dtype int64 cannot be optimized"):
        q = tandem.ones(2, dtype=tandem.int64)
        tandem._C._optim_step("adagrad", q, q, q, step=1, lr=0.1, weight_decay=0, eps=1e-8, maximize=False)


@pytest.mark.parametrize("name", RICH)
def test_complex_params_update_as_pairs_of_reals(name, device):
    # PyTorch views complex params, grads and state as real (..., 2) tensors; so does the fused update.
    torch.manual_seed(0)
    start = torch.randn(5, dtype=torch.complex128)
    ref, ours = torch.nn.Parameter(start.clone()), nn.Parameter(tandem.tensor(start.tolist(), dtype=tandem.complex128).to(device))
    ref_opt = getattr(torch.optim, name)([ref], foreach=False, **RICH[name])
    our_opt = getattr(optim, name)([ours], **RICH[name])
    for i in range(4):
        grad = torch.randn(5, dtype=torch.complex128, generator=torch.Generator().manual_seed(i))
        ref.grad, ours.grad = grad, tandem.tensor(grad.tolist(), dtype=tandem.complex128).to(device)
        ref_opt.step()
        our_opt.step()
    assert ours.dtype == tandem.complex128
    torch.testing.assert_close(torch.tensor(ours.detach().cpu().tolist(), dtype=torch.complex128), ref.detach(), rtol=1e-13,
                               atol=1e-14)
    for key, value in ref_opt.state[ref].items():
        mine = our_opt.state[ours][key]
        torch.testing.assert_close(torch.tensor(mine.cpu().tolist(), dtype=value.dtype), value, rtol=1e-13,
                                   atol=1e-14, msg=key)
