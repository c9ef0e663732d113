"""add/sub(alpha=): a ± alpha * b against PyTorch, bit for bit where PyTorch's CPU kernel is one fused
multiply-add (floating dtypes, alpha rounded to the tensor's dtype), with gradients, in place, with out=, and
with a number as the other operand. Devices: cpu and the emulated cuda:0."""
import pytest
import torch

import tandem

DEVICES = ["cpu", "cuda:0"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def values(n, mul, mod, offset, scale):
    return [((i * mul) % mod - offset) / scale for i in range(n)]


def pair(lib, dtype, n=1024, device="cpu"):
    dt = getattr(lib, dtype)
    x = lib.tensor(values(n, 37, 101, 50, 25.3), dtype=torch.float64 if lib is torch else tandem.float64)
    y = lib.tensor(values(n, 53, 89, 44, 13.7), dtype=torch.float64 if lib is torch else tandem.float64)
    x, y = x.to(dt), y.to(dt)
    return (x.to(device), y.to(device)) if lib is tandem else (x, y)


def bits(t):
    return t.cpu().double().tolist()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("alpha", [-0.1, 0.3, 0.7, 3, -1e-3])
def test_add_with_alpha_rounds_once_as_pytorch(dtype, alpha, device):
    # 1024 elements: every one in PyTorch's vectorised loop (its scalar tail rounds 16-bit products first).
    x, y = pair(tandem, dtype, device=device)
    tx, ty = pair(torch, dtype)
    got = x.add(y, alpha=alpha)
    want = tx.add(ty, alpha=alpha)
    assert got.dtype == getattr(tandem, dtype) and got.device == tandem.device(device)
    assert bits(got) == want.double().tolist()
    assert bits(tandem.sub(x, y, alpha=alpha)) == torch.sub(tx, ty, alpha=alpha).double().tolist()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_odd_sizes_and_strided_operands_match_too(dtype, device):
    # float32/float64: PyTorch's scalar loop is a fused multiply-add as well, so any size and layout agrees.
    x, y = pair(tandem, dtype, n=1037, device=device)
    tx, ty = pair(torch, dtype, n=1037)
    assert bits(x.add(y, alpha=0.3)) == tx.add(ty, alpha=0.3).double().tolist()
    assert bits(x[::3].sub(y[1::3], alpha=0.7)) == tx[::3].sub(ty[1::3], alpha=0.7).double().tolist()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_in_place_and_out_forms(dtype, device):
    x, y = pair(tandem, dtype, device=device)
    tx, ty = pair(torch, dtype)
    want = tx.clone().add_(ty, alpha=-0.1).double().tolist()
    p = x.clone()
    assert p.add_(y, alpha=-0.1) is p
    assert bits(p) == want
    out = tandem.empty(1024, dtype=getattr(tandem, dtype), device=device)
    assert tandem.add(x, y, alpha=-0.1, out=out) is out
    assert bits(out) == want
    assert bits(x.clone().sub_(y, alpha=0.1)) == want


@pytest.mark.parametrize("device", DEVICES)
def test_number_other_is_a_wrapped_number(device):
    # PyTorch rounds the number to the tensor's dtype, then x + alpha * number in one rounding.
    x, _ = pair(tandem, "float16", device=device)
    tx, _ = pair(torch, "float16")
    assert bits(x.add(2.3, alpha=-0.1)) == tx.add(2.3, alpha=-0.1).double().tolist()
    # A Python float next to an integer tensor gives the default float dtype, not float64.
    r = tandem.tensor([1, 2], device=device).add(2.5, alpha=2)
    assert r.dtype == tandem.float32 and r.tolist() == [6.0, 7.0]
    assert tandem.tensor([1, 2]).sub(2.5, alpha=2).tolist() == torch.tensor([1, 2]).sub(2.5, alpha=2).tolist()


@pytest.mark.parametrize("device", DEVICES)
def test_broadcast_and_host_scalar_tensor(device):
    x = tandem.arange(6.0, device=device).reshape(2, 3)
    assert x.add(tandem.tensor([1.0, 2.0, 3.0], device=device), alpha=0.5).tolist() == [[0.5, 2.0, 3.5],
                                                                                        [3.5, 5.0, 6.5]]
    # A 0-dim CPU tensor joins any device, as in PyTorch.
    r = x.sub(tandem.tensor(2.0), alpha=3)
    assert r.device == tandem.device(device) and r.tolist() == [[-6.0, -5.0, -4.0], [-3.0, -2.0, -1.0]]


@pytest.mark.parametrize("device", DEVICES)
def test_integer_bool_and_complex_results(device):
    i8 = tandem.tensor([100, -100, 7], dtype=tandem.int8, device=device)
    t8 = torch.tensor([100, -100, 7], dtype=torch.int8)
    assert i8.add(i8, alpha=3).tolist() == t8.add(t8, alpha=3).tolist()  # wraps as PyTorch
    assert i8.add(i8, alpha=3).dtype == tandem.int8
    b = tandem.tensor([True, False, False], device=device)
    assert b.add(tandem.tensor([False, False, True], device=device), alpha=2).tolist() == [True, False, True]
    c = tandem.tensor([1 + 2j, -1j], device=device)
    tc = torch.tensor([1 + 2j, -1j])
    assert c.add(c, alpha=2 - 1j).tolist() == tc.add(tc, alpha=2 - 1j).tolist()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("op, node, factor", [("add", "AddBackward0", 0.5), ("sub", "SubBackward0", -0.5)])
def test_gradients(op, node, factor, device):
    x = tandem.tensor([1.0, 2.0], device=device, requires_grad=True)
    y = tandem.tensor([3.0, 5.0], device=device, requires_grad=True)
    z = getattr(x, op)(y, alpha=0.5)
    assert z.grad_fn.name() == node
    z.backward(tandem.tensor([1.0, 10.0], device=device))
    assert x.grad.tolist() == [1.0, 10.0]
    assert y.grad.tolist() == [factor, 10 * factor]
    # Broadcast: the engine sums b's gradient to its shape.
    w = tandem.tensor(2.0, device=device, requires_grad=True)
    getattr(tandem, op)(x, w, alpha=3).sum().backward()
    assert w.grad.item() == (6.0 if op == "add" else -6.0)


def test_complex_alpha_gradient_is_conjugated():
    x = tandem.tensor([1 + 1j], requires_grad=True)
    y = tandem.tensor([2 - 1j], requires_grad=True)
    tx = torch.tensor([1 + 1j], requires_grad=True)
    ty = torch.tensor([2 - 1j], requires_grad=True)
    x.add(y, alpha=2 + 3j).abs().sum().backward()
    tx.add(ty, alpha=2 + 3j).abs().sum().backward()
    assert y.grad.tolist() == pytest.approx(ty.grad.tolist())
    assert x.grad.tolist() == pytest.approx(tx.grad.tolist())


def test_in_place_on_a_leaf_view_records_the_history():
    base = tandem.zeros(3, requires_grad=True)
    g = tandem.tensor([1.0, 2.0, 3.0], requires_grad=True)
    p = base.clone()
    p.add_(g, alpha=-0.1)
    assert p.grad_fn.name() == "AddBackward0"
    p.sum().backward()
    assert g.grad.tolist() == pytest.approx([-0.1] * 3)
    assert base.grad.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("call, error, message", [
    (lambda L: L.tensor([1, 2]).add(L.tensor([1, 2]), alpha=0.5), RuntimeError,
     "For integral input tensors, argument alpha must not be a floating point number."),
    (lambda L: L.tensor([1.0]).add(L.tensor([1.0]), alpha=1j), RuntimeError,
     "For non-complex input tensors, argument alpha must not be a complex number."),
    (lambda L: L.tensor([1.0]).add(L.tensor([1.0]), alpha=True), RuntimeError,
     "Boolean alpha only supported for Boolean results."),
    (lambda L: L.tensor([True]).sub(L.tensor([True]), alpha=1), NotImplementedError,
     "Subtraction, the `-` operator, with two bool tensors is not supported."),
    (lambda L: L.ones(3).add_(L.ones(2, 3), alpha=2), RuntimeError,
     "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    (lambda L: L.ones(2, dtype=L.int64).add_(L.ones(2), alpha=2), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
])
def test_errors_as_pytorch(call, error, message):
    with pytest.raises(error) as want:
        call(torch)
    assert str(want.value).startswith(message)
    with pytest.raises(error) as got:
        call(tandem)
    assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0]
