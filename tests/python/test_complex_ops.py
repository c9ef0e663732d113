"""complex64 / complex128 forward ops beyond the first set (test_complex.py): elementwise math, pow, predicates,
where/masked_fill, reductions and scans, products through BLAS/cuBLAS, and PyTorch's refusals, against PyTorch
on every device."""
import math

import pytest
import torch

import tandem
from oracle import assert_same_error

CDTYPES = ["complex64", "complex128"]
# Off the branch cuts of the inverse functions (the real and imaginary axes beyond +-1), small and large.
VALUES = [1 + 2j, 3 - 4j, -0.5 + 0.25j, 0.3 - 0.1j, -2 - 1j, 1.5 + 0.5j, 1e-4 + 2e-4j, -0.2 + 3j, 7 + 0.5j,
          -4 - 6j, 0.01 - 0.9j, 2.5 + 1e-3j]
INF, NAN = math.inf, math.nan
SPECIAL = [complex(INF, 0), complex(-INF, 0), complex(0, INF), complex(INF, INF), complex(NAN, 0),
           complex(0, NAN), complex(NAN, NAN), complex(1, INF), complex(INF, NAN), 0j]


def tdtype(name):
    return getattr(tandem, name)


def to_torch(t):
    return torch.tensor(t.cpu().tolist(), dtype=getattr(torch, str(t.dtype).split(".")[-1])).reshape(
        tuple(t.shape))


def check(t, expected, device, exact=False, **tol):
    """Values, dtype, shape and device of tandem tensor ``t`` against torch tensor ``expected``."""
    assert str(t.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1], (t.dtype, expected.dtype)
    assert tuple(t.shape) == tuple(expected.shape)
    assert t.device == tandem.device(device)
    got = to_torch(t)
    if exact or not (expected.dtype.is_floating_point or expected.dtype.is_complex):
        assert torch.equal(got, expected) or (
            got.dtype.is_complex and torch.equal(got.isnan(), expected.isnan())
            and torch.equal(got[~got.isnan()], expected[~expected.isnan()])), (got, expected)
    else:
        torch.testing.assert_close(got, expected, equal_nan=True, **tol)


def check_special(t, expected, device):
    """Each part's NaNs and infinities where PyTorch has them (the sign of an infinity is not compared: C99
    leaves several unspecified); finite parts to round-off."""
    assert t.dtype == getattr(tandem, str(expected.dtype).split(".")[-1]) and t.device == tandem.device(device)
    got = to_torch(t)
    if not got.dtype.is_complex:
        got, expected = got.unsqueeze(-1), expected.unsqueeze(-1)
    g, e = torch.view_as_real(got) if got.dtype.is_complex else got, \
        torch.view_as_real(expected) if expected.dtype.is_complex else expected
    assert torch.equal(g.isnan(), e.isnan()), (got, expected)
    assert torch.equal(g.isinf(), e.isinf()), (got, expected)
    finite = g.isfinite()
    torch.testing.assert_close(g[finite], e[finite], rtol=1e-5, atol=1e-6)


def pair(values, name="complex64", device="cpu", shape=None):
    t = tandem.tensor(values, dtype=tdtype(name), device=device)
    x = torch.tensor(values, dtype=getattr(torch, name))
    if shape is not None:
        t, x = t.reshape(*shape), x.reshape(*shape)
    return t, x


def tol(name):
    return {"rtol": 2e-6, "atol": 1e-6} if name == "complex64" else {"rtol": 1e-13, "atol": 1e-14}


# ---- elementwise math ----

UNARY = ["reciprocal", "rsqrt", "square", "sgn", "exp2", "expm1", "log1p", "log2", "log10", "sinh", "cosh",
         "tan", "asin", "acos", "atan", "asinh", "acosh", "atanh", "sigmoid", "sinc", "exp", "log", "sqrt", "sin",
         "cos", "tanh", "abs", "neg"]


@pytest.mark.parametrize("name", CDTYPES)
@pytest.mark.parametrize("op", UNARY)
def test_unary_math(device, op, name):
    t, x = pair(VALUES, name, device)
    fn = {"sinc": (tandem.sinc, torch.sinc)}.get(op, (getattr(tandem, op), getattr(torch, op)))
    check(fn[0](t), fn[1](x), device, **tol(name))
    check(getattr(t, op)(), getattr(x, op)(), device, **tol(name))


