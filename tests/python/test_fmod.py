"""fmod: C's remainder (the dividend's sign), exact for floating operands as PyTorch's and NumPy's, on every
dtype PyTorch supports, with PyTorch's gradients, node names and errors. Devices: cpu and the emulated cuda:0.
(fmod was composed from remainder until session 39: remainder's `r + b` rounding made 4% of mixed-sign float32
results wrong.)"""
import numpy as np
import pytest
import torch

import tandem

DEVICES = ["cpu", "cuda:0"]

rng = np.random.default_rng(7)
A = np.concatenate([rng.standard_normal(2000) * 3, rng.uniform(0.01, 5, 500), [0.0, -0.0, 5.5, -5.5, 1e30, 1e-30]])
B = np.concatenate([rng.standard_normal(2000) * 2, rng.uniform(0.5, 3, 500), [2.0, 2.0, -2.0, 2.0, 3.0, 7.0]])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_floating_fmod_is_exact(dtype, device):
    a = torch.tensor(A).to(getattr(torch, dtype))
    b = torch.tensor(B).to(getattr(torch, dtype))
    got = tandem.fmod(tandem.tensor(A, device=device).to(getattr(tandem, dtype)),
                      tandem.tensor(B, device=device).to(getattr(tandem, dtype)))
    assert got.dtype == getattr(tandem, dtype) and got.device == tandem.device(device)
    exact = np.fmod(a.double().numpy(), b.double().numpy())
    values = np.array(got.cpu().double().tolist())
    assert np.array_equal(values, exact, equal_nan=True)  # fmod of representable operands is representable
    assert np.array_equal(np.signbit(values), np.signbit(exact))  # the dividend's sign, zeros included
    np.testing.assert_array_equal(values, torch.fmod(a, b).double().numpy())


@pytest.mark.parametrize("device", DEVICES)
def test_strided_and_scalar_operands(device):
    a = tandem.tensor(A, device=device, dtype=tandem.float32)
    ta = torch.tensor(A, dtype=torch.float32)
    tb = torch.tensor(B, dtype=torch.float32)
    b = tandem.tensor(B, device=device, dtype=tandem.float32)
    assert a[:-1:3].fmod(b[1::3]).cpu().tolist() == ta[:-1:3].fmod(tb[1::3]).tolist()
    assert a.fmod(-1.5).cpu().tolist() == ta.fmod(-1.5).tolist()
    assert tandem.fmod(a, tandem.tensor(0.7)).cpu().tolist() == torch.fmod(ta, torch.tensor(0.7)).tolist()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64"])
def test_integers_take_the_dividends_sign(dtype, device):
    a = [7, -7, 7, -7, 0, 100, -128 if dtype == "int8" else -100]
    b = [3, 3, -3, -3, 5, -1, -1]
    if dtype == "uint8":
        a, b = [7, 200, 0, 255], [3, 7, 5, 1]
    got = tandem.fmod(tandem.tensor(a, dtype=getattr(tandem, dtype), device=device),
                      tandem.tensor(b, dtype=getattr(tandem, dtype), device=device))
    want = torch.fmod(torch.tensor(a, dtype=getattr(torch, dtype)), torch.tensor(b, dtype=getattr(torch, dtype)))
    assert got.dtype == getattr(tandem, dtype)
    assert got.cpu().tolist() == want.tolist()


def test_promotion_with_numbers():
    assert tandem.fmod(tandem.tensor([5, -5]), 3).dtype == tandem.int64
    r = tandem.fmod(tandem.tensor([5, -5]), 2.5)
    assert r.dtype == tandem.float32 and r.tolist() == torch.fmod(torch.tensor([5, -5]), 2.5).tolist()


def test_in_place_and_out():
    x = tandem.tensor([5.5, -5.5])
    assert x.fmod_(2.0) is x and x.tolist() == [1.5, -1.5]
    out = tandem.empty(2)
    assert tandem.fmod(tandem.tensor([5.5, -5.5]), tandem.tensor([-2.0, 2.0]), out=out) is out
    assert out.tolist() == [1.5, -1.5]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        tandem.tensor([5, 3]).fmod_(2.5)


@pytest.mark.parametrize("device", DEVICES)
def test_gradients_and_node_names(device):
    a = tandem.tensor([5.5, -5.5, 7.0], device=device, requires_grad=True)
    b = tandem.tensor([2.0, 2.0, -3.0], device=device, requires_grad=True)
    ta = torch.tensor([5.5, -5.5, 7.0], requires_grad=True)
    tb = torch.tensor([2.0, 2.0, -3.0], requires_grad=True)
    r, tr = tandem.fmod(a, b), torch.fmod(ta, tb)
    assert r.grad_fn.name() == type(tr.grad_fn).__name__ == "FmodBackward1"
    r.sum().backward()
    tr.sum().backward()
    assert a.grad.cpu().tolist() == ta.grad.tolist()
    assert b.grad.cpu().tolist() == tb.grad.tolist()  # -trunc(a / b)
    s = a.fmod(2.0)
    assert s.grad_fn.name() == type(ta.fmod(2.0).grad_fn).__name__ == "FmodBackward0"


@pytest.mark.parametrize("call, error", [
    (lambda L: L.fmod(L.tensor([5]), L.tensor([0])), RuntimeError),
    (lambda L: L.fmod(L.tensor([5]), 0), RuntimeError),
    (lambda L: L.fmod(L.tensor([True]), L.tensor([True])), NotImplementedError),
    (lambda L: L.fmod(L.tensor([1j]), 2), NotImplementedError),
    (lambda L: L.fmod(2, L.tensor([3.0])), TypeError),
])
def test_errors_as_pytorch(call, error):
    with pytest.raises(error) as want:
        call(torch)
    with pytest.raises(error) as got:
        call(tandem)
    assert str(got.value).splitlines()[0] == str(want.value).splitlines()[0]
