"""tandem.signal.windows against torch.signal.windows: values (to rounding: both sample a linspace), dtypes,
devices, requires_grad, and PyTorch's checks and messages."""
import pytest
import torch

import tandem
from oracle import assert_same, raised

WINDOWS = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "hamming", "hann", "kaiser", "nuttall"]


@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("M", [0, 1, 2, 3, 8, 33])
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_windows_match_pytorch(device, name, M, sym, dtype):
    got = getattr(tandem.signal.windows, name)(M, sym=sym, dtype=getattr(tandem, dtype), device=device)
    want = getattr(torch.signal.windows, name)(M, sym=sym, dtype=getattr(torch, dtype))
    assert_same(got, want, device=tandem.device(device), rtol=2e-6 if dtype == "float32" else 1e-13, atol=1e-7)


@pytest.mark.parametrize("name,kwargs", [
    ("exponential", {"tau": 3.0}), ("exponential", {"center": 2.0, "sym": False}), ("gaussian", {"std": 0.4}),
    ("kaiser", {"beta": 0.0}), ("kaiser", {"beta": 5.5}), ("general_hamming", {"alpha": 0.6}),
    ("general_cosine", {"a": [0.5, 0.3, 0.2]}), ("general_cosine", {"a": (1.0,)}),
])
def test_window_parameters(device, name, kwargs):
    for M in (1, 6, 9):
        got = getattr(tandem.signal.windows, name)(M, device=device, **kwargs)
        assert_same(got, getattr(torch.signal.windows, name)(M, **kwargs), device=tandem.device(device), rtol=2e-6,
                    atol=1e-7)


def test_default_dtype_and_requires_grad(device):
    tandem.set_default_dtype(tandem.float64)
    try:
        assert tandem.signal.windows.hann(4, device=device).dtype == tandem.float64
    finally:
        tandem.set_default_dtype(tandem.float32)
    w = tandem.signal.windows.gaussian(5, device=device, requires_grad=True)
    assert w.dtype == tandem.float32 and w.requires_grad
    assert tandem.signal.windows.hann(0, requires_grad=True).requires_grad


@pytest.mark.parametrize("case", [
    lambda lib: lib.signal.windows.hann(-1),
    lambda lib: lib.signal.windows.blackman(-3),
    lambda lib: lib.signal.windows.hann(3, dtype=lib.float16),
    lambda lib: lib.signal.windows.kaiser(3, dtype=lib.int64),
    lambda lib: lib.signal.windows.bartlett(3, layout=lib.sparse_coo),
    lambda lib: lib.signal.windows.gaussian(3, std=0),
    lambda lib: lib.signal.windows.kaiser(3, beta=-1),
    lambda lib: lib.signal.windows.exponential(3, tau=0),
    lambda lib: lib.signal.windows.exponential(3, center=1.0),
    lambda lib: lib.signal.windows.general_cosine(3, a=5),
    lambda lib: lib.signal.windows.general_cosine(3, a=[]),
    lambda lib: lib.signal.windows.general_cosine(3),
])
def test_errors_as_pytorch(case):
    # (dtypes and layouts print as tandem.float16, tandem.sparse_coo)
    want, got = raised(lambda: case(torch)), raised(lambda: case(tandem))
    assert want is not None and isinstance(got, type(want)), (got, want)
    assert str(got) == str(want).replace("torch.", "tandem.")


def test_fractional_length_is_a_type_error():
    with pytest.raises(TypeError, match=r"^cosine\(\): window length M must be an int, got float"):
        tandem.signal.windows.cosine(2.5)
