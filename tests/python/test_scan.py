"""cumprod, cummax/cummin, logcumsumexp and the in-place cumsum_/cumprod_ against PyTorch on every device:
values and dtypes (integers exact, wrapping overflow included), ties and NaN, dtype=, errors, and gradients
(finite differences in float64 and PyTorch's, zeros in cumprod's input, ties in cummax's)."""
import math

import pytest
import torch

import tandem
from tandem.autograd import gradcheck
from oracle import assert_same, assert_same_error, from_torch, leaf, rand_values, random_torch

NAN, INF = float("nan"), float("inf")


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


# Lengths around powers of two exercise the last, partial round of the log-step scan.
SHAPES_DIMS = [((1,), 0), ((2,), 0), ((7,), 0), ((16,), -1), ((37,), 0), ((3, 33), 1), ((33, 3), 0),
               ((2, 5, 9), 1), ((2, 5, 9), -1), ((4, 0, 3), 2), ((4, 0, 3), 1)]


@pytest.mark.parametrize("shape,dim", SHAPES_DIMS)
@pytest.mark.parametrize("name", ["float32", "float64", "int64", "int32", "int8", "uint8", "bool"])
def test_cumprod_matches_torch(shape, dim, name, device):
    x = random_torch(shape, name, gen(len(shape)), low=-3, high=4)
    if name.startswith("float"):
        x = x / 3  # keep long products in range
    assert_same(tandem.cumprod(from_torch(x, device), dim), torch.cumprod(x, dim), device=device)
    assert_same(from_torch(x, device).cumprod(dim=dim), x.cumprod(dim=dim), device=device)


def test_cumprod_integer_overflow_wraps_like_torch(device):
    # Wrapping multiplication is associative, so the log-step scan equals the sequential product exactly.
    x = torch.randint(-(2**40), 2**40, (3, 50), generator=gen(1), dtype=torch.int64)
    assert_same(tandem.cumprod(from_torch(x, device), 1), torch.cumprod(x, 1))
    y = torch.randint(-100, 100, (70,), generator=gen(2), dtype=torch.int32)
    assert_same(tandem.cumprod(from_torch(y, device), 0, dtype=tandem.int32), torch.cumprod(y, 0, dtype=torch.int32))


@pytest.mark.parametrize("src,dtype", [("int64", "float64"), ("float32", "float64"), ("float64", "int32"),
                                       ("bool", "float32"), ("int8", "int8"), ("float32", "float16")])
def test_cumprod_dtype_argument(src, dtype, device):
    x = random_torch((4, 6), src, gen(3), low=-2, high=3)
    got = tandem.cumprod(from_torch(x, device), 1, dtype=getattr(tandem, dtype))
    assert_same(got, torch.cumprod(x, 1, dtype=getattr(torch, dtype)), device=device)


def test_cumprod_half_and_zero_dim(device):
    x = torch.tensor([1.5, -0.5, 2.0, 1.25, 3.0], dtype=torch.float16)
    assert_same(tandem.cumprod(from_torch(x, device), 0), torch.cumprod(x, 0))
    for v in (torch.tensor(2.5), torch.tensor(3), torch.tensor(True)):
        assert_same(tandem.cumprod(from_torch(v, device), 0), torch.cumprod(v, 0))
        assert_same(tandem.cumprod(from_torch(v, device), -1), torch.cumprod(v, -1))


def test_cumprod_result_is_fresh(device):
    x = tandem.tensor([2.0], device=device)
    y = tandem.cumprod(x, 0)
    y.add_(1)
    assert x.tolist() == [2.0]


CUMMAX_CASES = [
    [1.0, 3.0, 3.0, 2.0, 3.0, NAN, 5.0, NAN, 1.0],
    [NAN, 1.0, NAN, NAN, 2.0],
    [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0],
    [-INF, INF, 0.0, INF, -INF, -1.0],
    [5.0, 4.0, 3.0, 2.0, 1.0, 0.0, -1.0, -2.0, -3.0],
]


