"""Reductions, scans and sorts against PyTorch: values, dtypes, shapes and error messages."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tandem

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
TOL = {"float16": 1e-2, "bfloat16": 2e-2, "float32": 1e-5, "float64": 1e-10}


def random_torch(shape, dtype, seed=0, nan=False):
    g = torch.Generator().manual_seed(seed)
    if dtype == "bool":
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype == "uint8":
        return torch.randint(0, 3, shape, generator=g).to(torch.uint8)
    if dtype in FLOATS:
        # float32 values: tandem.tensor(list) currently rounds through float32, so keep values representable.
        t = torch.randn(shape, generator=g, dtype=torch.float32).double()
        if nan and t.numel() > 2:
            t.view(-1)[1] = float("nan")
        return t.to(getattr(torch, dtype))
    return torch.randint(-2, 3, shape, generator=g).to(getattr(torch, dtype))


def to_tandem(t, device="cpu"):
    dtype = getattr(tandem, str(t.dtype).split(".")[1])
    if t.numel() == 0:  # a nested empty list does not carry its shape
        return tandem.zeros(tuple(t.shape), dtype=dtype, device=device)
    return tandem.tensor(t.tolist(), dtype=dtype, device=device)


# Layouts applied identically to both libraries so inputs are non-contiguous in different ways.
LAYOUTS = {
    "contiguous": lambda x: x,
    "permuted": lambda x: x.permute(2, 0, 1),
    "transposed": lambda x: x.transpose(0, 2),
    "narrowed": lambda x: x.narrow(2, 1, 3),
    "expanded": lambda x: x.narrow(1, 0, 1).expand(3, 4, 5),
}


def assert_same(ours, expected, dtype=None):
    """Same dtype, shape and values (NaN equal to NaN)."""
    if isinstance(expected, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(expected)
        for o, e in zip(ours, expected):
            assert_same(o, e, dtype)
        return
    assert repr(ours.dtype) == "tandem." + str(expected.dtype).split(".")[1]
    assert tuple(ours.shape) == tuple(expected.shape)
    if expected.numel() == 0:
        return
    got = torch.tensor(ours.tolist(), dtype=expected.dtype)
    if expected.dtype.is_floating_point:
        tol = TOL[str(expected.dtype).split(".")[1]]
        torch.testing.assert_close(got, expected, rtol=tol, atol=tol, equal_nan=True)
    else:
        assert got.tolist() == expected.tolist()


def check(torch_fn, tandem_fn, x_torch, device="cpu"):
    """Runs both; errors must match in type and first line, results in dtype, shape and values."""
    try:
        expected = torch_fn(x_torch)
    except Exception as e:  # noqa: BLE001 - the oracle's error is what we compare against
        with pytest.raises(type(e)) as info:
            tandem_fn(to_tandem(x_torch, device))
        assert str(info.value).splitlines()[0] == str(e).splitlines()[0]
        return
    assert_same(tandem_fn(to_tandem(x_torch, device)), expected)


def check_layouts(torch_fn, tandem_fn, dtype, device, nan=False):
    base = random_torch((3, 4, 5), dtype, nan=nan)
    ours = to_tandem(base, device)
    for name, layout in LAYOUTS.items():
        expected_error = None
        try:
            expected = torch_fn(layout(base))
        except Exception as e:  # noqa: BLE001
            expected_error = e
        if expected_error is not None:
            with pytest.raises(type(expected_error)) as info:
                tandem_fn(layout(ours))
            assert str(info.value).splitlines()[0] == str(expected_error).splitlines()[0], name
        else:
            assert_same(tandem_fn(layout(ours)), expected)


DIM_CHOICES = [None, 0, -1, 1, (0, 2), (2, 0), (1,), (0, 1, 2), ()]


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin", "all", "any"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_folds_over_dims(op, dtype, device):
    for dim in DIM_CHOICES:
        for keepdim in (False, True):
            if dim is None:
                tf = lambda x: getattr(x, op)()  # noqa: E731
            else:
                tf = lambda x: getattr(x, op)(dim, keepdim=keepdim)  # noqa: E731
            check_layouts(tf, tf, dtype, device, nan=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_prod(dtype, device):
    for dim in (None, 0, 1, -1):
        for keepdim in (False, True):
            f = (lambda x: x.prod()) if dim is None else (lambda x: x.prod(dim, keepdim))
            check_layouts(f, f, dtype, device)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sum_prod_dtype_argument(dtype, device):
    for target in ("float64", "int32", "float16"):
        f = lambda x: x.sum(dtype=getattr(type(x) is torch.Tensor and torch or tandem, target))  # noqa: E731
        check(f, f, random_torch((4, 5), dtype), device)
        g = lambda x: x.prod(1, dtype=getattr(type(x) is torch.Tensor and torch or tandem, target))  # noqa: E731
        check(g, g, random_torch((4, 5), dtype), device)
    m = lambda x: x.mean(1, dtype=getattr(type(x) is torch.Tensor and torch or tandem, "float64"))  # noqa: E731
    check(m, m, random_torch((4, 5), dtype), device)


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_max_min_with_indices(op, dtype, device):
    for dim in (0, 1, 2, -1):
        for keepdim in (False, True):
            f = lambda x: tuple(getattr(x, op)(dim, keepdim))  # noqa: E731
            check_layouts(f, f, dtype, device, nan=True)
    check_layouts(lambda x: getattr(x, op)(), lambda x: getattr(x, op)(), dtype, device, nan=True)


@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_argmax_argmin(op, dtype, device):
    for dim in (None, 0, 1, 2, -1):
        for keepdim in (False, True):
            f = lambda x: getattr(x, op)(dim, keepdim)  # noqa: E731
            check_layouts(f, f, dtype, device, nan=True)


def test_named_tuple_results():
    x = tandem.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 0.0]])
    r = x.max(1)
    values, indices = r
    assert type(r).__name__ == "max" and r.values is values and r.indices is indices
    assert values.tolist() == [5.0, 4.0] and indices.tolist() == [1, 0]
    assert tandem.min(x, dim=0).indices.tolist() == [0, 1, 1]
    assert x.sort().values.tolist() == [[1.0, 3.0, 5.0], [0.0, 2.0, 4.0]]
    assert x.topk(1).indices.tolist() == [[1], [0]]
    assert tandem.max(x, tandem.tensor([3.0])).tolist() == [[3.0, 5.0, 3.0], [4.0, 3.0, 3.0]]


@pytest.mark.parametrize("op", ["std", "var"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_std_var(op, dtype, device):
    calls = [
        lambda x: getattr(x, op)(),
        lambda x: getattr(x, op)(0),
        lambda x: getattr(x, op)((0, 2), keepdim=True),
        lambda x: getattr(x, op)(1, False),
        lambda x: getattr(x, op)(-1, True, True),
        lambda x: getattr(x, op)(dim=1, correction=0),
        lambda x: getattr(x, op)(correction=2),
        lambda x: getattr(x, op)(False),
    ]
    for f in calls:
        check_layouts(f, f, dtype, device)


@pytest.mark.parametrize("dtype", DTYPES)
def test_norm(dtype, device):
    for p in (2, 1, 3, 0, math.inf, -math.inf, "fro"):
        for dim in (None, 1, (0, 2)):
            f = lambda x: x.norm(p=p, dim=dim)  # noqa: E731
            check_layouts(f, f, dtype, device)
    f = lambda x: x.norm(dim=1, keepdim=True)  # noqa: E731
    check_layouts(f, f, dtype, device)


@pytest.mark.parametrize("dtype", DTYPES)
def test_logsumexp(dtype, device):
    for dim in (0, -1, (0, 2)):
        for keepdim in (False, True):
            f = lambda x: x.logsumexp(dim, keepdim)  # noqa: E731
            check_layouts(f, f, dtype, device)
    inf = torch.tensor([[float("inf"), 1.0], [-float("inf"), -float("inf")]])
    check(lambda x: x.logsumexp(1), lambda x: x.logsumexp(1), inf, device)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax(op, dtype, device):
    for dim in (0, 1, -1):
        f = lambda x: getattr(x, op)(dim)  # noqa: E731
        check_layouts(f, f, dtype, device)
    g = lambda x: getattr(x, op)(1, dtype=getattr(type(x) is torch.Tensor and torch or tandem, "float64"))  # noqa: E731
    check_layouts(g, g, dtype, device)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum(dtype, device):
    for dim in (0, 1, 2, -1):
        f = lambda x: x.cumsum(dim)  # noqa: E731
        check_layouts(f, f, dtype, device)
    g = lambda x: x.cumsum(1, dtype=getattr(type(x) is torch.Tensor and torch or tandem, "float64"))  # noqa: E731
    check_layouts(g, g, dtype, device)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_argsort(dtype, device):
    for dim in (0, 1, -1):
        for descending in (False, True):
            f = lambda x: tuple(x.sort(dim=dim, descending=descending, stable=True))  # noqa: E731
            check_layouts(f, f, dtype, device, nan=True)
            g = lambda x: x.argsort(dim=dim, descending=descending, stable=True)  # noqa: E731
            check_layouts(g, g, dtype, device, nan=True)


@pytest.mark.parametrize("dtype", ["float32", "int64", "float16"])
@pytest.mark.parametrize("shape", [(70000,), (3, 70000)])
def test_sort_of_long_rows(shape, dtype, device):
    # Long rows take CUDA's device-wide sort (one row at a time) instead of the segmented one; few distinct
    # values so stability shows, and NaN for the floats.
    g = torch.Generator().manual_seed(11)
    base = torch.randint(-50, 50, shape, generator=g).to(getattr(torch, dtype))
    if dtype != "int64":
        base[..., ::997] = float("nan")
    for descending in (False, True):
        values, indices = base.sort(dim=-1, descending=descending, stable=True)
        ours = to_tandem(base, device).sort(dim=-1, descending=descending, stable=True)
        assert_same(ours.values, values)
        assert_same(ours.indices, indices)
    top = to_tandem(base, device).topk(5, dim=-1)
    assert_same(top.values, base.topk(5, dim=-1).values)


@pytest.mark.parametrize("dtype", DTYPES)
def test_topk(dtype, device):
    base = random_torch((3, 4, 5), dtype, nan=True)
    for dim in (0, 1, -1):
        for largest in (True, False):
            for k in (1, 3):
                f = lambda x: x.topk(k, dim, largest)  # noqa: E731
                try:
                    values, _ = f(base)
                except Exception as e:  # noqa: BLE001
                    with pytest.raises(type(e)) as info:
                        f(to_tandem(base, device))
                    assert str(info.value).splitlines()[0] == str(e).splitlines()[0]
                    continue
                ours = f(to_tandem(base, device))
                assert_same(ours.values, values)
                # Indices may differ on ties; they must point at the returned values.
                idx = torch.tensor(ours.indices.tolist(), dtype=torch.int64)
                assert_same(ours.values, torch.gather(base, dim, idx))


def test_zero_dim_inputs(device):
    x = torch.tensor(3.5)
    for f in [
        lambda t: t.sum(), lambda t: t.sum(0), lambda t: t.sum(-1, keepdim=True), lambda t: t.mean(0),
        lambda t: t.amax(0), lambda t: tuple(t.max(0)), lambda t: t.argmax(0), lambda t: t.argmax(),
        lambda t: t.cumsum(0), lambda t: tuple(t.sort(0)), lambda t: tuple(t.topk(1)), lambda t: t.softmax(0),
        lambda t: t.logsumexp(0), lambda t: t.std(), lambda t: t.norm(), lambda t: t.all(0), lambda t: t.sum(1),
    ]:
        check(f, f, x, device)


def test_empty_inputs(device):
    e = torch.empty(0, 3)
    calls = [
        lambda t: t.sum(), lambda t: t.sum(0), lambda t: t.sum(1), lambda t: t.mean(), lambda t: t.prod(0),
        lambda t: t.max(), lambda t: t.amax(0), lambda t: t.amax(1), lambda t: tuple(t.max(0)),
        lambda t: tuple(t.min(1)), lambda t: t.argmax(), lambda t: t.argmax(0), lambda t: t.argmin(1),
        lambda t: t.all(), lambda t: t.any(0), lambda t: t.logsumexp(0), lambda t: t.softmax(0),
        lambda t: t.cumsum(0), lambda t: tuple(t.sort(0)), lambda t: t.norm(), lambda t: t.var(0),
        lambda t: t.amin(), lambda t: t.min(),
    ]
    for f in calls:
        check(f, f, e, device)


def test_dim_errors(device):
    x = torch.randn(2, 3)
    for f in [
        lambda t: t.sum(5), lambda t: t.sum((0, 0)), lambda t: t.sum((0, -2)), lambda t: t.amax(-3),
        lambda t: t.max(2), lambda t: t.argmax(7), lambda t: t.cumsum(2), lambda t: t.sort(3),
        lambda t: t.topk(5), lambda t: t.softmax(4), lambda t: t.std(9), lambda t: t.mean(),
    ]:
        check(f, f, x, device)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)"):
        tandem.sum(to_tandem(x, device), 5)
    i = torch.arange(6).view(2, 3)
    for f in [lambda t: t.mean(), lambda t: t.mean(0), lambda t: t.std(), lambda t: t.norm(), lambda t: t.softmax(0)]:
        check(f, f, i, device)
    with pytest.raises(TypeError):
        to_tandem(x, device).argmax((0,))


def test_module_functions_and_keywords(device):
    x = random_torch((3, 4), "float32")
    t = to_tandem(x, device)
    assert_same(tandem.sum(t, dim=1, keepdim=True), torch.sum(x, dim=1, keepdim=True))
    assert_same(tandem.mean(t, (0, 1)), torch.mean(x, (0, 1)))
    assert_same(tandem.std(t, 0, unbiased=False), torch.std(x, 0, unbiased=False))
    assert_same(tandem.var(t, dim=1, correction=0, keepdim=True), torch.var(x, dim=1, correction=0, keepdim=True))
    assert_same(tandem.norm(t, p=1, dim=0), torch.norm(x, p=1, dim=0))
    assert_same(tandem.softmax(t, dim=0), torch.softmax(x, dim=0))
    assert_same(tandem.log_softmax(t, 1, dtype=tandem.float64), torch.log_softmax(x, 1, dtype=torch.float64))
    assert_same(tandem.cumsum(t, dim=1), torch.cumsum(x, dim=1))
    assert_same(tandem.logsumexp(t, dim=1), torch.logsumexp(x, dim=1))
    assert_same(tuple(tandem.sort(t, dim=0, descending=True)), tuple(torch.sort(x, dim=0, descending=True)))
    assert_same(tandem.argsort(t, dim=1), torch.argsort(x, dim=1))
    assert_same(tandem.topk(t, 2, dim=0, largest=False).values, torch.topk(x, 2, dim=0, largest=False).values)
    assert_same(tandem.amax(t, dim=(0, 1)), torch.amax(x, dim=(0, 1)))
    assert_same(tandem.argmin(t, dim=1, keepdim=True), torch.argmin(x, dim=1, keepdim=True))
    assert_same(tandem.all(t, dim=1), torch.all(x, dim=1))
    assert_same(tandem.prod(t, 1, True), torch.prod(x, 1, True))


def test_numpy_spellings_and_dispatch():
    a = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    t = tandem.tensor(a.tolist())

    def same(ours, expected, rtol=1e-5):
        np.testing.assert_allclose(np.asarray(ours.tolist()), expected, rtol=rtol, atol=1e-6)

    same(np.sum(t), np.sum(a))
    same(np.sum(t, axis=1), np.sum(a, axis=1))
    same(np.sum(t, axis=(0, 1), keepdims=True), np.sum(a, axis=(0, 1), keepdims=True))
    same(np.sum(t, dtype=np.float64), np.sum(a, dtype=np.float64))
    assert np.sum(t, dtype=np.float64).dtype is tandem.float64
    assert t.sum(dtype=np.dtype("float64")).dtype is tandem.float64
    assert np.mean(t, dtype="float64").dtype is tandem.float64  # NumPy's dtype names in a NumPy call
    assert np.prod(t, axis=0, dtype="float64").dtype is tandem.float64
    # outside one, a str is PyTorch's parser error
    with pytest.raises(TypeError, match=r"^sum\(\): argument 'dtype' must be torch.dtype, not str$"):
        t.sum(0, dtype="float64")
    same(t.sum(np.int64(1)), a.sum(1))
    same(t.max(np.int64(0), keepdims=np.bool_(True)).values, a.max(0, keepdims=True))
    same(np.mean(t, axis=0), np.mean(a, axis=0))
    same(np.std(t), np.std(a))
    same(np.std(t, axis=1, ddof=1), np.std(a, axis=1, ddof=1))
    same(np.var(t, axis=0), np.var(a, axis=0))
    same(np.max(t), np.max(a))
    same(np.max(t, axis=0), np.max(a, axis=0))
    same(np.min(t, axis=1, keepdims=True), np.min(a, axis=1, keepdims=True))
    same(np.argmax(t), np.argmax(a))
    same(np.argmin(t, axis=0), np.argmin(a, axis=0))
    same(np.prod(t, axis=1), np.prod(a, axis=1))
    same(np.cumsum(t), np.cumsum(a))
    same(np.all(t > 0, axis=0), np.all(a > 0, axis=0))
    same(np.any(t > 0), np.any(a > 0))
    assert t.sum(axis=1, keepdims=True).shape == (4, 1)
    o = tandem.empty(0)
    assert t.sum(out=o) is o and o.item() == pytest.approx(float(a.sum()))  # out= as NumPy passes it
    with pytest.raises(TypeError, match=r"^sum\(\): argument 'out' must be Tensor, not ndarray"):
        t.sum(out=np.empty(()))  # (NumPy then computes on an ndarray itself)
    with pytest.raises(TypeError):
        np.max(t, initial=0.0)


def test_large_reductions_use_every_path():
    # Big enough to split work across threads: one long reduction, few outputs over a long outer dim, and
    # row accumulation over an outer dim.
    g = torch.Generator().manual_seed(1)
    big = torch.randn(300_001, generator=g).double()
    t = to_tandem(big)
    assert_same(t.sum(), big.sum())
    assert_same(t.argmax(), big.argmax())
    assert_same(t.argmin(), big.argmin())
    assert_same(t.amax(), big.amax())
    tall = torch.randn(100_000, 3, generator=g).double()
    tt = to_tandem(tall)
    assert_same(tt.sum(0), tall.sum(0))
    assert_same(tt.max(0).indices, tall.max(0).indices)
    assert_same(tt.sum(1), tall.sum(1))
    wide = tall.t()
    assert_same(to_tandem(tall).t().sum(1), wide.sum(1))
    assert_same(to_tandem(tall).t().argmax(1), wide.argmax(1))
    f32 = torch.ones(1 << 20, dtype=torch.float32) * 0.1
    assert_same(to_tandem(f32).sum(), f32.sum())  # pairwise summation keeps float32 exact-ish


@settings(max_examples=60, deadline=None)
@given(
    shape=st.lists(st.integers(0, 4), min_size=0, max_size=4),
    data=st.data(),
    keepdim=st.booleans(),
    dtype=st.sampled_from(["int32", "float32", "float64", "bool", "float16"]),
)
def test_random_shapes_and_dims(shape, data, keepdim, dtype):
    x = random_torch(tuple(shape), dtype, seed=len(shape), nan=True)
    ndim = max(len(shape), 1)
    dims = tuple(data.draw(st.lists(st.integers(-ndim, ndim - 1), unique_by=lambda d: d % ndim, max_size=ndim)))
    for op in ("sum", "amax", "any", "mean"):
        f = lambda t: getattr(t, op)(dims, keepdim)  # noqa: E731
        check(f, f, x)
    if len(shape):
        d = data.draw(st.integers(-len(shape), len(shape) - 1))
        for f in (lambda t: tuple(t.max(d, keepdim)), lambda t: t.argmin(d), lambda t: t.cumsum(d)):
            check(f, f, x)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int32", "int64", "uint8", "float16"])
def test_vector_paths_with_nan_inf_and_ties(dtype, device):
    # Rows long enough for the vector loops, with NaN/inf at varied positions and many ties.
    g = torch.Generator().manual_seed(3)
    x = torch.randint(-40, 40, (24, 203), generator=g).double()
    if dtype in FLOATS:
        for r in range(0, 24, 3):
            x[r, (r * 37) % 203] = float("nan")
        x[1, 150] = float("inf")
        x[2, 7] = -float("inf")
        x[4, 100] = float("inf")
        x[4, 5] = float("nan")
    x = x.to(getattr(torch, dtype))
    for f in [
        lambda t: t.argmax(1), lambda t: t.argmin(1), lambda t: tuple(t.max(1)), lambda t: tuple(t.min(1)),
        lambda t: t.amax(1), lambda t: t.amin(1), lambda t: t.sum(1), lambda t: t.argmax(), lambda t: t.amax(),
        lambda t: t.argmax(0), lambda t: t.amin(0), lambda t: t.t().argmax(0), lambda t: t.t().amax(0),
        lambda t: t.all(1), lambda t: t.any(1), lambda t: t.all(0), lambda t: t.any(), lambda t: t.all(),
        lambda t: (t * 0).any(1), lambda t: (t * 0).any(), lambda t: t.narrow(1, 0, 40).all(1),
    ]:
        check(f, f, x, device)


def test_sse2_loops_match_when_avx2_is_disabled():
    # The vector loops exist in an SSE2 and an AVX2 build; run this file's vector-path test on the SSE2 one.
    import os
    import subprocess
    import sys

    env = dict(os.environ, TANDEM_CPU_CAPABILITY="baseline")
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", __file__,
         "-k", "vector_paths or large_reductions or folds_over_dims and float32"],
        env=env, capture_output=True, text=True, timeout=600,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


ARG_ROW_LENGTHS = [1, 3, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 255, 257, 1000]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "int8", "uint8", "int16", "float16"])
def test_arg_rows_of_every_length_with_ties_and_nan(dtype, device):
    # Row lengths around the vector widths (4-64 lanes, groups of four vectors) so every tail and overlap
    # path runs; few distinct values so the extreme ties across lanes and vectors.
    g = torch.Generator().manual_seed(7)
    for n in ARG_ROW_LENGTHS:
        x = torch.randint(-3, 4, (6, n), generator=g).double()
        x[1] = 2.0  # every element ties
        x[2, n - 1] = 9.0  # the extreme is the last element (in the overlapping tail)
        x[3, 0] = -9.0
        if dtype in FLOATS:
            x[4, n // 2] = float("nan")
            x[4, n - 1] = float("nan")
            x[5, n - 1] = float("nan")  # a NaN only in the tail
            x[3, n // 3] = float("inf")
            x[2, 0] = -float("inf")
        if dtype == "uint8":
            x = x.abs()
        x = x.to(getattr(torch, dtype))
        for f in [lambda t: t.argmax(1), lambda t: t.argmin(1), lambda t: tuple(t.max(1)), lambda t: tuple(t.min(1)),
                  lambda t: t.argmax(), lambda t: t.argmin()]:
            check(f, f, x, device)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "int8", "uint8", "int16", "float16"])
def test_vector_paths_fold_rows_of_every_length(dtype, device):
    # sum/prod/amax/amin of rows around the vector widths: the last partial vector is read as the vector that
    # ends the row, its already-folded lanes set to the identity, so a NaN or extreme there must count once.
    g = torch.Generator().manual_seed(11)
    for n in ARG_ROW_LENGTHS + [130, 200, 1001]:
        x = torch.randint(-3, 4, (5, n), generator=g).double()
        x[1, n - 1] = 9.0  # the extreme is the last element
        x[2, 0] = -9.0
        x[3] = 1.0
        x[3, n - 1] = 2.0  # prod: 2 once, not once per overlapping lane
        if dtype in FLOATS:
            x[4, n - 1] = float("nan")  # a NaN only in the tail
        if dtype == "uint8":
            x = x.abs()
        x = x.to(getattr(torch, dtype))
        for f in [lambda t: t.sum(1), lambda t: t.amax(1), lambda t: t.amin(1), lambda t: t[3:].prod(1),
                  lambda t: t.narrow(1, 0, max(1, n // 2)).sum(1)]:
            check(f, f, x, device)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_arg_signed_zeros_and_infinities(dtype, device):
    x = torch.tensor([[0.0] * 20 + [-0.0] * 20, [-0.0] * 33 + [0.0] * 7, [float("-inf")] * 40,
                      [float("inf")] * 40, [float("inf"), float("-inf")] * 20], dtype=getattr(torch, dtype))
    for f in [lambda t: t.argmax(1), lambda t: t.argmin(1), lambda t: tuple(t.max(1)), lambda t: tuple(t.min(1))]:
        check(f, f, x, device)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax_fused_kernel_paths(op, dtype, device):
    g = torch.Generator().manual_seed(11)
    f = lambda d: (lambda t: getattr(t, op)(d))  # noqa: E731
    # Contiguous rows of lengths around the vector widths, long rows, and the column path (dim not last)
    # with more columns than one tile.
    for shape, dim in [((5, 1), 1), ((4, 17), 1), ((3, 64), -1), ((3, 65), 1), ((2, 1000), 1), ((2, 3000), 1),
                       ((3, 50, 130), 1), ((40, 70), 0), ((2, 3, 4, 5), 2), ((2, 3, 4, 5), 0)]:
        x = (torch.randn(shape, generator=g, dtype=torch.float64) * 5).to(getattr(torch, dtype))
        check(f(dim), f(dim), x, device)
    # Non-contiguous input, then rows of -inf (NaN, as torch), with -inf entries, with NaN, with +inf.
    x = torch.randn(6, 9, generator=g, dtype=torch.float64).to(getattr(torch, dtype))
    check(lambda t: getattr(t.t(), op)(1), lambda t: getattr(t.t(), op)(1), x, device)
    check(lambda t: getattr(t[:, ::2], op)(0), lambda t: getattr(t[:, ::2], op)(0), x, device)
    inf, nan = float("inf"), float("nan")
    special = torch.tensor([[-inf] * 20, [-inf, 1.0, -inf, 2.0] * 5, [1.0] * 19 + [nan], [inf] + [1.0] * 19,
                            [0.0] * 20, [-1e4, 1e4] * 10], dtype=getattr(torch, dtype))
    check(f(1), f(1), special, device)
    check(f(0), f(0), special, device)
    check(f(0), f(0), torch.tensor(3.0, dtype=getattr(torch, dtype)), device)
    check(f(-1), f(-1), torch.zeros(3, 0, dtype=getattr(torch, dtype)), device)
    check(f(0), f(0), torch.zeros(3, 0, dtype=getattr(torch, dtype)), device)


def test_softmax_dtype_argument_and_errors(device):
    x = random_torch((4, 6), "float32")
    for op in ("softmax", "log_softmax"):
        for dt in ("float64", "float16", "bfloat16"):
            f = lambda t: getattr(t, op)(1, dtype=getattr(tandem if isinstance(t, tandem.Tensor) else torch, dt))  # noqa: E731,B023
            check(f, f, x, device)
        i = random_torch((4, 6), "int64")
        f = lambda t: getattr(t, op)(0)  # noqa: E731,B023
        check(f, f, i, device)
        f = lambda t: getattr(t, op)(1, dtype=getattr(tandem if isinstance(t, tandem.Tensor) else torch, "float32"))  # noqa: E731,B023
        check(f, f, i, device)
