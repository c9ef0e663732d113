"""bincount, histc and histogram against PyTorch on every device: values, result dtypes, bin choice at the
edges, density, errors."""
import pytest
import torch

import tandem
from oracle import assert_same, assert_same_error, from_torch

NAN = float("nan")


def rand_ints(n, high, seed=0, dtype=torch.int64):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, high, (n,), generator=g).to(dtype)


# ---- bincount ----

@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8])
@pytest.mark.parametrize("minlength", [0, 3, 20])
def test_bincount(device, dtype, minlength):
    x = rand_ints(30, 9, seed=minlength, dtype=dtype)
    t = from_torch(x, device)
    assert_same(tandem.bincount(t, minlength=minlength), torch.bincount(x, minlength=minlength), device=device)
    assert_same(t.bincount(None, minlength), x.bincount(None, minlength))


@pytest.mark.parametrize("wdtype", [torch.float32, torch.float64, torch.int64, torch.int32, torch.float16,
                                    torch.bool])
def test_bincount_weights_dtype(device, wdtype):
    x = rand_ints(12, 5, seed=1)
    w = (torch.arange(12) % 3).to(wdtype)
    assert_same(tandem.bincount(from_torch(x, device), from_torch(w, device)), torch.bincount(x, w))


def test_bincount_empty(device):
    e = torch.zeros(0, dtype=torch.int64)
    assert_same(tandem.bincount(from_torch(e, device)), torch.bincount(e))
    assert_same(tandem.bincount(tandem.zeros(0, dtype=tandem.int64, device=device), minlength=4),
                torch.bincount(e, minlength=4))
    assert_same(tandem.bincount(tandem.zeros(0, dtype=tandem.int64, device=device),
                                tandem.zeros(0, device=device)), torch.bincount(e, torch.zeros(0)))


@pytest.mark.parametrize("case", [
    lambda m: m.bincount(m.tensor([1, -1, 3])),
    lambda m: m.bincount(m.tensor([[1]])),
    lambda m: m.bincount(m.tensor(1)),
    lambda m: m.bincount(m.tensor([1.0, 2.0])),
    lambda m: m.bincount(m.tensor([True, False])),
    lambda m: m.bincount(m.tensor([1, 2]), minlength=-1),
    lambda m: m.bincount(m.tensor([1, 2]), m.tensor([1.0])),
    lambda m: m.bincount(m.tensor([1, 2]), m.tensor([[1.0, 2.0]])),
])
def test_bincount_errors(case):
    assert_same_error(case)


# ---- histc ----

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_histc(device, dtype):
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(200, generator=g) * 3).to(dtype)
    t = from_torch(x, device)
    for bins, lo, hi in [(10, 0, 0), (7, -2, 3), (1, 0, 0), (100, -1, 1)]:
        assert_same(tandem.histc(t, bins=bins, min=lo, max=hi), torch.histc(x, bins=bins, min=lo, max=hi),
                    device=device)
    assert_same(t.histc(5), x.histc(5))


def test_histc_edges_and_special_ranges(device):
    # Values on bin edges: PyTorch's truncated (x - min) * bins / (max - min), in x's dtype.
    for dtype in (torch.float32, torch.float64):
        x = torch.tensor([0.1, 0.2, 0.3, 0.7, 0.9, 1.0, 0.0, 1.5, -0.5], dtype=torch.float32).to(dtype)
        assert_same(tandem.histc(from_torch(x, device), bins=10, min=0, max=1), torch.histc(x, 10, 0, 1))
    same = torch.tensor([2.0, 2.0])
    assert_same(tandem.histc(from_torch(same, device), bins=3), torch.histc(same, bins=3))
    assert_same(tandem.histc(tandem.zeros(0, device=device), bins=3), torch.histc(torch.zeros(0), bins=3))
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert_same(tandem.histc(from_torch(x, device), bins=2, min=2, max=2), torch.histc(x, bins=2, min=2, max=2))
    out = tandem.empty(4, device=device)
    assert tandem.histc(from_torch(x, device), bins=4, out=out) is out
    assert_same(out, torch.histc(x, bins=4))