@pytest.mark.parametrize("op", ["expm1", "log1p", "asinh", "atanh", "asin", "atan", "tan", "sinh", "sinc"])
def test_small_arguments_keep_relative_precision(device, op):
    """Near 0 these are ~z: the result must be relative-accurate, not just absolutely close to 0."""
    vals = [1e-10 + 2e-10j, -3e-9 + 1e-12j, 1e-20 - 1e-20j]
    t, x = pair(vals, "complex128", device)
    got, want = to_torch(getattr(tandem, op)(t)), getattr(torch, op)(x)
    assert torch.allclose(got, want, rtol=1e-12, atol=0), (got, want)


@pytest.mark.parametrize("op", ["asinh", "acosh", "asin", "acos"])
def test_large_arguments_do_not_overflow(device, op):
    vals = [1e30 + 1e30j, -3e200 + 1j, 2e10 - 5e10j]
    t, x = pair(vals, "complex128", device)
    check(getattr(tandem, op)(t), getattr(torch, op)(x), device, rtol=1e-13, atol=0)


@pytest.mark.parametrize("name", CDTYPES)
def test_predicates_and_special_values(device, name):
    t, x = pair(SPECIAL + VALUES[:2], name, device)
    for op in ["isnan", "isinf", "isfinite", "isreal", "logical_not"]:
        check(getattr(tandem, op)(t), getattr(torch, op)(x), device)
    # PyTorch's (glibc's C99) infinities and NaNs, part by part. expm1 and log1p follow C99 and the Array API
    # standard where PyTorch's own formulas give NaN (expm1(inf + 0i) = inf + 0i; PyTorch: inf + NaN i).
    more = [complex(-INF, INF), complex(-INF, NAN), complex(NAN, INF), complex(2, NAN), complex(NAN, 2),
            complex(-INF, 3), complex(INF, -3), complex(-0.0, INF)]
    t, x = pair(SPECIAL + more + VALUES[:2], name, device)
    for op in ["reciprocal", "rsqrt", "square", "exp", "exp2", "log", "log2", "log10", "sqrt", "sin", "cos",
               "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan", "asinh", "acosh", "atanh", "sigmoid",
               "abs"]:
        check_special(getattr(tandem, op)(t), getattr(torch, op)(x), device)
    s, y = pair([complex(NAN, 0), complex(0, NAN), 0j, -0j, 3 - 4j], name, device)
    check_special(tandem.sgn(s), torch.sgn(y), device)
    e, y = pair([complex(INF, 0), complex(-INF, 0), complex(-INF, INF), complex(INF, INF), complex(NAN, 0)],
                name, device)
    check_special(tandem.expm1(e), torch.tensor([complex(INF, 0), -1, -1, complex(INF, NAN), complex(NAN, 0)],
                                                dtype=y.dtype), device)


def test_logical_binary_ops(device):
    t, x = pair([0j, 1j, 2 + 0j, 0j], device=device)
    u, y = pair([0j, 0j, 1 + 1j, 3j], device=device)
    for op in ["logical_and", "logical_or", "logical_xor"]:
        check(getattr(tandem, op)(t, u), getattr(torch, op)(x, y), device)
    check(t.any(), x.any(), device)
    check(t.all(), x.all(), device)
    check(tandem.nonzero(t), torch.nonzero(x), device)
    check(tandem.count_nonzero(t), torch.count_nonzero(x), device)


@pytest.mark.parametrize("name", CDTYPES)
def test_pow(device, name):
    t, x = pair(VALUES, name, device)
    u, y = pair(VALUES[::-1], name, device)
    check(tandem.pow(t, u), torch.pow(x, y), device, **tol(name))
    for e in [2, 3, 0.5, -1, 0, 1, 2.5, -0.5, 1 + 1j, 1j]:
        check(t ** e, x ** e, device, **tol(name))
        check(tandem.pow(t, e), torch.pow(x, e), device, **tol(name))
    check(2 ** t, 2 ** x, device, **tol(name))
    check((1 - 1j) ** t, (1 - 1j) ** x, device, **tol(name))
    real = tandem.tensor([1.0, 2.0, 3.0], device=device)
    check(real ** u[:3], torch.tensor([1.0, 2.0, 3.0]) ** y[:3], device, **tol(name))
    z, zz = pair([0j, 0j], name, device)
    check(z ** 2, zz ** 2, device, exact=True)  # 0 ** 2 is 0, not exp(2 log 0)
    w = t.clone()
    w.pow_(2)
    check(w, x ** 2, device, **tol(name))


