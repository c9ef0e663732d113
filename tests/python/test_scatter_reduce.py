"""scatter_reduce, index_reduce and masked_scatter (and their in-place forms) against PyTorch on every device:
values and dtypes for every reduction with and without self, duplicates, NaN, integer means, larger src,
broadcast masks, errors in PyTorch's words, and gradients (finite differences in float64 and PyTorch's, with
ties and zeros)."""
import pytest
import torch

import tandem
from tandem.autograd import gradcheck
from oracle import assert_same, assert_same_error, from_torch, random_torch

NAN = float("nan")
REDUCES = ["sum", "prod", "mean", "amax", "amin"]

# PyTorch warns once that index_reduce is in beta; tandem does not.
pytestmark = pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def tol(name, reduce):
    return {"rtol": 1e-2, "atol": 1e-2} if name in ("float16", "bfloat16") else {}


# (self shape, dim, index shape, src shape): index smaller than self off dim, src larger than index.
GEOMETRIES = [((5,), 0, (12,), (12,)), ((4, 3), 0, (9, 3), (9, 3)), ((4, 3), 1, (4, 7), (4, 7)),
              ((4, 3), -1, (2, 5), (3, 6)), ((3, 4, 5), 1, (2, 6, 5), (3, 6, 5)), ((3, 4, 5), 2, (3, 4, 1), (3, 4, 2))]


@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("name", ["float32", "float64", "int64", "int32", "float16"])
def test_scatter_reduce_matches_torch(geometry, reduce, include_self, name, device):
    shape, dim, ishape, sshape = geometry
    g = gen(len(shape) + len(ishape))
    x = random_torch(shape, name, g, low=-4, high=5)
    src = random_torch(sshape, name, g, low=-4, high=5)
    index = torch.randint(0, shape[dim], ishape, generator=g)
    want = torch.scatter_reduce(x, dim, index, src, reduce, include_self=include_self)
    got = tandem.scatter_reduce(from_torch(x, device), dim, from_torch(index, device), from_torch(src, device),
                                reduce, include_self=include_self)
    assert_same(got, want, device=device, **tol(name, reduce))
    t = from_torch(x, device)
    assert t.scatter_reduce_(dim, from_torch(index, device), from_torch(src, device), reduce,
                             include_self=include_self) is t
    assert_same(t, want, **tol(name, reduce))


