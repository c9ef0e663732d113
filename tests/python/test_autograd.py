"""Autograd: gradients of every differentiable op (finite differences in float64 and PyTorch's values), the
engine's semantics (hooks, retain_grad, create_graph, grad modes) and its errors."""
import gc
import threading

import pytest
import torch

import tandem
from tandem.autograd import gradcheck

F64 = tandem.float64


def leaf(values, dtype=F64, device="cpu"):
    return tandem.tensor(values, dtype=dtype, device=device).requires_grad_()


def rand(*shape, low=-1.0, high=1.0, seed=0):
    g = torch.Generator().manual_seed(seed + 7 * len(shape) + sum(shape))
    return (torch.rand(*shape, generator=g, dtype=torch.float64) * (high - low) + low).tolist()


def first_line(excinfo):
    return str(excinfo.value).splitlines()[0]


# ---------------------------------------------------------------- gradcheck of every op

UNARY = {
    "neg": (lambda x: -x, -1, 1), "abs": (tandem.abs, 0.1, 1), "relu": (tandem.relu, 0.1, 1),
    "exp": (tandem.exp, -1, 1), "log": (tandem.log, 0.5, 2), "log1p": (tandem.log1p, 0.1, 1),
    "expm1": (tandem.expm1, -1, 1), "sqrt": (tandem.sqrt, 0.5, 2), "rsqrt": (tandem.rsqrt, 0.5, 2),
    "sin": (tandem.sin, -2, 2), "cos": (tandem.cos, -2, 2), "tanh": (tandem.tanh, -2, 2),
    "sigmoid": (tandem.sigmoid, -2, 2),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradcheck(name):
    fn, lo, hi = UNARY[name]
    x = leaf(rand(2, 3, low=lo, high=hi))
    assert gradcheck(fn, (x,))
    # non-contiguous input
    xt = leaf(rand(3, 2, low=lo, high=hi)).t()
    assert gradcheck(fn, (xt,))


BINARY = {
    "add": (lambda a, b: a + b, -1, 1), "sub": (lambda a, b: a - b, -1, 1), "mul": (lambda a, b: a * b, -1, 1),
    "div": (lambda a, b: a / b, 0.5, 2), "pow": (tandem.pow, 0.5, 2), "maximum": (tandem.maximum, -1, 1),
    "minimum": (tandem.minimum, -1, 1),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradcheck_broadcast(name):
    fn, lo, hi = BINARY[name]
    a = leaf(rand(2, 3, low=lo, high=hi))
    b = leaf(rand(3, low=lo, high=hi, seed=1))
    assert gradcheck(fn, (a, b))
    c = leaf(rand(2, 1, low=lo, high=hi, seed=2))
    assert gradcheck(fn, (a.t() if False else a, c))
    assert gradcheck(fn, (leaf(rand(3, 2, low=lo, high=hi)).t(), c))


def test_first_engine():
    x = leaf([1.0, 2.0, 3.0])
    y = (x * x).exp()
    assert y.grad_fn.name() == "ExpBackward0"
    assert repr(y.grad_fn).startswith("<ExpBackward0 object at 0x")
    y.backward(tandem.ones_like(y))
    tx = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    (tx * tx).exp().backward(torch.ones(3, dtype=torch.float64))
    torch.testing.assert_close(torch.tensor(x.grad.tolist(), dtype=torch.float64), tx.grad)