@pytest.mark.parametrize("values", CUMMAX_CASES)
@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin_ties_and_nan(values, op, device):
    x = torch.tensor(values)
    want = getattr(torch, op)(x, 0)
    got = getattr(tandem, op)(from_torch(x, device), 0)
    assert_same(got.values, want.values, device=device)
    assert_same(got.indices, want.indices, device=device)
    assert type(got).__name__ == op and type(got).__module__ == "tandem.return_types"


@pytest.mark.parametrize("shape,dim", SHAPES_DIMS)
@pytest.mark.parametrize("name", ["float32", "float64", "float16", "int64", "int16", "uint8", "bool"])
@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_cummin_match_torch(shape, dim, name, op, device):
    x = random_torch(shape, name, gen(7), low=-3, high=3)  # few distinct values: many ties
    want = getattr(torch, op)(x, dim)
    got = getattr(from_torch(x, device), op)(dim)
    assert_same(got[0], want[0], device=device)
    assert_same(got[1], want[1], device=device)


def test_cummax_zero_dim_and_noncontiguous(device):
    got = tandem.cummax(tandem.tensor(5.0, device=device), 0)
    assert got.values.item() == 5.0 and got.indices.item() == 0 and got.indices.dim() == 0
    x = random_torch((6, 9), "int64", gen(8), low=-2, high=2)
    t = from_torch(x, device).t()
    assert not t.is_contiguous()
    want = torch.cummin(x.t(), 1)
    got = tandem.cummin(t, 1)
    assert_same(got.values, want.values)
    assert_same(got.indices, want.indices)


@pytest.mark.parametrize("shape,dim", SHAPES_DIMS)
@pytest.mark.parametrize("name", ["float32", "float64", "float16", "bfloat16"])
def test_logcumsumexp_matches_torch(shape, dim, name, device):
    x = random_torch(shape, name, gen(9)) * 10  # a wide spread: exp alone would overflow
    tol = {"float16": 2e-3, "bfloat16": 2e-2}.get(name)
    assert_same(tandem.logcumsumexp(from_torch(x, device), dim), torch.logcumsumexp(x, dim), rtol=tol,
                atol=tol, device=device)


def test_logcumsumexp_special_values(device):
    x = torch.tensor([-INF, -INF, 1.0, INF, NAN, 2.0, INF])
    assert_same(tandem.logcumsumexp(from_torch(x, device), 0), torch.logcumsumexp(x, 0))
    big = torch.tensor([1000.0, 1000.0, -1000.0, 999.0], dtype=torch.float64)
    assert_same(from_torch(big, device).logcumsumexp(0), big.logcumsumexp(0))
    assert_same(tandem.logcumsumexp(tandem.tensor(1.5, device=device), 0), torch.logcumsumexp(torch.tensor(1.5), 0))


@pytest.mark.parametrize("op", ["cumsum_", "cumprod_"])
@pytest.mark.parametrize("name", ["float32", "int32", "int64", "uint8"])
def test_inplace_scans(op, name, device):
    x = random_torch((3, 7), name, gen(10), low=-2, high=3)
    t = from_torch(x, device)
    r = getattr(t, op)(1)
    assert r is t
    getattr(x, op)(1)
    assert_same(t, x, device=device)
    # On a view: the base sees the result.
    base = from_torch(x, device)
    col = base[:, 2:5]
    getattr(col, op)(0)
    xb = x.clone()
    getattr(xb[:, 2:5], op)(0)
    assert_same(base, xb)


