"""Behaviours found by running public scientific PyTorch programs on tandem (the 'sweepsci' program sweep: Fourier
neural operators, torchdiffeq, normalizing flows, PINNs, Gaussian processes, pytorch-minimize, ...), each checked
against PyTorch (the oracle) on every device."""
import pytest
import torch

import tandem
from oracle import from_torch, to_torch


def _assert_same(got, want, device):
    assert got.device == tandem.device(device)
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    assert torch.allclose(to_torch(got.cpu()), want, rtol=1e-6, atol=1e-6)


# ---- addcmul keeps a fractional value for complex tensors (the FNO scripts' Adam: addcmul_(g, g.conj(), 1 - b2)) ----
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("form", ["function", "method", "inplace", "out"])
def test_addcmul_of_complex_tensors_keeps_a_fractional_value(device, dtype, form):
    gen = torch.Generator().manual_seed(0)
    start, a, b = (torch.randn(5, dtype=getattr(torch, dtype), generator=gen) for _ in range(3))
    want = torch.addcmul(start, a, b.conj(), value=0.001)
    ts, ta, tb = (from_torch(x, device) for x in (start, a, b))
    if form == "function":
        got = tandem.addcmul(ts, ta, tb.conj(), value=0.001)
    elif form == "method":
        got = ts.addcmul(ta, tb.conj(), value=0.001)
    elif form == "inplace":
        got = ts.addcmul_(ta, tb.conj(), value=0.001)
        assert got is ts
    else:
        got = tandem.empty(5, dtype=ts.dtype, device=device)
        assert tandem.addcmul(ts, ta, tb.conj(), value=0.001, out=got) is got
    _assert_same(got, want, device)
    assert not torch.equal(want, start)  # the product term is there to be dropped


def test_addcmul_of_integer_tensors_still_truncates_the_value(device):
    # PyTorch casts value to the integral result's dtype (0.5 -> 0); the complex fix must not change that.
    start, a = torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6])
    got = tandem.addcmul(from_torch(start, device), from_torch(a, device), from_torch(a, device), value=0.5)
    _assert_same(got, torch.addcmul(start, a, a, value=0.5), device)


# ---- torch._vmap_internals._vmap (pytorch-minimize builds Hessians with _vmap(hvp)(eye)) --------------------------
def _vmap_module(lib):
    return lib._vmap_internals


@pytest.mark.parametrize("lib", [torch, tandem], ids=["torch", "tandem"])
def test_legacy_vmap_values(lib):
    vi = _vmap_module(lib)
    x = lib.arange(12.0).reshape(3, 4)
    assert vi._vmap(lambda r: r * 2)(x).tolist() == (torch.arange(12.0).reshape(3, 4) * 2).tolist()
    sums, none = vi._vmap(lambda r: (r.sum(), None), allow_none_pass_through=True)(x)
    assert sums.tolist() == [6.0, 22.0, 38.0] and none is None
    first, second = vi._vmap(lambda r, s: (r, r.sum() + s), in_dims=(1, None), out_dims=(1, 0))(x, lib.tensor(1.0))
    assert tuple(first.shape) == (3, 4) and first.tolist() == x.tolist()
    assert second.tolist() == [13.0, 16.0, 19.0, 22.0]


def test_legacy_vmap_builds_a_hessian_with_autograd_inside(device):
    # torchmin's ScalarFunction: hvp = grad(g, x, v) for each row v of the identity, vmapped.
    w = torch.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=torch.float64)
    results = []
    for lib, dev in [(torch, "cpu"), (tandem, device)]:
        x = lib.tensor([0.5, -1.0], dtype=lib.float64, device=dev, requires_grad=True)
        W = lib.tensor(w.tolist(), dtype=lib.float64, device=dev)
        f = (x @ W @ x) * 0.5 + x.pow(3).sum()
        g = lib.autograd.grad(f, x, create_graph=True)[0]
        hvp = lambda v: lib.autograd.grad(g, x, v, retain_graph=True)[0]  # noqa: E731
        hess = _vmap_module(lib)._vmap(hvp)(lib.eye(2, dtype=lib.float64, device=dev))
        assert hess.device == (tandem.device(dev) if lib is tandem else torch.device("cpu"))
        results.append(hess.tolist())
    assert sum(results[0], []) == pytest.approx(sum(results[1], []), rel=1e-12)


@pytest.mark.parametrize("func, kwargs", [
    (lambda r: [r], {}),
    (lambda r: (r, None), {}),
    (lambda r: (r, r), {"out_dims": (0,)}),
    (lambda r: r, {"out_dims": [0]}),
], ids=["list", "none", "out_dims_count", "out_dims_list"])
def test_legacy_vmap_errors_match_pytorch(func, kwargs):
    messages = []
    for lib in (torch, tandem):
        with pytest.raises(ValueError) as info:
            _vmap_module(lib)._vmap(func, **kwargs)(lib.ones(2, 3))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_legacy_public_vmap_warns_as_pytorch():
    with pytest.warns(FutureWarning, match="Please use `torch.vmap` instead of `torch._vmap_internals.vmap`."):
        out = tandem._vmap_internals.vmap(lambda r: r + 1)(tandem.zeros(2, 2))
    assert out.tolist() == [[1.0, 1.0], [1.0, 1.0]]
