"""torch.geqrf, torch.linalg.householder_product (torch.orgqr) and torch.ormqr against PyTorch on every device:
values, dtypes, shapes (batches, empty batches, zero sizes), named-tuple results, Tensor methods, PyTorch's
errors (types and messages), and the gradients of householder_product and ormqr (tandem's gradcheck in float64
and complex128, and PyTorch's gradients of real losses)."""
import pytest
import torch

import tandem
from oracle import assert_close_to_torch, assert_same_error, from_torch, from_torch_resolved, to_torch
from tandem.autograd import gradcheck, gradgradcheck

DTYPES = ["float32", "float64", "complex64", "complex128"]


def tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype in ("complex64", "float32") else dict(rtol=1e-10, atol=1e-10)


def rand(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.complex128)
    if dtype in ("float32", "float64"):
        x = x.real.clone()
    return x.to(getattr(torch, dtype))


T = from_torch_resolved
close = assert_close_to_torch

SHAPES = [(5, 3), (3, 5), (4, 4), (2, 3, 5, 4), (0, 3), (3, 0), (2, 0, 3, 3), (1, 1)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_geqrf_matches_pytorch(device, dtype, shape):
    a = rand(shape, dtype)
    got, want = tandem.geqrf(T(a, device)), torch.geqrf(a)
    assert type(got).__name__ == "geqrf" and got._fields == ("a", "tau")
    assert type(got) is tandem.return_types.geqrf
    close(got.a, want.a, device, **tol(dtype))
    close(got.tau, want.tau, device, **tol(dtype))
    close(T(a, device).geqrf().tau, want.tau, device, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,k", [((5, 3), 3), ((5, 3), 2), ((5, 3), 0), ((4, 4), 4), ((2, 3, 6, 4), 3),
                                     ((0, 4, 3), 2), ((0, 0), 0), ((3, 0), 0)])