def test_scalar_arithmetic_and_alpha(device):
    t, x = pair(VALUES, "complex64", device)
    u, y = pair(VALUES[::-1], "complex64", device)
    check(tandem.add(t, u, alpha=2j), torch.add(x, y, alpha=2j), device)
    check(tandem.sub(t, u, alpha=2), torch.sub(x, y, alpha=2), device)
    check(t * (2 - 1j), x * (2 - 1j), device)
    check(t / 3j, x / 3j, device)
    check(tandem.isclose(t, t + 1e-7), torch.isclose(x, x + 1e-7), device)


def test_isclose_allclose(device):
    a = [1 + 1j, complex(NAN, 0), complex(INF, 1), 1 + 1j, complex(0, NAN)]
    b = [1 + 1.000001j, complex(NAN, 0), complex(INF, 1), 1 + 2j, complex(0, NAN)]
    t, x = pair(a, "complex128", device)
    u, y = pair(b, "complex128", device)
    for equal_nan in [False, True]:
        check(tandem.isclose(t, u, equal_nan=equal_nan), torch.isclose(x, y, equal_nan=equal_nan), device)
    assert tandem.allclose(t[:3], u[:3], equal_nan=True) == torch.allclose(x[:3], y[:3], equal_nan=True)
    assert tandem.allclose(t, u) == torch.allclose(x, y)


# ---- data movement ----

@pytest.mark.parametrize("name", CDTYPES)
def test_where_masked_fill_and_moves(device, name):
    t, x = pair(VALUES, name, device, shape=(3, 4))
    u, y = pair(VALUES[::-1], name, device, shape=(3, 4))
    mask = [[True, False, True, False], [False, False, True, True], [True, True, False, False]]
    m, mm = tandem.tensor(mask, device=device), torch.tensor(mask)
    check(tandem.where(m, t, u), torch.where(mm, x, y), device, exact=True)
    check(tandem.where(m, t, 2j), torch.where(mm, x, 2j), device, exact=True)
    check(t.masked_fill(m, 3 - 1j), x.masked_fill(mm, 3 - 1j), device, exact=True)
    check(t.tril(), x.tril(), device, exact=True)
    check(t.triu(1), x.triu(1), device, exact=True)
    check(tandem.cat([t, u], 1), torch.cat([x, y], 1), device, exact=True)
    check(tandem.stack([t, u]), torch.stack([x, y]), device, exact=True)
    idx, ii = tandem.tensor([[2, 0, 1, 1]], device=device), torch.tensor([[2, 0, 1, 1]])
    check(t.gather(0, idx), x.gather(0, ii), device, exact=True)
    check(t.index_select(1, idx[0]), x.index_select(1, ii[0]), device, exact=True)
    check(t.clone().scatter_(0, idx, u[:1]), x.clone().scatter_(0, ii, y[:1]), device, exact=True)
    check(t[m], x[mm], device, exact=True)
    check(t.flip(0).contiguous(), x.flip(0).contiguous(), device, exact=True)
    check(tandem.full((2, 2), 1 + 2j, device=device), torch.full((2, 2), 1 + 2j), device, exact=True)
    check(tandem.zeros_like(t).fill_(2j), torch.zeros_like(x).fill_(2j), device, exact=True)


# ---- reductions and scans ----

@pytest.mark.parametrize("name", CDTYPES)
def test_prod(device, name):
    t, x = pair(VALUES[:11], name, device)
    check(t.prod(), x.prod(), device, **tol(name))
    t, x = pair(VALUES, name, device, shape=(3, 4))
    for dim in [0, 1, -1]:
        check(t.prod(dim), x.prod(dim), device, **tol(name))
        check(t.prod(dim, keepdim=True), x.prod(dim, keepdim=True), device, **tol(name))
    e, ee = pair([], name, device, shape=(0, 3))
    check(e.prod(0), ee.prod(0), device, exact=True)
    check(e.prod(), ee.prod(), device, exact=True)
    check(tandem.tensor([1, 2, 3], device=device).prod(dtype=tdtype(name)),
          torch.tensor([1, 2, 3]).prod(dtype=getattr(torch, name)), device, exact=True)


