"""searchsorted, bucketize, unique, unique_consecutive and isin against PyTorch on every device: values, dtypes,
shapes, the tuple forms, errors."""
import warnings

import pytest
import torch

import tandem
from oracle import assert_same, assert_same_error, from_torch

NAN = float("nan")


def rand_ints(shape, high, seed=0, dtype=torch.int64):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, high, shape, generator=g).to(dtype)


def sorted_floats(shape, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return (torch.randint(-20, 20, shape, generator=g).to(torch.float64) / 2).sort(-1).values.to(dtype)


def same_result(ours, want):
    if isinstance(want, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(want)
        for o, w in zip(ours, want):
            assert_same(o, w)
    else:
        assert_same(ours, want)


# ---- searchsorted / bucketize ----

@pytest.mark.parametrize("m", [0, 1, 2, 3, 7, 8, 33])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_1d_boundaries(device, m, side):
    b = sorted_floats((m,), seed=m)  # duplicates included
    v = torch.arange(-11.0, 11.0, 0.5).reshape(4, 11)
    want = torch.searchsorted(b, v, side=side)
    ours = tandem.searchsorted(from_torch(b, device), from_torch(v, device), side=side)
    assert_same(ours, want, device=device)
    assert_same(tandem.searchsorted(from_torch(b, device), from_torch(v, device), right=side == "right"),
                torch.searchsorted(b, v, right=side == "right"))


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_nd_boundaries(device, right):
    b = sorted_floats((2, 3, 9), seed=4)
    v = sorted_floats((2, 3, 5), seed=5) + 0.25 * (torch.arange(5) % 2)
    want = torch.searchsorted(b, v, right=right)
    assert_same(tandem.searchsorted(from_torch(b, device), from_torch(v, device), right=right), want)


def test_searchsorted_sorter_int32_scalars_and_promotion(device):
    b = torch.tensor([5.0, 1.0, 3.0, 3.0, 9.0])
    sorter = torch.argsort(b, stable=True)
    v = torch.tensor([0.0, 3.0, 4.0, 10.0])
    tb, tv = from_torch(b, device), from_torch(v, device)
    assert_same(tandem.searchsorted(tb, tv, sorter=from_torch(sorter, device)), torch.searchsorted(b, v, sorter=sorter))
    assert_same(tandem.searchsorted(tb.sort().values, tv, out_int32=True),
                torch.searchsorted(b.sort().values, v, out_int32=True))
    ib = torch.tensor([1, 3, 5, 7])
    assert_same(tandem.searchsorted(from_torch(ib, device), 5), torch.searchsorted(ib, 5))
    assert_same(tandem.searchsorted(from_torch(ib, device), 5.5), torch.searchsorted(ib, 5.5))
    assert_same(tandem.searchsorted(from_torch(ib, device), from_torch(v, device)), torch.searchsorted(ib, v))
    hb = torch.tensor([1.0, 2.0, 4.0]).half()
    assert_same(tandem.searchsorted(from_torch(hb, device), from_torch(v.half(), device)),
                torch.searchsorted(hb, v.half()))
    # a Python float searched in float32 boundaries compares in float32, as PyTorch
    fb = torch.tensor([0.1, 0.2, 0.3])
    assert_same(tandem.searchsorted(from_torch(fb, device), 0.1, right=True), torch.searchsorted(fb, 0.1, right=True))
    v64 = torch.tensor(0.1, dtype=torch.float64)
    for v in (v64, v64.reshape(1)):  # a 0-dim tensor does not widen the comparison; a 1-D one does
        assert_same(tandem.searchsorted(from_torch(fb, device), from_torch(v, device), right=True),
                    torch.searchsorted(fb, v, right=True))


def test_searchsorted_nan_and_empty(device):
    b = torch.tensor([1.0, 2.0, NAN])
    v = torch.tensor([0.5, 2.0, 2.5, NAN])
    for right in (False, True):
        assert_same(tandem.searchsorted(from_torch(b, device), from_torch(v, device), right=right),
                    torch.searchsorted(b, v, right=right))
    assert_same(tandem.searchsorted(tandem.zeros(0, device=device), tandem.zeros(0, device=device)),
                torch.searchsorted(torch.zeros(0), torch.zeros(0)))
    assert_same(tandem.searchsorted(tandem.zeros(2, 0, device=device), tandem.ones(2, 3, device=device)),
                torch.searchsorted(torch.zeros(2, 0), torch.ones(2, 3)))


def test_searchsorted_unsorted_boundaries_follow_the_same_search(device):
    # Undefined in the docs, but the same binary search gives the same answer.
    b = torch.tensor([4.0, 1.0, 7.0, 2.0, 2.0, 9.0, 0.0])
    v = torch.arange(-1.0, 11.0)
    assert_same(tandem.searchsorted(from_torch(b, device), from_torch(v, device)), torch.searchsorted(b, v))


def test_searchsorted_out(device):
    b, v = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([[2.5, 0.0]])
    out = tandem.empty(0, dtype=tandem.int64, device=device)
    assert tandem.searchsorted(from_torch(b, device), from_torch(v, device), out=out) is out
    assert_same(out, torch.searchsorted(b, v))
    out32 = tandem.empty(2, dtype=tandem.int32, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tandem.bucketize(from_torch(v, device).reshape(2), from_torch(b, device), out_int32=True, out=out32)
    assert_same(out32, torch.bucketize(v.reshape(2), b, out_int32=True))


@pytest.mark.parametrize("right", [False, True])
def test_bucketize(device, right):
    b = torch.tensor([1, 3, 5, 7, 9])
    x = rand_ints((3, 4), 11, seed=2)
    assert_same(tandem.bucketize(from_torch(x, device), from_torch(b, device), right=right),
                torch.bucketize(x, b, right=right))
    assert_same(tandem.bucketize(5, from_torch(b, device), right=right), torch.bucketize(5, b, right=right))
    assert_same(tandem.bucketize(from_torch(x, device), from_torch(b, device), out_int32=True),
                torch.bucketize(x, b, out_int32=True))


def test_searchsorted_is_not_a_method():
    assert not hasattr(tandem.Tensor, "searchsorted") and not hasattr(tandem.Tensor, "bucketize")


@pytest.mark.parametrize("case", [
    lambda m: m.searchsorted(m.tensor([1, 2]), m.tensor([1]), side="middle"),
    lambda m: m.searchsorted(m.tensor([1, 2]), m.tensor([1]), side="left", right=True),
    lambda m: m.searchsorted(m.tensor([[1, 3], [2, 4]]), m.tensor([1, 2])),
    lambda m: m.searchsorted(m.tensor([[1, 3], [2, 4]]), m.tensor([[1], [2], [3]])),
    lambda m: m.searchsorted(m.tensor([[1, 3], [2, 4]]), 3),
    lambda m: m.searchsorted(m.tensor(3), m.tensor([1])),
    lambda m: m.searchsorted(m.tensor([5, 1]), m.tensor([1]), sorter=m.tensor([1])),
    lambda m: m.searchsorted(m.tensor([5, 1]), m.tensor([1]), sorter=m.tensor([1, 0]).int()),
    lambda m: m.searchsorted(m.tensor([5, 1]), m.tensor([1]), sorter=m.tensor([1, 2])),
    lambda m: m.searchsorted(m.tensor([5, 1]), m.tensor([1]), sorter=m.tensor([-1, 0])),
    lambda m: m.searchsorted(m.tensor([True, False]), m.tensor([True])),
    lambda m: m.searchsorted(m.tensor([1.0]), m.tensor([1.0]), out=m.empty(1, dtype=m.int32)),
    lambda m: m.searchsorted(m.tensor([1.0]), m.tensor([1.0]), out_int32=True, out=m.empty(1, dtype=m.int64)),
    lambda m: m.bucketize(m.tensor([1]), m.tensor([[1, 2]])),
    lambda m: m.bucketize(m.tensor([1]), m.tensor(1)),
])
def test_search_errors(case):
    assert_same_error(case)


def test_searchsorted_device_mismatch():
    if not tandem.cuda.is_available():
        pytest.skip("needs a second device")
    with pytest.raises(RuntimeError, match="should have same device type"):
        tandem.searchsorted(tandem.tensor([1.0], device="cuda:0"), tandem.tensor([1.0]))


def test_searchsorted_large_random(device):
    g = torch.Generator().manual_seed(7)
    b = torch.randn(1000, generator=g).sort().values
    v = torch.randn(50, 40, generator=g)
    assert_same(tandem.searchsorted(from_torch(b, device), from_torch(v, device)), torch.searchsorted(b, v))


# ---- unique / unique_consecutive ----

UNIQUE_FLAGS = [(False, False), (True, False), (False, True), (True, True)]


@pytest.mark.parametrize("inverse, counts", UNIQUE_FLAGS)
@pytest.mark.parametrize("dtype", [torch.int64, torch.uint8, torch.float32, torch.bool, torch.float16])
def test_unique_flat(device, inverse, counts, dtype):
    x = rand_ints((4, 6), 2 if dtype == torch.bool else 5, seed=1).to(dtype)
    t = from_torch(x, device)
    want = torch.unique(x, return_inverse=inverse, return_counts=counts)
    same_result(tandem.unique(t, return_inverse=inverse, return_counts=counts), want)
    same_result(t.unique(sorted=False, return_inverse=inverse, return_counts=counts), want)


@pytest.mark.parametrize("dim", [0, 1, -1, 2])
@pytest.mark.parametrize("inverse, counts", UNIQUE_FLAGS)
def test_unique_dim(device, dim, inverse, counts):
    x = rand_ints((5, 4, 3), 2, seed=dim + 3)
    t = from_torch(x, device)
    want = torch.unique(x, dim=dim, return_inverse=inverse, return_counts=counts)
    same_result(tandem.unique(t, dim=dim, return_inverse=inverse, return_counts=counts), want)


@pytest.mark.parametrize("cols", [2, 3, 7, 16, 1031])  # more than 1024 columns: the merged-rank keys
def test_unique_dim_many_duplicates(device, cols):
    x = rand_ints((200, cols), 2, seed=cols)
    x[:, 0] = rand_ints((200,), 5, seed=cols + 1) - 2  # negatives too
    want = torch.unique(x, dim=0, return_inverse=True, return_counts=True)
    same_result(tandem.unique(from_torch(x, device), dim=0, return_inverse=True, return_counts=True), want)
    f = x.double() / 3
    want = torch.unique(f, dim=1, return_inverse=True, return_counts=True)
    same_result(tandem.unique(from_torch(f, device), dim=1, return_inverse=True, return_counts=True), want)


def test_unique_nan_zero_dim_and_empty(device):
    x = torch.tensor([1.0, NAN, NAN, 1.0, -0.0, 0.0])
    same_result(tandem.unique(from_torch(x, device), return_inverse=True, return_counts=True),
                torch.unique(x, return_inverse=True, return_counts=True))
    same_result(tandem.unique(tandem.tensor(3.0, device=device), return_inverse=True, return_counts=True),
                torch.unique(torch.tensor(3.0), return_inverse=True, return_counts=True))
    for shape, dim in [((0,), None), ((2, 0), None), ((0, 2), 0), ((2, 0), 1)]:
        want = torch.unique(torch.zeros(shape), dim=dim, return_inverse=True, return_counts=True)
        same_result(tandem.unique(tandem.zeros(shape, device=device), dim=dim, return_inverse=True,
                                  return_counts=True), want)
    # Rows holding NaN never equal each other (their order among other rows is unspecified in PyTorch).
    rows = torch.tensor([[NAN, 1.0], [NAN, 1.0]])
    same_result(tandem.unique(from_torch(rows, device), dim=0, return_counts=True),
                torch.unique(rows, dim=0, return_counts=True))


@pytest.mark.parametrize("inverse, counts", UNIQUE_FLAGS)
def test_unique_consecutive(device, inverse, counts):
    x = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    t = from_torch(x, device)
    want = torch.unique_consecutive(x, return_inverse=inverse, return_counts=counts)
    same_result(tandem.unique_consecutive(t, return_inverse=inverse, return_counts=counts), want)
    same_result(t.unique_consecutive(return_inverse=inverse, return_counts=counts, dim=0), want)
    m = torch.tensor([[1, 2], [1, 2], [3, 4], [1, 2]])
    for dim in (0, 1, None):
        want = torch.unique_consecutive(m, return_inverse=inverse, return_counts=counts, dim=dim)
        same_result(tandem.unique_consecutive(from_torch(m, device), return_inverse=inverse,
                                              return_counts=counts, dim=dim), want)


def test_unique_consecutive_nan_and_scalar(device):
    x = torch.tensor([NAN, NAN, 1.0, 1.0])
    same_result(tandem.unique_consecutive(from_torch(x, device), return_counts=True),
                torch.unique_consecutive(x, return_counts=True))
    same_result(tandem.unique_consecutive(tandem.tensor(3, device=device), return_inverse=True, return_counts=True),
                torch.unique_consecutive(torch.tensor(3), return_inverse=True, return_counts=True))


@pytest.mark.parametrize("case", [
    lambda m: m.unique(m.tensor(3.0), dim=0),
    lambda m: m.unique(m.zeros(2, 0), dim=0),
    lambda m: m.unique(m.zeros(0, 0), dim=0),
    lambda m: m.unique(m.zeros(2, 2), dim=2),
    lambda m: m.unique_consecutive(m.tensor(3), dim=0),
])
def test_unique_errors(case):
    assert_same_error(case)


# ---- isin ----

@pytest.mark.parametrize("invert", [False, True])
@pytest.mark.parametrize("n_test", [0, 1, 3, 50])
def test_isin(device, invert, n_test):
    x = rand_ints((4, 5), 30, seed=1)
    test = rand_ints((n_test,), 30, seed=2)
    want = torch.isin(x, test, invert=invert)
    assert_same(tandem.isin(from_torch(x, device), from_torch(test, device), invert=invert), want, device=device)
    assert_same(tandem.isin(from_torch(x, device), from_torch(test, device), assume_unique=False, invert=invert),
                want)


def test_isin_scalars_promotion_and_nan(device):
    x = torch.tensor([1, 2, 3, 4])
    t = from_torch(x, device)
    assert_same(tandem.isin(t, 2), torch.isin(x, 2))
    assert_same(tandem.isin(t, 1.5), torch.isin(x, 1.5))
    assert_same(tandem.isin(2, t), torch.isin(2, x))
    assert_same(tandem.isin(t, from_torch(torch.tensor([1.5, 2.0]), device)), torch.isin(x, torch.tensor([1.5, 2.0])))
    f = torch.tensor([[1.0, NAN], [3.0, 2.0]])
    nan_test = torch.tensor([NAN, 2.0])
    assert_same(tandem.isin(from_torch(f, device), from_torch(nan_test, device)), torch.isin(f, nan_test))
    assert_same(tandem.isin(tandem.zeros(0, device=device), from_torch(nan_test, device)),
                torch.isin(torch.zeros(0), nan_test))
    out = tandem.empty(4, dtype=tandem.bool, device=device)
    assert tandem.isin(t, 3, out=out) is out
    assert_same(out, torch.isin(x, 3))


@pytest.mark.parametrize("case", [
    lambda m: m.isin(m.tensor([True]), m.tensor([1])),
    lambda m: m.isin(m.tensor([1]), m.tensor([True])),
])
def test_isin_errors(case):
    assert_same_error(case)


def test_isin_two_scalars_is_a_type_error():
    with pytest.raises(TypeError):
        tandem.isin(2, 2)


def test_results_carry_no_gradient():
    # (PyTorch marks unique's values as requiring grad, with a node whose backward raises; ours are plain.)
    x = tandem.tensor([3.0, 1.0, 3.0], requires_grad=True)
    assert tandem.unique(x).grad_fn is None
    assert not tandem.searchsorted(tandem.tensor([1.0, 2.0]), x).requires_grad
    assert not tandem.isin(x, x).requires_grad


@pytest.mark.filterwarnings("ignore:torch.searchsorted")  # PyTorch's own note about copying
def test_non_contiguous_inputs(device):
    b = sorted_floats((3, 12), seed=8)
    v = torch.arange(-10.0, 10.0, 0.75)[:24].reshape(8, 3)
    tb, tv = from_torch(b, device), from_torch(v, device)
    assert_same(tandem.searchsorted(tb[:, ::2], tv.t()), torch.searchsorted(b[:, ::2], v.t()))
    assert_same(tandem.bucketize(tv.t(), tb[1, ::3]), torch.bucketize(v.t(), b[1, ::3]))
    x = rand_ints((6, 5), 3, seed=4)
    tx = from_torch(x, device)
    same_result(tandem.unique(tx.t(), dim=1, return_inverse=True, return_counts=True),
                torch.unique(x.t(), dim=1, return_inverse=True, return_counts=True))
    same_result(tandem.unique_consecutive(tx.t()[::2], return_inverse=True),
                torch.unique_consecutive(x.t()[::2], return_inverse=True))
    assert_same(tandem.isin(tx.t(), tx[::2, 1]), torch.isin(x.t(), x[::2, 1]))
