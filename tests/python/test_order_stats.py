"""Order statistics against PyTorch on every device: median, nanmedian, kthvalue, mode, quantile, nanquantile,
msort. Values, dtypes, shapes, indices (where PyTorch's choice among ties is defined), errors and gradients."""
import math

import pytest
import torch

import tandem
from oracle import assert_same, assert_same_error, from_torch, to_torch

NAN = float("nan")


def distinct(shape, dtype=torch.float64, seed=0, nan_at=()):
    """Values without ties (so every index is defined), optionally with NaNs at flat positions."""
    g = torch.Generator().manual_seed(seed)
    n = math.prod(shape)
    x = (torch.randperm(n, generator=g).to(torch.float64) - n / 2) / 4
    x = x.reshape(shape).to(dtype)
    for i in nan_at:
        x.view(-1)[i] = NAN
    return x


def small_ints(shape, seed=0, high=4, dtype=torch.int64):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, high, shape, generator=g).to(dtype)


def check_selected(ours, x, dim, keepdim):
    """Indices with ties: the values sit at the indices returned."""
    values, indices = ours
    idx = indices if keepdim else indices.unsqueeze(dim)
    picked = x.gather(dim, idx)
    if not keepdim:
        picked = picked.squeeze(dim)
    assert to_torch(picked).equal(to_torch(values)) or torch.allclose(
        to_torch(picked), to_torch(values), equal_nan=True)


# ---- median / nanmedian ----

@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.int8, torch.float16,
                                   torch.bfloat16, torch.float32, torch.float64])
@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_median_all_elements(device, dtype, n):
    x = small_ints((n, 3), seed=n, high=9, dtype=dtype) if not dtype.is_floating_point else distinct((n, 3), dtype)
    t = from_torch(x, device)
    assert_same(t.median(), x.median(), device=device)
    assert_same(tandem.median(t), torch.median(x))
    assert_same(tandem.nanmedian(t), torch.nanmedian(x))


@pytest.mark.parametrize("nan_at", [(0,), (3, 7), tuple(range(12))])
def test_median_all_with_nan(device, nan_at):
    x = distinct((3, 4), nan_at=nan_at)
    t = from_torch(x, device)
    assert_same(t.median(), x.median())
    assert_same(t.nanmedian(), x.nanmedian())


def test_median_all_empty_and_scalar(device):
    assert_same(tandem.median(tandem.zeros(0, device=device)), torch.median(torch.zeros(0)))
    assert_same(tandem.nanmedian(tandem.zeros(2, 0, device=device)), torch.nanmedian(torch.zeros(2, 0)))
    assert_same(tandem.tensor(3.5, device=device).median(), torch.tensor(3.5).median())


@pytest.mark.parametrize("dim", [0, 1, -1, 2])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("fn", ["median", "nanmedian"])
def test_median_dim_distinct(device, dim, keepdim, fn):
    x = distinct((4, 5, 6), seed=dim + 7, nan_at=(3, 17, 50, 51, 52, 53, 54, 55))
    t = from_torch(x, device)
    ours, want = getattr(t, fn)(dim, keepdim), getattr(x, fn)(dim, keepdim)
    assert type(ours).__name__ == fn and ours._fields == ("values", "indices")
    assert_same(ours.values, want.values, device=device)
    assert_same(ours.indices, want.indices, device=device)
    assert_same(getattr(tandem, fn)(t, dim=dim, keepdim=keepdim).values, want.values)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int16, torch.uint8, torch.float32])
def test_median_dim_ties(device, dtype):
    x = small_ints((5, 9), seed=3, dtype=dtype)
    t = from_torch(x, device)
    for dim in (0, 1):
        ours = t.median(dim)
        assert_same(ours.values, x.median(dim).values)
        check_selected(ours, t, dim, False)