@pytest.mark.parametrize("name", CDTYPES)
def test_cumsum_cumprod(device, name):
    t, x = pair(VALUES, name, device, shape=(3, 4))
    for dim in [0, 1, -1]:
        check(t.cumsum(dim), x.cumsum(dim), device, **tol(name))
        check(t.cumprod(dim), x.cumprod(dim), device, **tol(name))
        check(t.mT.cumsum(dim), x.mT.cumsum(dim), device, **tol(name))
    check(tandem.tensor([1, 2], device=device).cumsum(0, dtype=tdtype(name)),
          torch.tensor([1, 2]).cumsum(0, dtype=getattr(torch, name)), device)


@pytest.mark.parametrize("name", CDTYPES)
def test_var_std_norm(device, name):
    t, x = pair(VALUES, name, device, shape=(3, 4))
    for kwargs in [{}, {"dim": 0}, {"dim": 1, "keepdim": True}, {"correction": 0}]:
        check(tandem.var(t, **kwargs), torch.var(x, **kwargs), device, **tol(name))
        check(tandem.std(t, **kwargs), torch.std(x, **kwargs), device, **tol(name))
    check(t.mean(1), x.mean(1), device, **tol(name))
    check(t.sum((0, 1)), x.sum((0, 1)), device, **tol(name))
    for ord in [2, 1, INF, -INF, 0, 3, 0.5]:
        check(tandem.linalg.vector_norm(t, ord), torch.linalg.vector_norm(x, ord), device, **tol(name))
    check(tandem.linalg.vector_norm(t, dim=1), torch.linalg.vector_norm(x, dim=1), device, **tol(name))
    check(t.norm(), x.norm(), device, **tol(name))


# ---- products (cgemm/zgemm, cuBLAS) ----

@pytest.mark.parametrize("name", CDTYPES)
def test_matrix_products(device, name):
    g = torch.Generator().manual_seed(0)
    ct = getattr(torch, name)

    def rand(*shape):
        x = torch.complex(torch.randn(*shape, generator=g), torch.randn(*shape, generator=g)).to(ct)
        return tandem.tensor(x.tolist(), dtype=tdtype(name), device=device).reshape(*shape), x

    a, x = rand(5, 7)
    b, y = rand(7, 3)
    check(tandem.mm(a, b), torch.mm(x, y), device, **tol(name))
    check(a @ b, x @ y, device, **tol(name))
    check(a.mT.mT.contiguous() @ b[:, ::2], x @ y[:, ::2], device, **tol(name))  # strided columns
    check(b.mT @ a.mT, y.mT @ x.mT, device, **tol(name))  # transposed operands (BLAS's Trans)
    check(tandem.mv(a, b[:, 0]), torch.mv(x, y[:, 0]), device, **tol(name))
    check(a[0] @ b, x[0] @ y, device, **tol(name))
    check(tandem.dot(a[0], b[:, 1]), torch.dot(x[0], y[:, 1]), device, **tol(name))
    check(tandem.vdot(a[0], b[:, 1]), torch.vdot(x[0], y[:, 1]), device, **tol(name))
    p, xp = rand(4, 2, 3)
    q, xq = rand(4, 3, 5)
    check(tandem.bmm(p, q), torch.bmm(xp, xq), device, **tol(name))
    check(p @ q[0], xp @ xq[0], device, **tol(name))  # broadcast batch
    r, xr = rand(2, 1, 2, 3)
    check(r @ q, xr @ xq, device, **tol(name))
    c, xc = rand(5, 3)
    check(tandem.addmm(c, a, b, beta=0.5, alpha=2), torch.addmm(xc, x, y, beta=0.5, alpha=2), device,
          **tol(name))
    e, xe = rand(5, 0)
    f, xf = rand(0, 3)
    check(e @ f, xe @ xf, device, exact=True)