def test_householder_product_matches_pytorch(device, dtype, shape, k):
    a, tau = rand(shape, dtype), rand(shape[:-2] + (k,), dtype, seed=1)
    want = torch.linalg.householder_product(a, tau)
    close(tandem.linalg.householder_product(T(a, device), T(tau, device)), want, device, **tol(dtype))
    close(tandem.orgqr(T(a, device), T(tau, device)), want, device, **tol(dtype))
    close(T(a, device).orgqr(T(tau, device)), want, device, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_geqrf_then_householder_product_is_qr(device, dtype):
    a = rand((2, 6, 4), dtype)
    qr, tau = tandem.geqrf(T(a, device))
    q = tandem.linalg.householder_product(qr, tau)
    r = qr[..., :4, :].triu()
    close(q @ r, a, device, **tol(dtype))
    close(q.mH @ q, torch.eye(4, dtype=a.dtype).expand(2, 4, 4), **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("shape,other", [((5, 3), (5, 2)), ((3, 5), (3, 4)), ((2, 4, 4), (2, 4, 3)),
                                         ((0, 5, 3), (0, 5, 2)), ((5, 0), (5, 2)), ((5, 3), (5, 0))])
def test_ormqr_matches_pytorch(device, dtype, left, transpose, shape, other):
    a = rand(shape, dtype)
    qr, tau = torch.geqrf(a)
    c = rand(other if left else other[:-2] + (other[-1], other[-2]), dtype, seed=2)
    want = torch.ormqr(qr, tau, c, left, transpose)
    args = (T(qr, device), T(tau, device), T(c, device))
    close(tandem.ormqr(*args, left, transpose), want, device, **tol(dtype))
    close(tandem.ormqr(*args, left=left, transpose=transpose), want, **tol(dtype))
    close(args[0].ormqr(args[1], args[2], left=left, transpose=transpose), want, **tol(dtype))


def test_ormqr_with_arbitrary_tau(device):
    a, tau, c = rand((6, 4), "float64"), rand((4,), "float64", 1), rand((6, 3), "float64", 2)
    close(tandem.ormqr(T(a, device), T(tau, device), T(c, device), transpose=True),
          torch.ormqr(a, tau, c, transpose=True), device, **tol("float64"))


HOUSEHOLDER_ERRORS = [
    lambda L: L.geqrf(L.ones(3)),
    lambda L: L.geqrf(L.ones(3, 3, dtype=L.int64)),
    lambda L: L.geqrf(L.ones(3, 3, dtype=L.float16)),
    lambda L: L.geqrf(L.ones(3, 3, dtype=L.bool)),
    lambda L: L.linalg.householder_product(L.ones(3), L.ones(3)),
    lambda L: L.linalg.householder_product(L.ones(3, 4), L.ones(3)),
    lambda L: L.linalg.householder_product(L.ones(4, 3), L.ones(4)),
    lambda L: L.linalg.householder_product(L.ones(4, 3), L.ones(2, 2)),
    lambda L: L.linalg.householder_product(L.ones(2, 4, 3), L.ones(3, 2)),
    lambda L: L.linalg.householder_product(L.ones(2, 4, 3), L.ones(2)),
    lambda L: L.linalg.householder_product(L.ones(4, 3), L.ones(2, dtype=L.float64)),
    lambda L: L.linalg.householder_product(L.ones(4, 3), L.ones(2, dtype=L.complex64)),
    lambda L: L.linalg.householder_product(L.ones(4, 3, dtype=L.int64), L.ones(2, dtype=L.int64)),
    lambda L: L.linalg.householder_product(L.ones(4, 3, dtype=L.float16), L.ones(2, dtype=L.float16)),
    lambda L: L.linalg.householder_product(L.ones(3, 4, dtype=L.int64), L.ones(5, dtype=L.int64)),
    lambda L: L.orgqr(L.ones(3), L.ones(3)),
    lambda L: L.ormqr(L.ones(3), L.ones(3), L.ones(3, 2)),
    lambda L: L.ormqr(L.ones(5, 3), L.ones(3), L.ones(5)),
    lambda L: L.ormqr(L.ones(5, 3), L.ones(4), L.ones(5, 2)),
    lambda L: L.ormqr(L.ones(5, 3), L.ones(2), L.ones(5, 2)),
    lambda L: L.ormqr(L.ones(5, 3), L.ones(3), L.ones(4, 2)),
    lambda L: L.ormqr(L.ones(5, 3), L.ones(3), L.ones(5, 2), left=False),
    lambda L: L.ormqr(L.ones(5, 3), L.ones(2), L.ones(2, 5), left=False),
    lambda L: L.ormqr(L.ones(5, 3), L.ones(4), L.ones(4, 2)),
    lambda L: L.ormqr(L.ones(5, 3), L.ones(2, 3), L.ones(5, 2)),
    lambda L: L.ormqr(L.ones(2, 5, 3), L.ones(3, 3), L.ones(2, 5, 2)),
    lambda L: L.ormqr(L.ones(2, 5, 3), L.ones(2, 3), L.ones(3, 5, 2)),
    lambda L: L.ormqr(L.ones(2, 5, 3), L.ones(2, 3), L.ones(5, 2)),
    lambda L: L.ormqr(L.ones(5, 3), L.ones(3), L.ones(2, 5, 2)),
    lambda L: L.ormqr(L.ones(5, 3), L.ones(3, dtype=L.float64), L.ones(5, 2)),
    lambda L: L.ormqr(L.ones(5, 3), L.ones(3), L.ones(5, 2, dtype=L.float64)),
    lambda L: L.ormqr(L.ones(5, 3), L.ones(3, dtype=L.complex64), L.ones(5, 2)),
    lambda L: L.ormqr(L.ones(5, 3, dtype=L.int64), L.ones(3, dtype=L.int64), L.ones(5, 2, dtype=L.int64)),
    lambda L: L.ormqr(L.ones(5, 3, dtype=L.float16), L.ones(3, dtype=L.float16), L.ones(5, 2, dtype=L.float16)),
    lambda L: L.ormqr(L.ones(5, 3, dtype=L.int64), L.ones(4, dtype=L.int64), L.ones(4, 2, dtype=L.int64)),
]


@pytest.mark.parametrize("case", range(len(HOUSEHOLDER_ERRORS)))
def test_errors_match_pytorch(case):
    assert_same_error(HOUSEHOLDER_ERRORS[case])


def test_device_mismatch_errors():
    if "cuda:0" not in [f"cuda:{i}" for i in range(tandem.cuda.device_count())]:
        pytest.skip("needs a (real or emulated) cuda device")
    a, tau = tandem.ones(4, 3), tandem.ones(2, device="cuda:0")
    with pytest.raises(RuntimeError, match="^torch.linalg.householder_product: Expected tau and input tensors to be "
                                           "on the same device, but got tau on cuda:0 and input on cpu"):
        tandem.linalg.householder_product(a, tau)
    with pytest.raises(RuntimeError, match="cuda:0"):
        tandem.ormqr(tandem.ones(5, 3), tandem.ones(3), tandem.ones(5, 2, device="cuda:0"))


def test_geqrf_backward_raises_as_pytorch(device):
    def case(L):
        x = L.ones(4, 3, dtype=L.float64, device="cpu" if L is torch else device).requires_grad_()
        a, tau = L.geqrf(x)
        assert a.grad_fn.name() == "GeqrfBackward0"
        (a.sum() + tau.sum()).backward()
    assert_same_error(case)


def _hp(L, a, tau):
    return L.linalg.householder_product(a, tau)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("shape,k", [((5, 3), 3), ((5, 3), 2), ((4, 4), 4), ((2, 4, 3), 3), ((4, 1), 1)])
def test_householder_product_gradcheck(dtype, shape, k):
    a = T(rand(shape, dtype)).requires_grad_()
    tau = T(rand(shape[:-2] + (k,), dtype, 1) * 0.5).requires_grad_()
    assert gradcheck(lambda x, t: _hp(tandem, x, t), (a, tau))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_householder_product_gradgradcheck(dtype):
    a = T(rand((4, 3), dtype)).requires_grad_()
    tau = T(rand((3,), dtype, 1) * 0.5).requires_grad_()
    assert gradgradcheck(lambda x, t: _hp(tandem, x, t), (a, tau))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_ormqr_gradcheck(dtype, left, transpose, shape):
    m, n = shape[-2:]
    a = T(rand(shape, dtype)).requires_grad_()
    tau = T(rand(shape[:-2] + (min(m, n),), dtype, 1) * 0.5).requires_grad_()
    c = T(rand(shape[:-2] + ((m, 2) if left else (2, m)), dtype, 2)).requires_grad_()
    assert gradcheck(lambda x, t, o: tandem.ormqr(x, t, o, left, transpose), (a, tau, c))


def grads(lib, fn, *values, device="cpu"):
    leaves = [(T(v, device) if lib is tandem else v.clone()).requires_grad_() for v in values]
    out = fn(lib, *leaves)
    assert out.grad_fn is not None
    out.backward()
    return [to_torch(x.grad) if lib is tandem else x.grad for x in leaves]


GRAD_CASES = {
    "householder_product": (lambda L, a, t: (L.linalg.householder_product(a, t) * a.sin()).sum().abs(),
                            [(2, 5, 3), (2, 3)]),
    "householder_product_k": (lambda L, a, t: L.linalg.householder_product(a, t).cos().sum().real,
                              [(6, 4), (2,)]),
    "orgqr": (lambda L, a, t: L.orgqr(a, t).exp().sum().abs(), [(4, 4), (3,)]),
    "ormqr": (lambda L, a, t, c: (L.ormqr(a, t, c) * c).sum().abs(), [(5, 3), (3,), (5, 2)]),
    "ormqr_right_t": (lambda L, a, t, c: L.ormqr(a, t, c, False, True).sin().sum().real,
                      [(2, 4, 6), (2, 4), (2, 3, 4)]),
}


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_match_pytorch(device, dtype, name):
    loss, shapes = GRAD_CASES[name]
    values = [rand(s, dtype, seed=i) * (0.5 if i == 1 else 1.0) for i, s in enumerate(shapes)]
    for got, want in zip(grads(tandem, loss, *values, device=device), grads(torch, loss, *values)):
        torch.testing.assert_close(got, want, rtol=1e-8, atol=1e-8)


def test_keyword_names_are_pytorchs():
    a, t = rand((4, 3), "float64"), rand((2,), "float64", 1)
    c = rand((4, 2), "float64", 2)
    qr, tau = torch.geqrf(a)
    close(tandem.linalg.householder_product(input=T(a), tau=T(t)), torch.linalg.householder_product(input=a, tau=t))
    close(tandem.orgqr(T(a), input2=T(t)), torch.orgqr(a, input2=t))
    close(T(a).orgqr(input2=T(t)), a.orgqr(input2=t))
    close(tandem.geqrf(input=T(a)).tau, torch.geqrf(input=a).tau)
    close(tandem.ormqr(input=T(qr), input2=T(tau), input3=T(c), left=True, transpose=True),
          torch.ormqr(input=qr, input2=tau, input3=c, left=True, transpose=True))


def test_grad_fn_names():
    a = tandem.ones(4, 3, dtype=tandem.float64).requires_grad_()
    t = tandem.ones(3, dtype=tandem.float64).requires_grad_()
    assert tandem.linalg.householder_product(a, t).grad_fn.name() == "LinalgHouseholderProductBackward0"
    assert tandem.ormqr(a, t, tandem.ones(4, 2, dtype=tandem.float64)).grad_fn.name() == "OrmqrBackward0"