def test_median_nan_rows_pick_the_first_nan(device):
    x = torch.tensor([[1.0, NAN, 2.0, NAN], [NAN, NAN, NAN, NAN], [4.0, 3.0, 2.0, 1.0]])
    t = from_torch(x, device)
    ours, want = t.median(1), x.median(1)
    assert_same(ours.values, want.values)
    assert_same(ours.indices, want.indices)
    # nanmedian of an all-NaN row: PyTorch's index comes from std::nth_element among equals (unspecified).
    ours, want = t.nanmedian(1), x.nanmedian(1)
    assert_same(ours.values, want.values)
    assert to_torch(ours.indices)[[0, 2]].equal(want.indices[[0, 2]])
    check_selected(ours, t, 1, False)


def test_median_zero_dim_and_empty(device):
    t = tandem.tensor(5.0, device=device)
    ours, want = t.median(0), torch.tensor(5.0).median(0)
    assert_same(ours.values, want.values)
    assert_same(ours.indices, want.indices)
    e = tandem.zeros(0, 3, device=device)
    ours, want = e.median(1), torch.zeros(0, 3).median(1)
    assert_same(ours.values, want.values)
    assert_same(ours.indices, want.indices)


# ---- kthvalue ----

@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_kthvalue_every_k(device, dim, keepdim):
    x = distinct((3, 6, 4), seed=11, nan_at=(5, 40))
    t = from_torch(x, device)
    for k in range(1, x.shape[dim] + 1):
        ours, want = t.kthvalue(k, dim, keepdim), torch.kthvalue(x, k, dim, keepdim)
        assert type(ours).__name__ == "kthvalue"
        assert_same(ours.values, want.values, device=device)
        assert_same(ours.indices, want.indices)


def test_kthvalue_ints_and_scalar(device):
    x = small_ints((4, 7), seed=5, dtype=torch.int32)
    t = from_torch(x, device)
    for k in (1, 4, 7):
        ours = tandem.kthvalue(t, k)
        assert_same(ours.values, torch.kthvalue(x, k).values)
        check_selected(ours, t, 1, False)
    s = tandem.tensor(2.0, device=device).kthvalue(1)
    assert_same(s.values, torch.tensor(2.0).kthvalue(1).values)
    assert_same(s.indices, torch.tensor(2.0).kthvalue(1).indices)


# ---- mode ----

@pytest.mark.parametrize("dtype", [torch.int64, torch.uint8, torch.float32, torch.float64, torch.bool])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_mode_matches_pytorch(device, dtype, dim):
    # Slices shorter than 16: PyTorch's CPU sort is then stable, so its index (the mode's last occurrence) is
    # defined and ours must match it.
    x = small_ints((6, 11, 3), seed=dim + 2, high=2 if dtype == torch.bool else 4).to(dtype)
    t = from_torch(x, device)
    for keepdim in (False, True):
        ours, want = t.mode(dim, keepdim), torch.mode(x, dim, keepdim)
        assert type(ours).__name__ == "mode"
        assert_same(ours.values, want.values, device=device)
        assert_same(ours.indices, want.indices)


def test_mode_nan_and_scalars(device):
    x = torch.tensor([[1.0, NAN, NAN, 2.0], [NAN, NAN, 3.0, 3.0], [NAN, NAN, NAN, NAN]])
    t = from_torch(x, device)
    ours, want = t.mode(1), x.mode(1)
    assert_same(ours.values, want.values)
    assert_same(ours.indices, want.indices)
    ours, want = tandem.mode(tandem.tensor(7, device=device)), torch.mode(torch.tensor(7))
    assert_same(ours.values, want.values)
    assert_same(ours.indices, want.indices)
    ours, want = tandem.zeros(2, 0, device=device).mode(0), torch.zeros(2, 0).mode(0)
    assert_same(ours.values, want.values)
    assert_same(ours.indices, want.indices)


# ---- quantile / nanquantile ----

MODES = ["linear", "lower", "higher", "midpoint", "nearest"]