# ---- what PyTorch refuses ----

@pytest.mark.parametrize("case", [
    lambda m: m.ones(2, dtype=m.complex64).sign(),
    lambda m: m.ones(2, dtype=m.complex64).floor(),
    lambda m: m.ones(2, dtype=m.complex64).ceil(),
    lambda m: m.ones(2, dtype=m.complex64).trunc(),
    lambda m: m.ones(2, dtype=m.complex64).round(),
    lambda m: m.ones(2, dtype=m.complex64).relu(),
    lambda m: m.ones(2, dtype=m.complex64).clamp(min=0),
    lambda m: m.ones(2, dtype=m.complex64).erf(),
    lambda m: m.ones(2, dtype=m.complex64).frac(),
    lambda m: m.ones(2, dtype=m.complex64).signbit(),
    lambda m: m.ones(2, dtype=m.complex128).lgamma(),
    lambda m: m.maximum(m.ones(2, dtype=m.complex64), m.ones(2, dtype=m.complex64)),
    lambda m: m.minimum(m.ones(2, dtype=m.complex64), m.ones(2, dtype=m.complex64)),
    lambda m: m.heaviside(m.ones(2, dtype=m.complex64), m.ones(2, dtype=m.complex64)),
    lambda m: m.atan2(m.ones(2, dtype=m.complex64), m.ones(2, dtype=m.complex64)),
    lambda m: m.ones(2, dtype=m.complex64) // 2,
    lambda m: m.ones(2, dtype=m.complex64) < 1,
    lambda m: m.ones(2, dtype=m.complex64) >= m.ones(2, dtype=m.complex64),
    lambda m: m.ones(2, dtype=m.complex64).max(),
    lambda m: m.ones(2, dtype=m.complex64).min(),
    lambda m: m.ones(2, dtype=m.complex64).amax(0),
    lambda m: m.ones(2, dtype=m.complex64).amin(0),
    lambda m: m.ones(2, dtype=m.complex64).max(0),
    lambda m: m.ones(2, dtype=m.complex64).argmax(),
    lambda m: m.ones(2, dtype=m.complex64).argmin(0),
    lambda m: m.ones(2, dtype=m.complex64).sort(),
    lambda m: m.ones(2, dtype=m.complex64).argsort(),
    lambda m: m.ones(2, dtype=m.complex64).topk(1),
    lambda m: m.linalg.vector_norm(m.ones(2, dtype=m.complex64), dtype=m.float64),
    lambda m: m.dot(m.ones(2, dtype=m.complex64), m.ones(2)),
    lambda m: m.ones(2, 2, dtype=m.complex64) @ m.ones(2, 2),
])
def test_refusals_match_pytorch(case):
    assert_same_error(case)


@pytest.mark.parametrize("op", ["floor", "sort", "max", "lt", "atan2"])
def test_refusals_on_every_device(device, op):
    """Refused ops raise on the calling thread, on every device, and leave the operands alone."""
    t = tandem.tensor([1 + 2j, 3 - 4j], device=device)
    call = {"lt": lambda: t < t, "atan2": lambda: tandem.atan2(t, t)}.get(op, lambda: getattr(t, op)())
    with pytest.raises((NotImplementedError, TypeError)):
        call()
    assert t.tolist() == [1 + 2j, 3 - 4j]


def test_autograd_refused_by_new_ops():
    # Complex forwards whose gradients are not checked yet refuse to record rather than use a real formula.
    x = tandem.ones(2, dtype=tandem.complex64, requires_grad=True)
    index = tandem.tensor([1, 1])
    with pytest.raises(NotImplementedError, match="the derivative of ScatterReduceBackward0 is not implemented for "
                                                  "complex tensors in tandem"):
        x.scatter_reduce(0, index, x * 2, "sum")
    with tandem.no_grad():
        assert x.scatter_reduce(0, index, x * 2, "sum").tolist() == [1 + 0j, 5 + 0j]
    # where and pow of a real tensor with complex operands record (tests/python/test_complex_autograd.py)
    r = tandem.ones(2, dtype=tandem.float32, requires_grad=True)
    assert tandem.where(r > 0, r, 1j).grad_fn.name() == "WhereBackward0"
    assert (r ** (1 + 1j)).grad_fn.name() == "PowBackward0"


