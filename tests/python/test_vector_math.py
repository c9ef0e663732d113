"""float32 exp, log, log1p, expm1 and tanh use tandem's branch-free (vectorised) versions on the CPU
(src/kernels/vector_math.h): within 3 ulp of the float64 result everywhere, and special values exactly like
NumPy/PyTorch."""
import numpy as np
import pytest
import torch

import tandem

OPS = {"exp": np.exp, "log": np.log, "log1p": np.log1p, "expm1": np.expm1, "tanh": np.tanh}


def wide_sample():
    """Both signs, magnitudes from subnormal to the largest float, dense near 0 and 1."""
    rng = np.random.default_rng(0)
    mags = np.concatenate([
        np.logspace(-45, 38.5, 200_000), rng.uniform(0, 2, 100_000), rng.uniform(0.6, 0.8, 50_000),
        rng.uniform(-1e-3, 1e-3, 50_000), np.float32([1e-45, 1.17549435e-38, 0.625, 0.70710678, 88.7, 89.0]),
    ]).astype(np.float32)
    return np.concatenate([mags, -mags])


def ulp_error(got, want64):
    want32 = want64.astype(np.float32)
    spacing = np.spacing(np.abs(want32).astype(np.float32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - want64) / spacing


@pytest.mark.parametrize("name", sorted(OPS))
def test_float32_within_three_ulp_of_float64(name):
    x = wide_sample()
    with np.errstate(all="ignore"):
        want = OPS[name](x.astype(np.float64))
    got = getattr(tandem, name)(tandem.from_numpy(x)).numpy()
    assert got.dtype == np.float32
    finite = np.isfinite(want) & (np.abs(want) < 3.4e38)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(got[np.isinf(want)], want[np.isinf(want)].astype(np.float32))
    err = ulp_error(got[finite], want[finite])
    worst = int(np.argmax(err))
    assert err[worst] <= 3.0, (name, x[finite][worst], got[finite][worst], want[finite][worst])


@pytest.mark.parametrize("name", sorted(OPS))
def test_special_values_are_exact(name):
    # Signed zeros, infinities, NaN, the smallest subnormals and the poles, against NumPy's float32 functions.
    poles = {"log": [-1.0], "log1p": [-1.0, -2.0]}.get(name, [])
    x = np.float32([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45] + poles)
    got = getattr(tandem, name)(tandem.from_numpy(x)).numpy()
    with np.errstate(all="ignore"):
        want = OPS[name](x)
    assert np.array_equal(got, want, equal_nan=True), (got, want)
    numbers = ~np.isnan(want)  # a NaN's sign bit is unspecified
    assert np.array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))


def test_float32_gelu_uses_an_accurate_erf():
    # gelu(x) = x/2 (1 + erf(x/sqrt 2)): within 4 ulp of the float64 value, plus the cancellation of 1 + erf
    # for negative x (about 1e-7 |x|, which PyTorch's float32 gelu has too).
    x = wide_sample()
    x = x[np.abs(x) < 1e4]
    with np.errstate(all="ignore"):
        want = torch.nn.functional.gelu(torch.from_numpy(x.astype(np.float64))).numpy()
    got = tandem.nn.functional.gelu(tandem.from_numpy(x)).numpy()
    assert got.dtype == np.float32
    bound = 4 * np.spacing(np.abs(want).astype(np.float32)).astype(np.float64) + 1e-7 * np.abs(x)
    err = np.abs(got.astype(np.float64) - want)
    worst = int(np.argmax(err / bound))
    assert err[worst] <= bound[worst], (x[worst], got[worst], want[worst])
    # gelu(inf) = inf as in float64 (PyTorch's float32 CPU kernel gives NaN there); gelu(-inf) = -inf * 0.
    specials = np.float32([0.0, -0.0, np.inf, -np.inf, np.nan])
    got = tandem.nn.functional.gelu(tandem.from_numpy(specials)).numpy()
    assert np.array_equal(got, np.float32([0.0, -0.0, np.inf, np.nan, np.nan]), equal_nan=True)
    assert np.signbit(got[1])
