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


# ---- autograd.functional._construct_standard_basis_for (pytorch-minimize's ScipyMinimizer jacobian) -------------
def test_construct_standard_basis_for_matches_pytorch(device):
    from torch.autograd.functional import _construct_standard_basis_for as want_fn

    from tandem.autograd.functional import _construct_standard_basis_for as got_fn
    shapes, dtypes = [(2,), (3, 1), ()], ["float64", "float32", "float64"]
    want = want_fn(tuple(torch.zeros(s, dtype=getattr(torch, d)) for s, d in zip(shapes, dtypes)), (2, 3, 1))
    got = got_fn(tuple(tandem.zeros(s, dtype=getattr(tandem, d), device=device) for s, d in zip(shapes, dtypes)),
                 (2, 3, 1))
    assert len(got) == len(want) == 3
    for g, w in zip(got, want):
        _assert_same(g, w, device)


# ---- optim.lbfgs._strong_wolfe / _cubic_interpolate with PyTorch's signatures (pytorch-minimize's line search) ----
def _rosen(lib, x):
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


@pytest.mark.parametrize("start, t", [([-1.2, 1.0, 0.5], 1.0), ([1.0, 8.0, -2.0], 1e-3), ([0.1, 0.2, 0.3], 50.0)])
def test_strong_wolfe_with_pytorchs_signature_matches_pytorch(device, start, t):
    from torch.optim.lbfgs import _strong_wolfe as want_fn

    from tandem.optim.lbfgs import _strong_wolfe as got_fn
    results = []
    for lib, fn, dev in [(torch, want_fn, "cpu"), (tandem, got_fn, device)]:
        def obj_func(x, step, d, lib=lib):
            y = (x + step * d).detach().requires_grad_(True)
            loss = _rosen(lib, y)
            loss.backward()
            return float(loss.detach()), y.grad

        x = lib.tensor(start, dtype=lib.float64, device=dev)
        f, g = obj_func(x, 0.0, lib.zeros_like(x))
        d = -g
        f_new, g_new, t_new, evals = fn(obj_func, x, t, d, f, g, g.dot(d))
        assert g_new is not g
        results.append((f_new, g_new.tolist(), float(t_new), evals))
    (wf, wg, wt, we), (gf, gg, gt, ge) = results
    assert ge == we and gt == pytest.approx(wt, rel=1e-12) and gf == pytest.approx(wf, rel=1e-12)
    assert gg == pytest.approx(wg, rel=1e-10)


def test_cubic_interpolate_matches_pytorch():
    from torch.optim.lbfgs import _cubic_interpolate as want_fn

    from tandem.optim.lbfgs import _cubic_interpolate as got_fn
    for args in [(0.0, 1.0, -2.0, 1.0, 0.5, 1.0), (0.0, 1.0, -2.0, 1.0, 0.5, 1.0, (0.2, 0.4)), (1.0, 3.0, 2.0, 0.0, 1.0, -1.0)]:
        want = want_fn(*[torch.tensor(a, dtype=torch.float64) if isinstance(a, float) else a for a in args])
        got = got_fn(*[tandem.tensor(a, dtype=tandem.float64) if isinstance(a, float) else a for a in args])
        assert float(got) == pytest.approx(float(want), rel=1e-12)


# ---- finfo/iinfo of Python's number types (pytorch-minimize: EPS = torch.finfo(float).eps) ---------------------
@pytest.mark.parametrize("kind", [float, complex, int, bool])
def test_finfo_and_iinfo_take_pythons_number_types(kind):
    for name in ("finfo", "iinfo"):
        try:
            want = repr(getattr(torch, name)(kind))
        except TypeError as e:
            with pytest.raises(TypeError) as info:
                getattr(tandem, name)(kind)
            assert str(info.value) == str(e)
            continue
        assert repr(getattr(tandem, name)(kind)) == want
    assert tandem.finfo(float).eps == torch.finfo(float).eps == 2.0 ** -52
    with pytest.raises(TypeError, match="requires an integer input type"):
        tandem.iinfo(tandem.complex64)  # as torch.iinfo(torch.complex64)
    with pytest.raises(TypeError, match="must be torch.dtype, not str"):
        tandem.finfo("float32")


# ---- is_tensor(None) is False (torchsde: list(filter(torch.is_tensor, (W, H))) with H=None) ---------------------
@pytest.mark.parametrize("obj", [None, 1, 2.5, [1.0], "t"])
def test_is_tensor_of_non_tensors_is_false(obj):
    assert tandem.is_tensor(obj) is torch.is_tensor(obj) is False
    assert list(filter(tandem.is_tensor, (obj, tandem.ones(1), None))) != []


def test_is_tensor_of_tensors(device):
    assert tandem.is_tensor(tandem.ones(2, device=device)) is True
    assert tandem.is_tensor(tandem.ones(2, device=device).to_sparse()) is True
