"""The fused SGD/Adam kernels follow one arithmetic order (kernels/optim_functors.h, shared by the CPU and
CUDA loops): float32 and float64 results equal a NumPy replay of that order for every option combination, on
every device, up to the last bits that fused multiply-adds change (compilers contract a*b+c where they may)."""
import itertools
import math

import numpy as np
import pytest

import tandem
from tandem import nn, optim

STEPS = 3
# A few units in the last place: far tighter than any misplaced term (a wrong bias correction, eps inside the
# square root, decay applied twice) would allow.
TOLERANCE = {np.float32: dict(rtol=2e-6, atol=1e-6), np.float64: dict(rtol=1e-14, atol=1e-14)}


def grads(dtype, n=257):
    rng = np.random.default_rng(7)
    out = [rng.standard_normal(n).astype(dtype) for _ in range(STEPS)]
    out[1][:2] = np.nan  # NaN must flow as in the reference (amsgrad's max included)
    return out


def start(dtype, n=257):
    return np.random.default_rng(3).standard_normal(n).astype(dtype)


def run_tandem(make_opt, dtype, device):
    p = nn.Parameter(tandem.tensor(start(dtype).tolist(), dtype=getattr(tandem, np.dtype(dtype).name)).to(device))
    opt = make_opt([p])
    for g in grads(dtype):
        p.grad = tandem.tensor(g.tolist(), dtype=p.dtype).to(device)
        opt.step()
    return np.array(p.detach().cpu().tolist(), dtype=dtype)


def sgd_reference(dtype, lr, momentum, dampening, weight_decay, nesterov, maximize):
    c = np.dtype(dtype).type
    p, buf = start(dtype), None
    lr_, mom, wd, keep, sign = c(lr), c(momentum), c(weight_decay), c(1.0 - dampening), c(-1 if maximize else 1)
    for g in grads(dtype):
        d = sign * g
        if weight_decay:
            d = d + wd * p
        if momentum:
            buf = d if buf is None else mom * buf + keep * d
            d = d + mom * buf if nesterov else buf
        p = p - lr_ * d
    return p


def adam_reference(dtype, lr, betas, eps, weight_decay, amsgrad, maximize, decoupled):
    c = np.dtype(dtype).type
    p = start(dtype)
    m, v, vmax = np.zeros_like(p), np.zeros_like(p), np.zeros_like(p)
    b1, b2 = c(betas[0]), c(betas[1])
    for step, g in enumerate(grads(dtype), start=1):
        step_size = c(lr / (1.0 - betas[0] ** step))
        bc2_sqrt = c(math.sqrt(1.0 - betas[1] ** step))
        g = c(-1 if maximize else 1) * g
        if weight_decay and decoupled:
            p = p * c(1.0 - lr * weight_decay)
        if weight_decay and not decoupled:
            g = g + c(weight_decay) * p
        m = m + (g - m) * (c(1) - b1)
        v = v * b2 + (c(1) - b2) * g * g
        second = v
        if amsgrad:
            second = np.where(vmax < v, v, vmax)
            vmax = second
        denom = np.sqrt(second) / bc2_sqrt + c(eps)
        p = p - step_size * m / denom
    return p


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("momentum,dampening,weight_decay,nesterov,maximize", [
    cfg for cfg in itertools.product([0.0, 0.9], [0.0, 0.3], [0.0, 0.01], [False, True], [False, True])
    if not (cfg[3] and (cfg[0] == 0 or cfg[1] != 0))
])
def test_sgd_step_is_the_shared_formula(device, dtype, momentum, dampening, weight_decay, nesterov, maximize):
    kw = dict(lr=0.1, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
              maximize=maximize)
    ours = run_tandem(lambda ps: optim.SGD(ps, **kw), dtype, device)
    np.testing.assert_allclose(ours, sgd_reference(dtype, **kw), **TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cls", ["Adam", "AdamW"])
@pytest.mark.parametrize("weight_decay,amsgrad,maximize",
                         list(itertools.product([0.0, 0.05], [False, True], [False, True])))
def test_adam_step_is_the_shared_formula(device, dtype, cls, weight_decay, amsgrad, maximize):
    kw = dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize)
    ours = run_tandem(lambda ps: getattr(optim, cls)(ps, **kw), dtype, device)
    np.testing.assert_allclose(ours, adam_reference(dtype, decoupled=cls == "AdamW", **kw), **TOLERANCE[dtype])
