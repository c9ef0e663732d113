"""out= on the op list's functions (ops/out_arg.h), checked against PyTorch: the result lands in the tensor
passed (the same object is returned), out keeps its dtype when the result casts to it, is resized with
PyTorch's warning, and the errors (dtype, autograd, overlap, device, type) are PyTorch's."""
import warnings

import numpy as np
import pytest
import torch

import tandem

import oracle

UNARY = [(n, r) for n, r, _ in tandem._C._unary_ops() if r != "Predicate"]
BINARY = [(n, r) for n, r, _ in tandem._C._binary_ops()]
TORCH_NAMES = {"gelu_tanh": None, "gelu": None, "silu": None}  # not torch.* functions


def torch_fn(name):
    """torch.name, or torch.special.name for the functions PyTorch has only there (i0e, erfcx, zeta, ...)."""
    return getattr(torch, name) if hasattr(torch, name) else getattr(torch.special, name)


def sample(rule, device):
    values = [[0.5, -1.5, 2.25], [3.0, -0.75, 1.0]]
    if rule in ("Integral", "Bitwise", "IntDiv") or rule == "Predicate":
        t = torch.tensor([[5, -3, 2], [7, 1, -4]])
    else:
        t = torch.tensor(values)
    return t, tandem.tensor(t.tolist(), dtype=getattr(tandem, str(t.dtype).split(".")[1]), device=device)


@pytest.mark.parametrize("name,rule", UNARY, ids=[n for n, _ in UNARY])
def test_unary_out_matches_pytorch(name, rule, device):
    t, x = sample(rule, device)
    ref = torch_fn(name)(t) if TORCH_NAMES.get(name, name) else None
    out = tandem.empty(2, 3, dtype=x.dtype if rule not in ("Float",) else tandem.float32, device=device)
    got = getattr(tandem, name)(x, out=out)
    assert got is out and out.device == x.device
    want = getattr(tandem, name)(x)
    np.testing.assert_array_equal(out.cpu().numpy(), want.cpu().numpy())
    if ref is not None:
        # (atol: tandem computes the special functions' float32 in double; PyTorch's float loop is a few 1e-8 off
        # near their zeros, e.g. bessel_y1(2.25))
        np.testing.assert_allclose(out.cpu().numpy().astype(np.float64), ref.numpy().astype(np.float64), rtol=1e-6,
                                   atol=1e-7)


@pytest.mark.parametrize("name,rule", BINARY, ids=[n for n, _ in BINARY])
def test_binary_out_matches_pytorch_in_every_form(name, rule, device):
    t, x = sample("Bitwise" if rule in ("Bitwise", "IntDiv", "Integer") else rule, device)
    u, y = t.flip(1) + (t.flip(1) == 0), x.flip(1) + (x.flip(1) == 0)  # no zero divisors
    result_dtype = getattr(tandem, name)(x, y).dtype
    for args, targs in [((x, y), (t, u)), ((x, 2), (t, 2)), ((x[0], y), (t[0], u))]:
        out = tandem.empty(0, dtype=result_dtype, device=device)
        try:
            ref = torch_fn(name)(*targs)
        except TypeError:  # PyTorch's maximum/minimum take no Python number
            continue
        got = getattr(tandem, name)(*args, out=out)
        assert got is out and tuple(out.shape) == tuple(ref.shape) and out.dtype == result_dtype
        np.testing.assert_allclose(out.cpu().numpy().astype(np.float64), ref.numpy().astype(np.float64), rtol=1e-6)


def test_out_keeps_its_dtype_when_the_result_casts_to_it(device):
    a = tandem.tensor([1.5, 2.5], device=device)
    out = tandem.empty(2, dtype=tandem.float64, device=device)
    tandem.add(a, a, out=out)
    assert out.dtype == tandem.float64 and out.tolist() == [3.0, 5.0]
    flags = tandem.empty(2, dtype=tandem.float32, device=device)
    tandem.lt(a, 2, out=flags)  # bool casts to float, as torch.lt(..., out=float tensor)
    assert flags.tolist() == [1.0, 0.0]
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long"):
        tandem.exp(a, out=tandem.empty(2, dtype=tandem.int64, device=device))
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long"):
        torch.exp(torch.tensor([1.5, 2.5]), out=torch.empty(2, dtype=torch.int64))


