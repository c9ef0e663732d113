"""Generated bad and unusual inputs: entry points x argument kinds, with PyTorch as the oracle. Where PyTorch
raises, tandem must raise the same exception type (the words may differ); where PyTorch returns, tandem must
return the same values, dtype and shape. Every case runs in this process, so a crash fails the run.

KNOWN_DIFFERENCES lists the cases where tandem deliberately differs, with the reason."""
import itertools
import math

import pytest
import torch

import tandem


def _inputs(L):
    return {
        "f3d": L.arange(24.0).reshape(2, 3, 4),
        "f0d": L.tensor(3.5),
        "empty": L.zeros(0, 3),
        "i2d": L.arange(6).reshape(2, 3),
        "b1d": L.tensor([True, False, True]),
    }


DIMS = {
    "1": 1, "-1": -1, "3": 3, "-4": -4, "float": 1.5, "str": "a", "none": None, "dup": (0, 0),
    "list_oob": [0, 5], "tensor0d": "T0", "tensor1d": "T1", "bool": True, "big": 2**40, "tuple": (0, 1),
}


def _dim(L, key):
    d = DIMS[key]
    if d == "T0":
        return L.tensor(1)
    if d == "T1":
        return L.tensor([1])
    return d


REDUCTIONS = {
    "sum": lambda L, x, d: L.sum(x, dim=d),
    "mean": lambda L, x, d: L.mean(x, dim=d),
    "amax": lambda L, x, d: L.amax(x, dim=d),
    "amin": lambda L, x, d: L.amin(x, dim=d),
    "max": lambda L, x, d: L.max(x, dim=d),
    "min": lambda L, x, d: L.min(x, dim=d),
    "argmax": lambda L, x, d: L.argmax(x, dim=d),
    "argmin": lambda L, x, d: L.argmin(x, dim=d),
    "prod": lambda L, x, d: L.prod(x, dim=d),
    "std": lambda L, x, d: L.std(x, dim=d),
    "var": lambda L, x, d: L.var(x, dim=d),
    "softmax": lambda L, x, d: L.softmax(x, dim=d),
    "log_softmax": lambda L, x, d: L.log_softmax(x, dim=d),
    "cumsum": lambda L, x, d: L.cumsum(x, dim=d),
    "logsumexp": lambda L, x, d: L.logsumexp(x, dim=d),
    "all": lambda L, x, d: L.all(x, dim=d),
    "any": lambda L, x, d: L.any(x, dim=d),
    "sort": lambda L, x, d: L.sort(x, dim=d),
    "squeeze": lambda L, x, d: L.squeeze(x, dim=d),
    "unsqueeze": lambda L, x, d: L.unsqueeze(x, dim=d),
    "flatten": lambda L, x, d: L.flatten(x, start_dim=d),
    "transpose": lambda L, x, d: L.transpose(x, d, 0),
    "select": lambda L, x, d: L.select(x, d, 0),
    "narrow": lambda L, x, d: L.narrow(x, d, 0, 1),
    "topk": lambda L, x, d: L.topk(x, 1, dim=d),
    "cat": lambda L, x, d: L.cat([x, x], dim=d),
    "stack": lambda L, x, d: L.stack([x, x], dim=d),
    "chunk": lambda L, x, d: L.chunk(x, 2, dim=d),
    "flip": lambda L, x, d: L.flip(x, dims=d if isinstance(d, (tuple, list)) else (d,)),
    "roll": lambda L, x, d: L.roll(x, 1, dims=d),
    "index_select": lambda L, x, d: L.index_select(x, d, L.tensor([0])),
    "gather": lambda L, x, d: L.gather(x, d, L.zeros_like(x, dtype=L.int64)),
}

KNOWN_DIFFERENCES = {
    "amax/empty/dup": "two faults (an empty reduced dim and a repeated dim): tandem reports the repeated dim first",
    "amin/empty/dup": "as amax/empty/dup",
}


def _lenient(op, dim, expected, got_kind):
    """Inputs PyTorch refuses and tandem deliberately (or, for now, knowingly) accepts; None when the case
    must match. Each reason is listed in docs/reliability.md."""
    if not isinstance(expected, TypeError):
        return None
    if dim == "none":
        return "dim=None means every dim (NumPy's axis=None), which NumPy functions called on tensors rely on"
    if dim in ("bool", "tensor1d") and op not in ("max", "min", "cumsum", "argmax", "argmin", "prod"):
        return ("nanobind's int conversion takes bool (an int subclass) and 1-element tensors (their "
                "__index__) where PyTorch's argument parser refuses them")
    return None

CASES = [f"{op}/{inp}/{dim}" for op, inp, dim in itertools.product(sorted(REDUCTIONS), sorted(_inputs(torch)),
                                                                  sorted(DIMS))]


def _outcome(fn):
    try:
        return "value", fn()
    except Exception as e:  # noqa: BLE001 - the type is what the test compares
        return "error", e


def _to_torch(v):
    if isinstance(v, tandem.Tensor):
        return torch.tensor(v.tolist(), dtype=getattr(torch, str(v.dtype).split(".")[-1])).reshape(tuple(v.shape))
    if isinstance(v, (tuple, list)):
        return type(v)(_to_torch(x) for x in v) if not hasattr(v, "_fields") else tuple(_to_torch(x) for x in v)
    return v


def _assert_same(got, expected):
    if isinstance(expected, torch.Tensor):
        got = _to_torch(got)
        assert got.dtype == expected.dtype and got.shape == expected.shape, (got, expected)
        torch.testing.assert_close(got, expected, rtol=1e-6, atol=1e-6, equal_nan=True)
    elif isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _assert_same(g, e)
    elif isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == expected


@pytest.mark.parametrize("case", CASES)
def test_generated_bad_input(case):
    op, inp, dim = case.split("/")
    fn = REDUCTIONS[op]
    kind, expected = _outcome(lambda: fn(torch, _inputs(torch)[inp], _dim(torch, dim)))
    got_kind, got = _outcome(lambda: fn(tandem, _inputs(tandem)[inp], _dim(tandem, dim)))
    if case in KNOWN_DIFFERENCES or _lenient(op, dim, expected, got_kind):
        return
    if kind == "error":
        assert got_kind == "error", f"PyTorch raises {type(expected).__name__}: {expected}\ntandem returned {got!r}"
        assert type(got).__name__ == type(expected).__name__ or (
            isinstance(expected, TypeError) and isinstance(got, TypeError)), (
            f"PyTorch: {type(expected).__name__}: {expected}\ntandem: {type(got).__name__}: {got}")
        assert not str(got).startswith("std::") and "internal error" not in str(got), got
    else:
        assert got_kind == "value", f"PyTorch returns {expected!r}\ntandem raised {type(got).__name__}: {got}"
        _assert_same(got, expected)