@pytest.mark.parametrize("case", [
    lambda m: m.histc(m.tensor([1.0]), bins=0),
    lambda m: m.histc(m.tensor([1.0]), bins=3, min=3, max=1),
    lambda m: m.histc(m.tensor([1.0, float("inf")]), bins=3),
    lambda m: m.histc(m.tensor([1.0]), bins=3, min=1, max=float("inf")),
    lambda m: m.histc(m.tensor([1, 2]), bins=3),
])
def test_histc_errors(case):
    assert_same_error(case)


# ---- histogram ----

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("density", [False, True])
def test_histogram_bin_count(device, dtype, density):
    g = torch.Generator().manual_seed(5)
    x = (torch.randn(3, 50, generator=g) * 2).to(dtype)
    w = torch.rand(3, 50, generator=g).to(dtype)
    t, tw = from_torch(x, device), from_torch(w, device)
    for bins, rng in [(10, None), (7, (-1.0, 2.0)), (1, None), (3, (0, 0))]:
        ours = tandem.histogram(t, bins, range=rng, density=density)
        want = torch.histogram(x, bins, range=rng, density=density)
        assert type(ours).__name__ == "histogram" and ours._fields == ("hist", "bin_edges")
        assert_same(ours.hist, want.hist, device=device)
        assert_same(ours.bin_edges, want.bin_edges)
        ours = t.histogram(bins, range=rng, weight=tw, density=density)
        want = x.histogram(bins, range=rng, weight=w, density=density)
        assert_same(ours.hist, want.hist)


def test_histogram_values_on_edges(device):
    x = torch.tensor([0.1, 0.2, 0.3, 0.7, 0.9, 1.0, 0.0, 1.5])
    ours = tandem.histogram(from_torch(x, device), 10, range=(0.0, 1.0))
    assert_same(ours.hist, torch.histogram(x, 10, range=(0.0, 1.0)).hist)


@pytest.mark.parametrize("density", [False, True])
def test_histogram_bin_edges(device, density):
    x = torch.tensor([1.0, 2.0, 1.0, 2.5, 3.0, -1.0, 7.0])
    for edges in ([0.0, 1.0, 2.0, 3.0], [0.0, 0.5, 2.5, 10.0], [3.0, 1.0]):
        e = torch.tensor(edges)
        ours = tandem.histogram(from_torch(x, device), from_torch(e, device), density=density)
        want = torch.histogram(x, e, density=density)
        assert_same(ours.hist, want.hist)
        assert_same(ours.bin_edges, want.bin_edges)


def test_histogram_empty_and_constant(device):
    for x in (torch.zeros(0), torch.tensor([2.0, 2.0])):
        ours, want = tandem.histogram(from_torch(x, device), 2), torch.histogram(x, 2)
        assert_same(ours.hist, want.hist)
        assert_same(ours.bin_edges, want.bin_edges)