def test_lerp(device):
    t, x = pair(VALUES[:4], "complex64", device)
    u, y = pair(VALUES[4:8], "complex64", device)
    check(tandem.lerp(t, u, 0.25), torch.lerp(x, y, 0.25), device)
    check(tandem.lerp(t, u, 0.75), torch.lerp(x, y, 0.75), device)
    w, ww = pair([0.1j, 0.9, 0.5 + 0.5j, 0j], "complex64", device)
    check(tandem.lerp(t, u, w), torch.lerp(x, y, ww), device)


@pytest.mark.parametrize("name", CDTYPES)
def test_accumulating_moves(device, name):
    """scatter_add/index_add/index_put(accumulate=True): the parts add up independently, duplicates too."""
    t, x = pair(VALUES[:6], name, device, shape=(2, 3))
    u, y = pair(VALUES[6:], name, device, shape=(2, 3))
    idx, ii = tandem.tensor([[0, 1, 0], [0, 0, 0]], device=device), torch.tensor([[0, 1, 0], [0, 0, 0]])
    check(t.clone().scatter_add_(0, idx, u), x.clone().scatter_add_(0, ii, y), device, **tol(name))
    check(t.scatter_add(1, idx, u), x.scatter_add(1, ii, y), device, **tol(name))
    j, jj = tandem.tensor([2, 2], device=device), torch.tensor([2, 2])
    check(t.clone().index_add_(1, j, u[:, :2]), x.clone().index_add_(1, jj, y[:, :2]), device, **tol(name))
    check(t.clone().index_add_(1, j, u[:, :2], alpha=2), x.clone().index_add_(1, jj, y[:, :2], alpha=2), device,
          **tol(name))
    k, kk = tandem.tensor([1, 1, 0], device=device), torch.tensor([1, 1, 0])
    check(t.mT.clone().index_put_((k, k), u[0], accumulate=True),
          x.mT.clone().index_put_((kk, kk), y[0], accumulate=True), device, **tol(name))


def test_more_compositions(device):
    t, x = pair(VALUES[:6], "complex64", device, shape=(2, 3))
    u, y = pair(VALUES[6:], "complex64", device, shape=(2, 3))
    check(tandem.addcdiv(t, t, u, value=0.5), torch.addcdiv(x, x, y, value=0.5), device)
    check(tandem.addcmul(t, t, u, value=2), torch.addcmul(x, x, y, value=2), device)
    for got, want in zip(tandem.var_mean(t, 1), torch.var_mean(x, 1)):
        check(got, want, device)
    for got, want in zip(tandem.std_mean(t), torch.std_mean(x)):
        check(got, want, device)
    check(tandem.linalg.vecdot(t, u), torch.linalg.vecdot(x, y), device)
    check(tandem.trapezoid(t), torch.trapezoid(x), device)
    check(tandem.einsum("ij,kj->ik", t, u), torch.einsum("ij,kj->ik", x, y), device)
    check(tandem.kron(t, u), torch.kron(x, y), device)
    check(tandem.linalg.norm(t), torch.linalg.norm(x), device)
    s = t.clone()
    s.sgn_()
    check(s, x.sgn(), device)
    for op in ["exp_", "reciprocal_", "sqrt_", "sigmoid_", "log1p_"]:
        s = t.clone()
        getattr(s, op)()
        check(s, getattr(x.clone(), op)(), device)


@pytest.mark.parametrize("case", [
    lambda m: m.nansum(m.ones(2, dtype=m.complex64)),
    lambda m: m.nanmean(m.ones(2, dtype=m.complex64)),
    lambda m: m.unique(m.ones(2, dtype=m.complex64)),
    lambda m: m.isin(m.ones(2, dtype=m.complex64), m.ones(2, dtype=m.complex64)),
])
def test_more_refusals_match_pytorch(case):
    assert_same_error(case)