def test_resizing_follows_pytorch_with_its_warning(device):
    a = tandem.ones(4, device=device)
    for empty_out in (tandem.empty(0, device=device), tandem.empty(0, 3, device=device)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            tandem.neg(a, out=empty_out)
        assert tuple(empty_out.shape) == (4,) and empty_out.tolist() == [-1.0] * 4
    small = tandem.zeros(2, device=device)
    view = small[:1]
    with pytest.warns(UserWarning, match=r"^An output with one or more elements was resized since it had shape \[2\], "
                      r"which does not match the required output shape \[4\]\. This behavior is deprecated"):
        tandem.mul(a, 3, out=small)
    assert small.tolist() == [3.0] * 4 and view.tolist() == [0.0]  # grown into new memory; old views keep theirs
    big = tandem.zeros(10, device=device)
    with pytest.warns(UserWarning, match="was resized"):
        tandem.add(a, 1, out=big)
    assert tuple(big.shape) == (4,) and big.tolist() == [2.0] * 4 and big.is_contiguous()


def test_out_may_be_an_input_and_bumps_the_version(device):
    x = tandem.arange(4.0, device=device)
    v = x._version
    assert tandem.add(x, 1, out=x) is x and x.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert x._version > v
    y = tandem.arange(6.0, device=device)
    tandem.mul(y[::2], 10, out=y[::2])
    assert y.tolist() == [0.0, 1.0, 20.0, 3.0, 40.0, 5.0]


def test_overlap_errors_are_pytorchs(device):
    x = tandem.arange(6.0, device=device)
    with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input tensor and the "
                       "written-to tensor refer to a single memory location"):
        tandem.add(x[:3], 1, out=x[1:4])
    with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to tensor "
                       "refers to a single memory location"):
        tandem.add(tandem.ones(3, device=device), 1, out=tandem.empty(1, device=device).expand(3))


def test_autograd_refuses_out_as_pytorch():
    msg = ("^exp\\(\\): functions with out=... arguments don't support automatic differentiation, but one of the "
           "arguments requires grad.")
    with pytest.raises(RuntimeError, match=msg):
        tandem.exp(tandem.ones(2, requires_grad=True), out=tandem.empty(2))
    with pytest.raises(RuntimeError, match=msg):
        tandem.exp(tandem.ones(2), out=tandem.empty(2, requires_grad=True))
    with tandem.no_grad():
        out = tandem.empty(2)
        tandem.exp(tandem.ones(2, requires_grad=True), out=out)
    assert not out.requires_grad and out.grad_fn is None


def test_bad_out_arguments():
    with pytest.raises(TypeError, match=r"^add\(\): argument 'out' must be Tensor, not int"):
        tandem.add(tandem.ones(2), 1, out=3)
    with pytest.raises(TypeError):
        tandem.isnan(tandem.ones(2), out=tandem.empty(2, dtype=tandem.bool))  # PyTorch's isnan has no out=
    with pytest.raises(TypeError):
        torch.isnan(torch.ones(2), out=torch.empty(2, dtype=torch.bool))


@pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a (real or emulated) cuda device")
def test_out_on_another_device_is_an_error():
    with pytest.raises(RuntimeError, match="^Expected out tensor to have device cpu, but got cuda:0 instead"):
        tandem.add(tandem.ones(2), 1, out=tandem.empty(2, device="cuda:0"))


def test_alpha_with_out(device):
    a, b = tandem.ones(3, device=device), tandem.full((3,), 2.0, device=device)
    out = tandem.empty(3, device=device)
    assert tandem.add(a, b, alpha=3, out=out) is out and out.tolist() == [7.0] * 3
    assert tandem.sub(a, b, alpha=0.5, out=out) is out and out.tolist() == [0.0] * 3
    ref = torch.empty(3)
    torch.sub(torch.ones(3), torch.full((3,), 2.0), alpha=0.5, out=ref)
    assert ref.tolist() == out.tolist()


ALPHA_CASES = [
    lambda L, a, b: a.add(b, alpha=2), lambda L, a, b: a.sub(b, alpha=0.5), lambda L, a, b: L.add(a, b, alpha=-1),
    lambda L, a, b: a.clone().add_(b, alpha=-3), lambda L, a, b: a.clone().sub_(2, alpha=2),
    lambda L, a, b: a.add(1.5, alpha=2), lambda L, a, b: a.long().add(b.long(), alpha=3),
]


@pytest.mark.parametrize("case", range(len(ALPHA_CASES)))
def test_alpha_on_methods_and_in_place(case, device):
    # p.data.add_(p.grad, alpha=-lr) is how hand-written SGD updates parameters.
    got = ALPHA_CASES[case](tandem, tandem.ones(3, device=device), tandem.arange(3.0, device=device))
    want = ALPHA_CASES[case](torch, torch.ones(3), torch.arange(3.0))
    assert got.tolist() == want.tolist() and str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    assert got.device == tandem.device(device)


ALPHA_ERRORS = [
    lambda L: L.ones(3, dtype=L.int64).add(L.ones(3, dtype=L.int64), alpha=0.5),
    lambda L: L.ones(3, dtype=L.int64).add_(1, alpha=0.5),
    lambda L: L.add(L.ones(3, dtype=L.int64), 2, alpha=1.5),
    lambda L: L.ones(3).add(L.ones(3), alpha="x"),
    lambda L: L.ones(3).sub_(L.ones(3), alpha=None),
]


@pytest.mark.parametrize("case", range(len(ALPHA_ERRORS)))
def test_alpha_errors_match_pytorch(case):
    want, got = oracle.raised(lambda: ALPHA_ERRORS[case](torch)), oracle.raised(lambda: ALPHA_ERRORS[case](tandem))
    assert want is not None and type(got) is type(want), (got, want)
    assert str(got).split("\n")[0] == str(want).split("\n")[0]


def test_alpha_in_place_records_gradients():
    p = tandem.ones(2, requires_grad=True)
    q = p * 1
    q.add_(p, alpha=2)
    q.sum().backward()
    assert p.grad.tolist() == [3.0, 3.0]