@pytest.mark.parametrize("reduce", ["sum", "prod", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_bool(reduce, include_self, device):
    g = gen(4)
    x, src = torch.rand(6, generator=g) > 0.5, torch.rand(15, generator=g) > 0.5
    index = torch.randint(0, 5, (15,), generator=g)
    want = torch.scatter_reduce(x, 0, index, src, reduce, include_self=include_self)
    got = from_torch(x, device).scatter_reduce(0, from_torch(index, device), from_torch(src, device), reduce,
                                               include_self=include_self)
    assert_same(got, want, device=device)


@pytest.mark.parametrize("reduce", REDUCES + ["max", "min"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_nan_and_negative_means(reduce, include_self, device):
    s, i = torch.tensor([1.0, 2, 3, 4]), torch.tensor([0, 1, 0, 1, 2, 0])
    src = torch.tensor([5.0, NAN, -1, 7, 8, 2])
    want = torch.scatter_reduce(s, 0, i, src, reduce, include_self=include_self)
    got = tandem.scatter_reduce(from_torch(s, device), 0, from_torch(i, device), from_torch(src, device), reduce,
                                include_self=include_self)
    assert_same(got, want)
    si, srci = torch.tensor([1, 2, 3, 4]), torch.tensor([-5, -6, 1, -7, -8, -2])
    want = torch.scatter_reduce(si, 0, i, srci, reduce, include_self=include_self)
    got = tandem.scatter_reduce(from_torch(si, device), 0, from_torch(i, device), from_torch(srci, device), reduce,
                                include_self=include_self)
    assert_same(got, want)


def test_scatter_reduce_int_prod_wraps_and_edge_shapes(device):
    g = gen(5)
    x = torch.randint(-(2**40), 2**40, (4,), generator=g)
    src = torch.randint(-(2**40), 2**40, (40,), generator=g)
    i = torch.randint(0, 4, (40,), generator=g)
    assert_same(tandem.scatter_reduce(from_torch(x, device), 0, from_torch(i, device), from_torch(src, device),
                                      "prod"), torch.scatter_reduce(x, 0, i, src, "prod"))
    for case in (lambda L: L.scatter_reduce(L.tensor(3.0), 0, L.tensor(0), L.tensor(5.0), "amax"),
                 lambda L: L.scatter_reduce(L.tensor([3.0]), 0, L.tensor([], dtype=L.int64), L.tensor([]), "amin",
                                            include_self=False),
                 lambda L: L.scatter_reduce(L.zeros(0, 2), 1, L.zeros(0, 2, dtype=L.int64), L.zeros(0, 2), "prod"),
                 lambda L: L.scatter_reduce(L.ones(3), 0, L.tensor([1, 1], dtype=L.int32), L.tensor([2.0, 3.0]),
                                            "mean", include_self=False)):
        want = case(torch)
        got = case(tandem)
        assert_same(got, want)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("name", ["float32", "int64"])
def test_index_reduce_matches_torch(reduce, include_self, dim, name, device):
    g = gen(6)
    x = random_torch((4, 5, 3), name, g, low=-4, high=5)
    n = 7
    sshape = list(x.shape)
    sshape[dim] = n
    src = random_torch(tuple(sshape), name, g, low=-4, high=5)
    index = torch.randint(0, x.shape[dim], (n,), generator=g)
    want = x.index_reduce(dim, index, src, reduce, include_self=include_self)
    got = from_torch(x, device).index_reduce(dim, from_torch(index, device), from_torch(src, device), reduce,
                                             include_self=include_self)
    assert_same(got, want, device=device)
    got = tandem.index_reduce(from_torch(x, device), dim, from_torch(index, device).int(), from_torch(src, device),
                              reduce, include_self=include_self)
    assert_same(got, want)
    t = from_torch(x, device)
    assert t.index_reduce_(dim, from_torch(index, device), from_torch(src, device), reduce,
                           include_self=include_self) is t
    assert_same(t, want)


@pytest.mark.parametrize("xshape,mshape", [((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 3)), ((2, 1), (2, 4)),
                                           ((), ()), ((4,), ())])
@pytest.mark.parametrize("name", ["float32", "int64", "bool"])
def test_masked_scatter_matches_torch(xshape, mshape, name, device):
    g = gen(7)
    x = random_torch(xshape, name, g)
    mask = torch.rand(mshape, generator=g) > 0.4
    src = random_torch((9,), name, g)
    want = torch.masked_scatter(x, mask, src)
    got = tandem.masked_scatter(from_torch(x, device), from_torch(mask, device), from_torch(src, device))
    assert_same(got, want, device=device)
    if torch.broadcast_shapes(xshape, mshape) == torch.Size(xshape):
        t = from_torch(x, device)
        assert t.masked_scatter_(from_torch(mask, device), from_torch(src.reshape(3, 3), device)) is t
        assert_same(t, x.clone().masked_scatter_(mask, src.reshape(3, 3)))


def test_masked_scatter_into_view_and_from_overlapping_source(device):
    base = torch.arange(12.0).reshape(3, 4)
    t = from_torch(base, device)
    mask = torch.tensor([True, False, True])
    t[:, 1].masked_scatter_(from_torch(mask, device), t[0])
    base[:, 1].masked_scatter_(mask, base[0].clone())
    assert_same(t, base)


@pytest.mark.parametrize("case", [
    lambda L: L.scatter_reduce(L.zeros(4), 0, L.tensor([0, 1]), L.ones(2), "foo"),
    lambda L: L.scatter_reduce(L.zeros(4), 0, L.tensor([0, 1]), L.ones(2), "add"),
    lambda L: L.scatter_reduce(L.zeros(4), 0, L.tensor([0, 1]), L.ones(2, dtype=L.float64), "sum"),
    lambda L: L.scatter_reduce(L.zeros(4), 0, L.tensor([0.0, 1.0]), L.ones(2), "sum"),
    lambda L: L.scatter_reduce(L.zeros(4), 0, L.tensor([0, 5]), L.ones(2), "amax"),
    lambda L: L.scatter_reduce(L.zeros(4), 0, L.tensor([-1]), L.ones(2), "prod"),
    lambda L: L.scatter_reduce(L.zeros(4), 0, L.tensor([0, 1, 2]), L.ones(2), "sum"),
    lambda L: L.scatter_reduce(L.zeros(3), 0, L.tensor([[0, 1]]), L.ones(2), "sum"),
    lambda L: L.scatter_reduce(L.zeros(3, 2), 1, L.tensor([[0], [1], [0], [0]]), L.ones(4, 1), "sum"),
    lambda L: L.scatter_reduce(L.zeros(3, 2), 2, L.tensor([[0]]), L.ones(1, 1), "sum"),
    lambda L: L.scatter_reduce(L.tensor([True]), 0, L.tensor([0]), L.tensor([False]), "mean"),
    lambda L: L.arange(12.0).view(3, 4).index_reduce(0, L.tensor([0, 2]), L.ones(2, 4), "sum"),
    lambda L: L.arange(12.0).view(3, 4).index_reduce(0, L.tensor([0, 2]), L.ones(2, 4), "max"),
    lambda L: L.arange(12.0).view(3, 4).index_reduce(0, L.tensor([[0, 2, 0]]), L.ones(3, 4), "mean"),
    lambda L: L.arange(12.0).view(3, 4).index_reduce(0, L.tensor([0, 2]), L.ones(3, 4), "mean"),
    lambda L: L.arange(12.0).view(3, 4).index_reduce(0, L.tensor([0, 5, 0]), L.ones(3, 4), "prod"),
    lambda L: L.arange(12.0).view(3, 4).index_reduce(1, L.tensor([0, -1, 0]), L.ones(3, 3), "amax"),
    lambda L: L.arange(12.0).view(3, 4).index_reduce(0, L.tensor([0, 2, 0.0]), L.ones(3, 4), "mean"),
    lambda L: L.arange(12.0).view(3, 4).index_reduce(0, L.tensor([0, 2, 0]), L.ones(3, 4).double(), "mean"),
    lambda L: L.arange(12.0).view(3, 4).index_reduce(0, L.tensor([0, 2, 0]), L.ones(3, 3), "amin"),
    lambda L: L.zeros(3).index_reduce(0, L.tensor(1), L.ones(()), "amax"),
    lambda L: L.zeros(2, 3).masked_scatter(L.ones(2, 3).bool(), L.arange(1.0, 4)),
    lambda L: L.zeros(2, 3).masked_scatter(L.ones(2, 3).int(), L.arange(1.0, 7)),
    lambda L: L.zeros(2, 3).masked_scatter(L.ones(2, 3).to(L.uint8), L.arange(1.0, 7)),
    lambda L: L.zeros(2, 3).masked_scatter(L.ones(2, 3).bool(), L.arange(1, 7)),
    lambda L: L.zeros(2, 3).masked_scatter(L.ones(2, 2).bool(), L.arange(1.0, 7)),
], ids=["reduce_name", "reduce_add", "src_dtype", "index_dtype", "index_range", "index_negative", "src_small",
        "index_ndim", "index_large", "dim_range", "bool_mean", "ir_sum", "ir_max", "ir_index_2d", "ir_count",
        "ir_range", "ir_negative", "ir_index_float", "ir_dtype", "ir_shape", "ir_0d_source", "ms_count",
        "ms_int_mask", "ms_uint8_mask", "ms_dtype", "ms_broadcast"])
def test_errors_match_torch(case):
    assert_same_error(case)


# ---- gradients ----

def f64(values, device, grad=True):
    return tandem.tensor(values, dtype=tandem.float64, device=device).requires_grad_(grad)


SELF = [[0.3, -1.2, 0.8], [1.5, 0.4, -0.7], [0.9, 2.1, -1.6], [-0.2, 0.6, 1.1]]
SRC = [[1.3, 0.2, -0.9], [-1.1, 0.7, 1.8], [0.5, -1.4, 2.2], [1.7, -0.6, 0.1], [-2.3, 1.2, 0.35]]
INDEX = [[0, 2, 1], [3, 2, 1], [0, 0, 1], [3, 2, 0], [0, 2, 1]]


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_gradcheck(reduce, include_self, device):
    index = tandem.tensor(INDEX, device=device)
    fn = lambda x, s: tandem.scatter_reduce(x, 0, index, s, reduce, include_self=include_self)  # noqa: E731
    assert gradcheck(fn, (f64(SELF, device), f64(SRC, device)))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_gradcheck(reduce, include_self, device):
    index = tandem.tensor([1, 3, 1, 0, 1], device=device)
    fn = lambda x, s: x.index_reduce(0, index, s, reduce, include_self=include_self)  # noqa: E731
    assert gradcheck(fn, (f64(SELF, device), f64(SRC, device)))


def test_masked_scatter_gradcheck(device):
    mask = tandem.tensor([True, False, True], device=device)
    fn = lambda x, s: x.masked_scatter(mask, s)  # noqa: E731
    assert gradcheck(fn, (f64(SELF, device), f64([0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 3.0, 0.1, 0.2, 0.3], device)))


# Ties (amax/amin share the gradient), zeros (prod), a src larger than index: compared with PyTorch.
TIE_SELF = [[1.0, 0.0, 2.0], [3.0, 2.0, 0.0], [2.0, 2.0, 5.0]]
TIE_SRC = [[3.0, 0.0, 2.0], [1.0, 2.0, 5.0], [3.0, 0.0, 0.0], [0.5, 1.0, 5.0]]
TIE_INDEX = [[1, 0, 2], [1, 0, 2], [1, 1, 2], [0, 1, 2]]


@pytest.mark.parametrize("op,reduce", [("scatter_reduce", r) for r in REDUCES] +
                         [("index_reduce", r) for r in REDUCES if r != "sum"])
@pytest.mark.parametrize("include_self", [True, False])
def test_grads_match_torch(reduce, include_self, op, device):
    results = []
    for L, dev in ((torch, "cpu"), (tandem, device)):
        x = L.tensor(TIE_SELF, dtype=L.float64, device=dev).requires_grad_()
        s = L.tensor(TIE_SRC, dtype=L.float64, device=dev).requires_grad_()
        if op == "scatter_reduce":
            out = L.scatter_reduce(x, 0, L.tensor(TIE_INDEX, device=dev), s, reduce, include_self=include_self)
        else:
            out = x.index_reduce(0, L.tensor([2, 0, 2, 2], device=dev), s, reduce, include_self=include_self)
        upstream = L.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [0.75, 1.25, -2.0]], dtype=L.float64, device=dev)
        out.backward(upstream)
        results.append((out.grad_fn.name(), x.grad.tolist(), s.grad.tolist()))
    (tname, tx, ts), (name, gx, gs) = results
    assert name == tname
    torch.testing.assert_close(torch.tensor(gx), torch.tensor(tx), equal_nan=True)
    torch.testing.assert_close(torch.tensor(gs), torch.tensor(ts), equal_nan=True)


def test_masked_scatter_grads_match_torch(device):
    results = []
    for L, dev in ((torch, "cpu"), (tandem, device)):
        x = L.zeros(2, 1, dtype=L.float64, device=dev).requires_grad_()
        s = L.arange(1.0, 8, dtype=L.float64, device=dev).requires_grad_()
        mask = L.tensor([[True, False, True], [False, True, True]], device=dev)
        out = x.masked_scatter(mask, s)
        out.backward(L.arange(10.0, 16, dtype=L.float64, device=dev).view(2, 3))
        results.append((out.grad_fn.name(), x.grad.tolist(), s.grad.tolist()))
    assert results[0] == results[1]


def test_inplace_gradients(device):
    results = []
    for L, dev in ((torch, "cpu"), (tandem, device)):
        x = L.tensor(SELF, dtype=L.float64, device=dev).requires_grad_()
        s = L.tensor(SRC, dtype=L.float64, device=dev).requires_grad_()
        y = x * 1.5
        y.scatter_reduce_(0, L.tensor(INDEX, device=dev), s, "amax", include_self=False)
        z = x * 2.0
        z.masked_scatter_(L.tensor([True, False, True], device=dev), s)
        (y * z).sum().backward()
        results.append((y.grad_fn.name(), x.grad.tolist(), s.grad.tolist()))
    assert results[0][0] == results[1][0]
    torch.testing.assert_close(torch.tensor(results[1][1]), torch.tensor(results[0][1]))
    torch.testing.assert_close(torch.tensor(results[1][2]), torch.tensor(results[0][2]))


def test_larger_src_gets_zero_gradient_outside_index(device):
    # PyTorch raises here ("returned an invalid gradient"); tandem pads src's gradient with zeros.
    x = f64([0.0, 0.0, 0.0], device)
    s = f64([1.0, 2.0, 3.0, 4.0, 5.0], device)
    tandem.scatter_reduce(x, 0, tandem.tensor([0, 1, 0], device=device), s, "sum").sum().backward()
    assert s.grad.tolist() == [1.0, 1.0, 1.0, 0.0, 0.0]


@pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a (real or emulated) CUDA device")
@pytest.mark.parametrize("case", [
    lambda x: x.scatter_reduce(0, tandem.tensor([0]), tandem.ones(1, device="cuda:0"), "amax"),
    lambda x: x.scatter_reduce(0, tandem.tensor([0], device="cuda:0"), tandem.ones(1), "prod"),
    lambda x: x.index_reduce(0, tandem.tensor([0]), tandem.ones(1, device="cuda:0"), "mean"),
    lambda x: x.masked_scatter(tandem.tensor([True, False, True]), tandem.ones(3, device="cuda:0")),
    lambda x: x.masked_scatter(tandem.tensor([True, False, True], device="cuda:0"), tandem.ones(3)),
], ids=["sr_index", "sr_src", "ir_index", "ms_mask", "ms_source"])
def test_device_mismatch_raises(case):
    with pytest.raises(tandem.DeviceMismatchError, match="Expected all tensors to be on the same device"):
        case(tandem.ones(3, device="cuda:0"))