@pytest.mark.parametrize("interpolation", MODES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_quantile_all_modes(device, interpolation, dtype):
    x = distinct((5, 7), dtype, seed=4)
    t = from_torch(x, device)
    q = torch.tensor([0.0, 0.1, 0.25, 0.3, 0.5, 0.7, 0.9, 1 / 6, 1.0], dtype=dtype)
    tq = from_torch(q, device)
    for dim in (None, 0, 1, -1):
        for keepdim in (False, True):
            want = torch.quantile(x, q, dim=dim, keepdim=keepdim, interpolation=interpolation)
            ours = tandem.quantile(t, tq, dim=dim, keepdim=keepdim, interpolation=interpolation)
            assert_same(ours, want, device=device)
            want = x.quantile(0.3, dim, keepdim, interpolation=interpolation)
            assert_same(t.quantile(0.3, dim, keepdim, interpolation=interpolation), want)


@pytest.mark.parametrize("n", [2, 3, 6, 11])
def test_quantile_nearest_and_lower_pick_pytorchs_neighbours(device, n):
    # PyTorch computes ranks in float64: q * (n - 1) is not rounded to float32 before floor/round.
    x = torch.arange(float(n))
    q = torch.tensor([0.1, 0.3, 0.5, 0.7, 0.9, 0.125, 0.375, 0.625, 0.875])
    for interpolation in MODES:
        want = torch.quantile(x, q, interpolation=interpolation)
        assert_same(tandem.quantile(from_torch(x, device), from_torch(q, device), interpolation=interpolation), want)


def test_quantile_nan(device):
    x = torch.tensor([[1.0, NAN, 3.0, 2.0], [4.0, 5.0, 6.0, 7.0], [NAN, NAN, NAN, NAN]])
    t = from_torch(x, device)
    q = torch.tensor([0.2, 0.5, 1.0])
    for dim in (None, 1):
        assert_same(tandem.quantile(t, from_torch(q, device), dim), torch.quantile(x, q, dim))
        assert_same(tandem.nanquantile(t, from_torch(q, device), dim), torch.nanquantile(x, q, dim))
        assert_same(t.nanquantile(0.5, dim, True), x.nanquantile(0.5, dim, True))


def test_quantile_scalar_q_forms(device):
    x = distinct((3, 4), torch.float32)
    t = from_torch(x, device)
    assert_same(tandem.quantile(t, tandem.tensor(0.25, device=device)), torch.quantile(x, torch.tensor(0.25)))
    assert_same(tandem.quantile(t, 1), torch.quantile(x, 1))
    assert_same(tandem.quantile(tandem.tensor(2.0, device=device), 0.5, dim=0),
                torch.quantile(torch.tensor(2.0), 0.5, dim=0))


def test_quantile_out(device):
    x = distinct((3, 4), torch.float32)
    out = tandem.empty(0, device=device)
    r = tandem.quantile(from_torch(x, device), 0.5, dim=1, out=out)
    assert r is out
    assert_same(out, torch.quantile(x, 0.5, dim=1))


@pytest.mark.parametrize("case", [
    lambda m: m.quantile(m.tensor([1.0, 2.0]), 1.5),
    lambda m: m.quantile(m.tensor([1.0, 2.0]), -0.1),
    lambda m: m.quantile(m.tensor([1.0, 2.0]), float("nan")),
    lambda m: m.nanquantile(m.tensor([1.0, 2.0]), 2),
    lambda m: m.quantile(m.tensor([1.0, 2.0]), m.tensor([0.5, -1.0])),
    lambda m: m.quantile(m.tensor([1.0, 2.0]), m.tensor([0.5, float("nan")])),
    lambda m: m.quantile(m.tensor([1, 2]), 0.5),
    lambda m: m.quantile(m.tensor([1.0, 2.0]).half(), 0.5),
    lambda m: m.quantile(m.tensor([1.0, 2.0]), m.tensor([0.5], dtype=m.float64)),
    lambda m: m.quantile(m.tensor([1.0, 2.0]), m.tensor([[0.5]])),
    lambda m: m.quantile(m.zeros(0), 0.5),
    lambda m: m.quantile(m.zeros(0, 3), 0.5, dim=1),
    lambda m: m.quantile(m.tensor([1.0, 2.0]), 0.5, interpolation="cubic"),
    lambda m: m.quantile(m.tensor([1.0, 2.0]), 0.5, dim=3),
])
def test_quantile_errors(case):
    assert_same_error(case)


def test_quantile_q_list_is_a_type_error():
    with pytest.raises(TypeError):
        tandem.quantile(tandem.tensor([1.0, 2.0]), [0.5])


# ---- msort ----

def test_msort(device):
    x = distinct((5, 3), nan_at=(4,))
    t = from_torch(x, device)
    assert_same(tandem.msort(t), torch.msort(x))
    assert_same(t.msort(), x.msort())
    assert_same(tandem.msort(tandem.tensor(1.0, device=device)), torch.msort(torch.tensor(1.0)))
    out = tandem.empty(5, 3, device=device, dtype=tandem.float64)
    assert tandem.msort(t, out=out) is out
    assert_same(out, torch.msort(x))


# ---- errors ----

@pytest.mark.parametrize("case", [
    lambda m: m.zeros(0, 3).median(0),
    lambda m: m.zeros(3, 0).nanmedian(-1),
    lambda m: m.zeros(3, 0).kthvalue(1),
    lambda m: m.zeros(2, 0).mode(1),
    lambda m: m.tensor([[1.0, 2.0]]).kthvalue(3),
    lambda m: m.tensor([[1.0, 2.0]]).kthvalue(0),
    lambda m: m.tensor([[1.0, 2.0]]).kthvalue(1, 2),
    lambda m: m.tensor([True, False]).median(),
    lambda m: m.tensor([True, False]).median(0),
    lambda m: m.tensor([True, False]).nanmedian(0),
    lambda m: m.tensor([True, False]).kthvalue(1),
    lambda m: m.tensor([1.0]).median(keepdim=True),
    lambda m: m.tensor([1.0]).median(1),
    lambda m: m.tensor([1.0]).mode(1),
])
def test_errors(case):
    assert_same_error(case)


# ---- gradients ----

def grads(lib, make_x, f, *extra):
    x = lib.tensor(make_x, dtype=lib.float64, requires_grad=True)
    leaves = [x] + [lib.tensor(e, dtype=lib.float64, requires_grad=True) for e in extra]
    out = f(lib, *leaves)
    out = out[0] if isinstance(out, tuple) else out
    w = lib.arange(out.numel(), dtype=lib.float64).reshape(out.shape) + 1
    (out * w).sum().backward()
    return out, [leaf.grad for leaf in leaves]


GRAD_DATA = distinct((4, 5), seed=9).tolist()
TIES = [[1.0, 2.0, 2.0, 3.0], [5.0, 5.0, NAN, NAN]]


@pytest.mark.parametrize("f, data", [
    (lambda m, x: x.median(), GRAD_DATA),
    (lambda m, x: x.median(), [1.0, 2.0, 2.0, 3.0]),
    (lambda m, x: x.median(), TIES),
    (lambda m, x: x.nanmedian(), TIES),
    (lambda m, x: x.nanmedian(), [NAN, NAN]),
    (lambda m, x: x.median(1), GRAD_DATA),
    (lambda m, x: x.median(0, True), GRAD_DATA),
    (lambda m, x: x.nanmedian(1), TIES),
    (lambda m, x: x.kthvalue(2, 0), GRAD_DATA),
    (lambda m, x: x.kthvalue(4, 1, True), GRAD_DATA),
    (lambda m, x: m.mode(x.round()), GRAD_DATA),
    (lambda m, x: x.mode(0), [[1.0, 2.0, 2.0], [1.0, 3.0, 2.0], [4.0, 3.0, 5.0]]),
    (lambda m, x: m.quantile(x, 0.3), GRAD_DATA),
    (lambda m, x: m.quantile(x, 0.3, dim=1, interpolation="midpoint"), GRAD_DATA),
    (lambda m, x: m.quantile(x, m.tensor([0.25, 0.8], dtype=m.float64), dim=0, keepdim=True), GRAD_DATA),
    (lambda m, x: m.nanquantile(x, 0.4, dim=1), [[1.0, 2.0, 2.5, 3.0], [5.0, 6.0, NAN, NAN]]),
    (lambda m, x: m.quantile(x, 0.6, interpolation="nearest"), GRAD_DATA),
    (lambda m, x: m.msort(x), GRAD_DATA),
])
def test_gradients(f, data):
    want_out, want = grads(torch, data, f)
    out, got = grads(tandem, data, f)
    assert out.grad_fn is not None
    for g, w in zip(got, want):
        assert_same(g, w)


def test_quantile_gradient_reaches_q():
    f = lambda m, x, q: m.quantile(x, q, dim=1)  # noqa: E731
    _, want = grads(torch, GRAD_DATA, f, [0.3, 0.55])
    _, got = grads(tandem, GRAD_DATA, f, [0.3, 0.55])
    for g, w in zip(got, want):
        assert_same(g, w)


def test_gradients_on_device(device):
    x = tandem.tensor(GRAD_DATA, dtype=tandem.float64, device=device, requires_grad=True)
    (x.median(1).values.sum() + x.quantile(0.4) + x.mode(0).values.sum()).backward()
    xt = torch.tensor(GRAD_DATA, dtype=torch.float64, requires_grad=True)
    (xt.median(1).values.sum() + xt.quantile(0.4) + xt.mode(0).values.sum()).backward()
    assert x.grad.device == tandem.device(device)
    assert_same(x.grad, xt.grad)


def test_indices_carry_no_gradient():
    x = tandem.tensor(GRAD_DATA, dtype=tandem.float64, requires_grad=True)
    r = x.kthvalue(2)
    assert r.values.requires_grad and not r.indices.requires_grad
    assert type(r.values.grad_fn).__name__ == "KthvalueBackward0" or r.values.grad_fn.name() == "KthvalueBackward0"


def test_non_contiguous_inputs(device):
    x = distinct((6, 5, 4), seed=21, nan_at=(7,))
    t = from_torch(x, device)
    xv, tv = x.permute(2, 0, 1)[:, ::2], t.permute(2, 0, 1)[:, ::2]
    for dim in (0, 1, 2):
        for fn in ("median", "nanmedian", "mode"):
            # (mode of slices with NaN: PyTorch's NaN-unaware comparison sort leaves a leading NaN in place)
            src, ref = (tv, xv) if fn != "mode" else (tv.nan_to_num(1.0), xv.nan_to_num(1.0))
            ours, want = getattr(src, fn)(dim), getattr(ref, fn)(dim)
            assert_same(ours.values, want.values)
            assert_same(ours.indices, want.indices)
        ours, want = tv.kthvalue(2, dim), xv.kthvalue(2, dim)
        assert_same(ours.values, want.values)
        assert_same(ours.indices, want.indices)
        q = torch.tensor([0.2, 0.9], dtype=torch.float64)
        assert_same(tandem.nanquantile(tv, from_torch(q, device), dim), torch.nanquantile(xv, q, dim))
    assert_same(tv.median(), xv.median())
    assert_same(tandem.msort(tv), torch.msort(xv))


def test_zero_dim_gradients():
    want = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    got = tandem.tensor(2.0, dtype=tandem.float64, requires_grad=True)
    (want.kthvalue(1)[0] + want.mode()[0] + want.median(0)[0] + want.median()).backward()
    (got.kthvalue(1)[0] + got.mode()[0] + got.median(0)[0] + got.median()).backward()
    assert_same(got.grad, want.grad)