@pytest.mark.parametrize("case", [
    lambda L: L.cumprod(L.zeros(3), 1),
    lambda L: L.cumprod(L.zeros(2, 3), -3),
    lambda L: L.cummax(L.zeros(3), 2),
    lambda L: L.cummin(L.tensor(1.0), 1),
    lambda L: L.logcumsumexp(L.zeros(3), 5),
    lambda L: L.logcumsumexp(L.tensor([1, 2]), 0),
    lambda L: L.logcumsumexp(L.tensor([True]), 0),
    lambda L: L.tensor([1.0, 2.0]).cumsum_(0, dtype=L.float64),
    lambda L: L.tensor([1, 2]).cumprod_(0, dtype=L.float32),
    lambda L: L.tensor([True, False]).cumsum_(0),
    lambda L: L.tensor([True, False]).cumprod_(0),
], ids=["cumprod_dim", "cumprod_neg_dim", "cummax_dim", "cummin_0d_dim", "lcse_dim", "lcse_long", "lcse_bool",
        "cumsum_inplace_dtype", "cumprod_inplace_dtype", "cumsum_inplace_bool", "cumprod_inplace_bool"])
def test_errors_match_torch(case):
    assert_same_error(case)


def test_dim_argument_is_required_int():
    for bad in (lambda: tandem.cumprod(tandem.zeros(3), None), lambda: tandem.cummax(tandem.zeros(3), 0.5),
                lambda: tandem.zeros(3).logcumsumexp(True)):
        with pytest.raises(TypeError):
            bad()
    with pytest.raises(TypeError):
        tandem.cumprod(tandem.zeros(3))


def test_leaf_inplace_refused():
    x = tandem.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.cumprod_(0)


# ---- gradients ----

def rand(*shape, low=-1.0, high=1.0, seed=0):
    return rand_values(*shape, low=low, high=high, seed=seed, salt=14)


GRAD_CASES = [
    ("cumprod", lambda L, x: L.cumprod(x, 1), rand(3, 9, low=0.5, high=1.5)),
    ("cumprod_signs", lambda L, x: x.cumprod(0), rand(7, 2, low=-1.5, high=1.5)),
    ("cumprod_one_zero", lambda L, x: x.cumprod(-1), [[1.5, 0.0, 2.0, -1.0, 0.5], [0.0, 2.0, 3.0, 1.0, 1.0]]),
    ("cumprod_two_zeros", lambda L, x: x.cumprod(1), [[1.5, 0.0, 2.0, 0.0, 0.5], [2.0, 0.5, 3.0, 0.0, 0.0]]),
    ("cumprod_last_zero", lambda L, x: x.cumprod(0), [2.0, -0.5, 3.0, 0.0]),
    ("cumprod_0d", lambda L, x: x.cumprod(0), 1.5),
    ("cummax", lambda L, x: L.cummax(x, 1)[0], rand(3, 11)),
    ("cummin", lambda L, x: x.cummin(0).values, rand(6, 3)),
    ("cummax_0d", lambda L, x: x.cummax(0)[0], 0.5),
    ("logcumsumexp", lambda L, x: L.logcumsumexp(x, 1), rand(3, 10, low=-5, high=5)),
    ("logcumsumexp_dim0", lambda L, x: x.logcumsumexp(0), rand(9, 2, low=-30, high=30)),
]
GRAD_IDS = [c[0] for c in GRAD_CASES]


@pytest.mark.parametrize("name,fn,values", GRAD_CASES, ids=GRAD_IDS)
def test_gradcheck(name, fn, values, device):
    assert gradcheck(lambda x: fn(tandem, x), (leaf(values, device),))


@pytest.mark.parametrize("name,fn,values", [c for c in GRAD_CASES if not c[0].endswith("0d")],
                         ids=[i for i in GRAD_IDS if not i.endswith("0d")])
def test_gradcheck_noncontiguous(name, fn, values, device):
    values = torch.tensor(values).t().tolist()
    assert gradcheck(lambda x: fn(tandem, x), (leaf(values, device, transpose=True),))


TIE_CASES = GRAD_CASES + [
    ("cummax_ties", lambda L, x: L.cummax(x, 0)[0], [1.0, 3.0, 3.0, 2.0, 3.0, 0.0]),
    ("cummin_ties", lambda L, x: L.cummin(x, -1)[0], [[2.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]]),
    ("logcumsumexp_neginf", lambda L, x: L.logcumsumexp(x, 0), [-INF, 0.5, -INF, 2.0]),
    ("cumprod_zeros_everywhere", lambda L, x: x.cumprod(0), [0.0, 0.0, 0.0]),
]


