"""The trigonometric, hyperbolic, log-base, error-function and two-argument float ops against PyTorch at their
special values (infinities, NaN, signed zeros, domain edges), at high precision (erfinv), with scalar operands,
and with gradients through the scalar forms. test_elementwise.py and test_op_list.py cover every dtype and the
gradcheck of each op from the op list itself."""
import math

import pytest
import torch

import tandem
from oracle import assert_same, from_torch

UNARY = ["asin", "acos", "atan", "sinh", "cosh", "tan", "asinh", "acosh", "atanh", "log2", "log10", "exp2", "erf",
         "erfc", "erfinv"]
BINARY = ["atan2", "hypot", "logaddexp", "logaddexp2", "copysign"]
# (sinh/cosh(710) is finite, 1.1e308; PyTorch's float64 gives inf there, tandem the finite value: not listed.)
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.999999, -0.999999, 1.0000001, 2.0, -2.0, 30.0, -30.0, 100.0, -100.0,
           -745.0, 1e-30, -1e-30, 1e30, float("inf"), float("-inf"), float("nan")]


@pytest.mark.parametrize("op", UNARY)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_special_values(op, dtype, device):
    x = torch.tensor(SPECIAL, dtype=getattr(torch, dtype))
    got = getattr(tandem, op)(from_torch(x, device))
    expected = getattr(torch, op)(x)
    tol = {"float32": (2e-6, 1e-6), "float64": (1e-13, 1e-14)}[dtype]
    assert_same(got, expected, rtol=tol[0], atol=tol[1])
    zero = expected == 0
    got_values = torch.tensor(got.tolist(), dtype=expected.dtype)
    assert torch.equal(torch.signbit(got_values[zero]), torch.signbit(expected[zero])), "signs of zero differ"


def test_erfinv_is_accurate_in_float64():
    x = torch.linspace(-1, 1, 20001, dtype=torch.float64)[1:-1]
    got = torch.tensor(tandem.erfinv(from_torch(x)).tolist(), dtype=torch.float64)
    torch.testing.assert_close(got, torch.erfinv(x), rtol=1e-13, atol=1e-15)
    tiny = torch.tensor([1e-300, -1e-300, 1e-17, 1 - 1e-16], dtype=torch.float64)
    torch.testing.assert_close(torch.tensor(tandem.erfinv(from_torch(tiny)).tolist(), dtype=torch.float64),
                               torch.erfinv(tiny), rtol=1e-12, atol=0)


@pytest.mark.parametrize("op", BINARY)
def test_binary_special_values_and_broadcasting(op, device):
    v = torch.tensor(SPECIAL, dtype=torch.float64)
    a, b = v.reshape(-1, 1), v.reshape(1, -1)  # every pair
    # atol: logaddexp2 of two nearly equal values near -1 cancels to ~5e-7, in both libraries
    assert_same(getattr(tandem, op)(from_torch(a, device), from_torch(b, device)), getattr(torch, op)(a, b),
                rtol=1e-13, atol=1e-15)
    for scalar in (2.5, -0.0, float("inf")):  # tandem takes a Python number where PyTorch needs a tensor
        expected = getattr(torch, op)(a, torch.tensor(scalar, dtype=torch.float64))
        assert_same(getattr(tandem, op)(from_torch(a, device), scalar), expected, rtol=1e-13, atol=1e-15)
        assert_same(getattr(from_torch(a, device), op)(scalar), expected, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("op", BINARY)
def test_binary_gradients_with_tensor_and_scalar_operands(op, device):
    gen = torch.Generator().manual_seed(3)
    a = (torch.rand(3, 4, generator=gen, dtype=torch.float64) + 0.5) * torch.tensor([1.0, -1.0, 1.0, -1.0])
    b = torch.rand(4, generator=gen, dtype=torch.float64) - 0.25
    ta = from_torch(a, device).requires_grad_()
    tb = from_torch(b, device).requires_grad_()
    ra, rb = a.clone().requires_grad_(), b.clone().requires_grad_()
    getattr(tandem, op)(ta, tb).sum().backward()
    getattr(torch, op)(ra, rb).sum().backward()
    assert_same(ta.grad, ra.grad, rtol=1e-12, atol=1e-12)
    assert_same(tb.grad, rb.grad, rtol=1e-12, atol=1e-12)
    ta.grad = None
    ra.grad = None
    getattr(tandem, op)(ta, 1.5).sum().backward()
    getattr(torch, op)(ra, torch.tensor(1.5, dtype=torch.float64)).sum().backward()
    assert_same(ta.grad, ra.grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("op", UNARY)
def test_half_precision_within_one_step(op, device):
    x = torch.linspace(-0.9, 0.9, 37, dtype=torch.float32) * (3 if op in ("sinh", "cosh", "exp2", "atan") else 1)
    if op == "acosh":
        x = x.abs() + 1
    for dtype in (torch.float16, torch.bfloat16):
        xs = x.to(dtype)
        got = getattr(tandem, op)(from_torch(xs, device))
        assert got.dtype == getattr(tandem, str(dtype).split(".")[-1])
        # computed in float32 from the rounded input, then rounded: within one 16-bit step of PyTorch's
        tol = 1e-3 if dtype == torch.float16 else 8e-3
        assert_same(got, getattr(torch, op)(xs), rtol=tol, atol=tol)


def test_integer_inputs_promote_to_the_default_float():
    x = tandem.tensor([0, 1, -1])
    for op in UNARY:
        assert getattr(tandem, op)(x).dtype == tandem.float32
    assert tandem.atan2(x, tandem.tensor([1, 1, 1])).dtype == tandem.float32
    assert math.isclose(tandem.atan2(tandem.tensor(1.0), tandem.tensor(-1.0)).item(), 3 * math.pi / 4, rel_tol=1e-6)