@pytest.mark.parametrize("name", CDTYPES)
def test_random_fills(device, name):
    """randn/rand of a complex dtype: each part N(0, 1/2) / U[0, 1), as PyTorch."""
    z = tandem.randn(20000, dtype=tdtype(name), device=device)
    assert z.dtype == tdtype(name) and z.device == tandem.device(device)
    re, im = z.real.cpu(), z.imag.cpu()
    assert abs(re.mean().item()) < 0.03 and abs(im.mean().item()) < 0.03
    assert abs(re.var().item() - 0.5) < 0.03 and abs(im.var().item() - 0.5) < 0.03
    assert abs(z.abs().pow(2).mean().item() - 1) < 0.05
    u = tandem.rand(1000, dtype=tdtype(name), device=device)
    assert 0 <= u.real.min().item() and u.real.max().item() < 1 and 0 <= u.imag.min().item() < 0.1
    w = tandem.empty(3, 4, dtype=tdtype(name), device=device).normal_(2.0, 0.0)
    assert w.tolist() == [[2 + 2j] * 4] * 3 == torch.empty(3, 4, dtype=getattr(torch, name)).normal_(2.0, 0.0).tolist()


@pytest.mark.parametrize("name", CDTYPES)
def test_logsumexp(device, name):
    t, x = pair(VALUES, name, device, shape=(3, 4))
    check(tandem.logsumexp(t, 1), torch.logsumexp(x, 1), device, **tol(name))
    check(tandem.logsumexp(t, (0, 1), keepdim=True), torch.logsumexp(x, (0, 1), keepdim=True), device, **tol(name))
    big, xb = pair([1000 + 1j, 999 - 2j], name, device)  # no overflow: shifted by the largest real part
    check(tandem.logsumexp(big, 0), torch.logsumexp(xb, 0), device, **tol(name))


# ---- logaddexp (issue 14): PyTorch's complex formula; logaddexp2 stays refused, as in PyTorch ----

@pytest.mark.parametrize("name", CDTYPES)
def test_logaddexp(device, name):
    a, x = pair(VALUES, name, device)
    b, y = pair(VALUES[::-1], name, device)
    check(tandem.logaddexp(a, b), torch.logaddexp(x, y), device, **tol(name))
    big, xb = pair([1000 + 1j, -1000 - 2j, 50 + 3j], name, device)  # no overflow: shifted by the larger part
    check(tandem.logaddexp(big, b[:3]), torch.logaddexp(xb, y[:3]), device, **tol(name))
    # a real operand promotes to complex
    r = torch.tensor([0.5, -1.0, 2.0] * 4, dtype=torch.float64)
    check(tandem.logaddexp(a, tandem.tensor(r.tolist(), dtype=tandem.float64, device=device)),
          torch.logaddexp(x, r), device, **tol(name))


@pytest.mark.parametrize("name", CDTYPES)
def test_logaddexp_special_values(device, name):
    va = [v for v in SPECIAL for _ in SPECIAL] + [complex(-INF, 1), complex(INF, 2)]
    vb = [w for _ in SPECIAL for w in SPECIAL] + [complex(-INF, -3), complex(INF, -1)]
    a, x = pair(va, name, device)
    b, y = pair(vb, name, device)
    check_special(tandem.logaddexp(a, b), torch.logaddexp(x, y), device)


def test_logaddexp2_complex_refused(device):
    t = tandem.tensor([1 + 2j], device=device)
    kernel = "logaddexp2_cpu" if device == "cpu" else "logaddexp2_cuda"
    with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for \'ComplexFloat\''):
        tandem.logaddexp2(t, t)
    assert_same_error(lambda m: m.logaddexp2(m.ones(2, dtype=m.complex128), m.ones(2, dtype=m.complex128)))


def test_logaddexp_autograd(device):
    a, x = pair(VALUES[:6], "complex128", device)
    b, y = pair(VALUES[6:], "complex128", device)
    a.requires_grad_(), b.requires_grad_(), x.requires_grad_(), y.requires_grad_()
    out = tandem.logaddexp(a, b)
    assert out.grad_fn.name() == "LogaddexpBackward0"
    out.abs().sum().backward()
    torch.logaddexp(x, y).abs().sum().backward()
    check(a.grad, x.grad, device, rtol=1e-10, atol=1e-12)
    check(b.grad, y.grad, device, rtol=1e-10, atol=1e-12)
    assert tandem.autograd.gradcheck(tandem.logaddexp, (a.detach().requires_grad_(), b.detach().requires_grad_()))