@pytest.mark.parametrize("name,fn,values", TIE_CASES, ids=[c[0] for c in TIE_CASES])
def test_grads_match_torch(name, fn, values, device):
    x = leaf(values, device)
    tx = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    out, tout = fn(tandem, x), fn(torch, tx)
    assert out.grad_fn.name() == tout.grad_fn.name()
    upstream = rand(*tout.shape, seed=3) if tout.dim() else 0.7
    out.backward(tandem.tensor(upstream, dtype=tandem.float64, device=device))
    tout.backward(torch.tensor(upstream, dtype=torch.float64))
    assert x.grad.device == x.device
    torch.testing.assert_close(torch.tensor(x.grad.tolist(), dtype=torch.float64), tx.grad, equal_nan=True)


@pytest.mark.parametrize("fn", [lambda x: x.cumprod(1), lambda x: tandem.logcumsumexp(x, 1),
                                lambda x: tandem.cummax(x, 1)[0] * x],
                         ids=["cumprod", "logcumsumexp", "cummax"])
def test_second_order(fn, device):
    x = leaf([[0.5, -1.2, 0.0, 2.0], [1.1, 0.7, -0.3, 0.9]], device)
    v = tandem.tensor(rand(2, 4, seed=5), dtype=tandem.float64, device=device)

    def grad_of(a):
        with tandem.enable_grad():
            (g,) = tandem.autograd.grad(fn(a), a, v, create_graph=True)
        return g

    assert gradcheck(grad_of, (x,))


def test_cummax_indices_and_int_outputs_do_not_require_grad():
    x = leaf(rand(3, 4))
    values, indices = tandem.cummax(x, 1)
    assert values.requires_grad and not indices.requires_grad
    assert not tandem.cumprod(x, 1, dtype=tandem.int64).requires_grad


def test_dtype_argument_gradient_comes_back_in_input_dtype(device):
    x = tandem.tensor(rand(2, 5, low=0.5, high=1.5), dtype=tandem.float32, device=device).requires_grad_()
    tx = torch.tensor(rand(2, 5, low=0.5, high=1.5), dtype=torch.float32, requires_grad=True)
    tandem.cumprod(x, 1, dtype=tandem.float64).sum().backward()
    torch.cumprod(tx, 1, dtype=torch.float64).sum().backward()
    assert x.grad.dtype == tandem.float32
    torch.testing.assert_close(torch.tensor(x.grad.tolist()), tx.grad)


def test_inplace_scan_gradient(device):
    x = leaf(rand(3, 4, low=0.5, high=1.5), device)
    tx = torch.tensor(rand(3, 4, low=0.5, high=1.5), dtype=torch.float64, requires_grad=True)
    y, z = x * 2, x * 3
    y.cumprod_(1)
    z.cumsum_(0)
    ty, tz = tx * 2, tx * 3
    ty.cumprod_(1)
    tz.cumsum_(0)
    assert y.grad_fn.name() == ty.grad_fn.name() and z.grad_fn.name() == tz.grad_fn.name()
    (y * z).sum().backward()
    (ty * tz).sum().backward()
    torch.testing.assert_close(torch.tensor(x.grad.tolist(), dtype=torch.float64), tx.grad)


def test_long_scan_is_accurate():
    # 100k elements: 17 rounds; the reassociated float products stay close to PyTorch's sequential ones.
    x = 1 + torch.randn(100_000, generator=gen(11), dtype=torch.float64) * 1e-4
    assert_same(tandem.cumprod(from_torch(x), 0), torch.cumprod(x, 0), rtol=1e-9, atol=0)
    v = torch.randn(100_000, generator=gen(12))
    assert_same(tandem.cummax(from_torch(v), 0).indices, torch.cummax(v, 0).indices)
    assert math.isclose(tandem.logcumsumexp(from_torch(v), 0)[-1].item(), torch.logcumsumexp(v, 0)[-1].item(),
                        rel_tol=1e-5)