@pytest.mark.parametrize("case", [
    lambda m: m.histogram(m.tensor([1.0]), 0),
    lambda m: m.histogram(m.tensor([1.0, 2.0]), 2, range=(3.0, 1.0)),
    lambda m: m.histogram(m.tensor([1.0, float("nan")]), 2),
    lambda m: m.histogram(m.tensor([1.0, 2.0]), 2, range=(float("nan"), 1.0)),
    lambda m: m.histogram(m.tensor([1, 2]), 2),
    lambda m: m.histogram(m.tensor([1.0, 2.0]).half(), 2),
    lambda m: m.histogram(m.tensor([1.0, 2.0]), m.tensor([[0.0, 1.0]])),
    lambda m: m.histogram(m.tensor([1.0, 2.0]), m.tensor([1.0])),
    lambda m: m.histogram(m.tensor([1.0, 2.0]), m.tensor([0.0, 1.0], dtype=m.float64)),
    lambda m: m.histogram(m.tensor([1.0, 2.0]), 2, weight=m.tensor([1.0])),
    lambda m: m.histogram(m.tensor([1.0, 2.0]), 2, weight=m.tensor([1, 2])),
    lambda m: m.histogram(m.tensor([1.0, 2.0]), 2, range=(1.0,)),
    # the parser's listings: a float or bool bins, range= with edges, an out= that is not a tuple
    lambda m: m.histogram(m.tensor([1.0, 2.0]), 2.5),
    lambda m: m.histogram(m.tensor([1.0, 2.0]), True),
    lambda m: m.tensor([1.0, 2.0]).histogram(2.5),
    lambda m: m.histogram(m.tensor([1.0, 2.0]), m.tensor([0.0, 3.0]), range=(0.0, 1.0)),
    lambda m: m.histogram(m.tensor([1.0, 2.0]), 2, out=m.empty(0)),
    # the outs are checked first: tensors (element i of argument 5, or 4 with edges), then the input's dtype
    lambda m: m.histogram(m.tensor([1.0, 2.0]), 0, out=(m.empty(0), 3)),
    lambda m: m.histogram(m.tensor([1.0, 2.0]), m.tensor([0.0, 3.0]), out=(None, m.empty(0))),
    lambda m: m.histogram(m.tensor([1.0, 2.0]), 2, out=(m.empty(0),)),
    lambda m: m.histogram(m.tensor([1, 2]), 0, out=(m.empty(0), m.empty(0))),
    lambda m: m.histogram(m.tensor([1.0, 2.0]), 0, out=(m.empty(0), m.empty(0, dtype=m.float64))),
    lambda m: m.histogram(m.tensor([True]), 2, out=(m.empty(0, dtype=m.bool), m.empty(0))),
    # then, by PyTorch's dispatch: its range search (float and double only), its linspace (no bool), the
    # weights, its kernel (floating dtypes)
    lambda m: m.histogram(m.tensor([1, 2]), 2, weight=m.ones(2)),
    lambda m: m.histogram(m.tensor([1.0, 2.0]).half(), 2, weight=m.ones(2)),
    lambda m: m.histogram(m.tensor([True]), 2, range=(0.0, 1.0), weight=m.ones(2, dtype=m.float64)),
    lambda m: m.histogram(m.tensor([True])[:0], 2),
    lambda m: m.histogram(m.tensor([1, 2]), 2, range=(0.0, 1.0), weight=m.ones(2)),
    lambda m: m.histogram(m.tensor([1, 2]), 2, range=(0.0, 1.0)),
    lambda m: m.histogram(m.tensor([1, 2])[:0], 2),
    lambda m: m.histogram(m.tensor([1, 2], dtype=m.uint8), m.tensor([0, 2], dtype=m.uint8)),
    lambda m: m.histogram(m.tensor([1j]), 2, range=(0.0, 1.0)),
])
def test_histogram_errors(case):
    assert_same_error(case)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_histogram_half_precision_with_range_or_edges(device, dtype):
    """PyTorch's CPU histogram bins float16 and bfloat16 inputs in their own dtype once the range is known (its
    range search alone takes only float and double)."""
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(40, generator=g) * 2).to(dtype)
    w = torch.rand(40, generator=g).to(dtype)
    t, tw = from_torch(x, device), from_torch(w, device)
    for density in (False, True):
        ours = tandem.histogram(t, 6, range=(-3.0, 3.0), weight=tw, density=density)
        want = torch.histogram(x, 6, range=(-3.0, 3.0), weight=w, density=density)
        assert_same(ours.hist, want.hist)
        assert_same(ours.bin_edges, want.bin_edges)
        e = torch.tensor([-4.0, -1.0, 0.0, 0.5, 4.0]).to(dtype)
        ours = tandem.histogram(t, from_torch(e, device), density=density)
        want = torch.histogram(x, e, density=density)
        assert_same(ours.hist, want.hist)
    ours = tandem.histogram(t[:0], 3)  # empty: the range is [0, 1], no search
    assert_same(ours.bin_edges, torch.histogram(x[:0], 3).bin_edges)
