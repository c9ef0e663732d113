"""tandem.stft/istft (and the Tensor methods) against torch.stft/istft on every device: values, shapes, dtypes,
windows (shorter than n_fft, complex), center/pad_mode/normalized/onesided, batches, round trips, gradients, and
PyTorch's errors."""
import warnings

import numpy as np
import pytest
import torch

import tandem
from oracle import from_torch


pytestmark = pytest.mark.usefixtures("needs_fft_library")


def sample(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float64)
    if dtype.is_complex:
        x = torch.complex(x, torch.randn(shape, generator=g, dtype=torch.float64))
    return x.to(dtype)


def as_tandem(kw, device):
    return {k: (from_torch(v, device) if isinstance(v, torch.Tensor) else v) for k, v in kw.items()}


def close(got, want, device):
    want = want.resolve_conj()
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert str(got.device) == device
    single = want.dtype in (torch.float32, torch.complex64)
    torch.testing.assert_close(torch.from_numpy(np.array(got.cpu().numpy())), want,
                               **(dict(rtol=1e-4, atol=1e-4) if single else dict(rtol=1e-9, atol=1e-9)))


VARIANTS = [
    dict(n_fft=16),
    dict(n_fft=16, hop_length=5, window="hann"),
    dict(n_fft=15, win_length=10, window="hann", center=False),
    dict(n_fft=16, normalized=True, pad_mode="constant"),
    dict(n_fft=16, onesided=False, window="hamming"),
    dict(n_fft=8, hop_length=8, window="ones", pad_mode="replicate"),
]


def window_of(kw, dtype):
    kw = dict(kw)
    w = kw.get("window")
    if isinstance(w, str):
        n = kw.get("win_length", kw["n_fft"])
        real = torch.float64 if dtype in (torch.float64, torch.complex128) else torch.float32
        kw["window"] = {"hann": torch.hann_window, "hamming": torch.hamming_window}.get(
            w, lambda n, dtype: torch.ones(n, dtype=dtype))(n, dtype=real)
    return kw


@pytest.mark.filterwarnings("ignore:A window was not provided")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex128])
@pytest.mark.parametrize("shape", [(100,), (3, 64)])
def test_stft_and_istft_match_torch(device, dtype, shape):
    x = sample(shape, dtype)
    for variant in VARIANTS:
        kw = window_of(variant, dtype)
        want = torch.stft(x, return_complex=True, **kw)
        got = tandem.stft(from_torch(x, device), return_complex=True, **as_tandem(kw, device))
        close(got, want, device)
        inv = {k: v for k, v in kw.items() if k != "pad_mode"}
        if dtype.is_complex:
            inv["return_complex"] = True
        if inv.get("center", True) is False and "win_length" in inv:
            continue  # the window's zero padding leaves the envelope 0 at the ends (PyTorch refuses too)
        want_x = torch.istft(want, length=shape[-1], **inv)
        got_x = tandem.istft(got, length=shape[-1], **as_tandem(inv, device))
        close(got_x, want_x, device)
        torch.testing.assert_close(torch.from_numpy(np.array(got_x.cpu().numpy())), x,
                                   **(dict(rtol=1e-4, atol=1e-4) if dtype == torch.float32 else {}))


def test_missing_window_warns_as_pytorch(device):
    t = from_torch(sample((50,), torch.float64), device)
    with pytest.warns(UserWarning, match="A window was not provided. A rectangular window will be applied,which"):
        spec = tandem.stft(t, 8, return_complex=True)
    with pytest.warns(UserWarning, match="Please provide the same window used by stft"):
        tandem.istft(spec, 8)


@pytest.mark.filterwarnings("ignore:A window was not provided")
def test_methods_and_old_real_format(device):
    x = sample((50,), torch.float64)
    t = from_torch(x, device)
    close(t.stft(8, return_complex=True), torch.stft(x, 8, return_complex=True), device)
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        got = tandem.stft(t, 8, return_complex=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(got, torch.stft(x, 8, return_complex=False), device)
    spec = t.stft(8, window=tandem.hann_window(8, dtype=tandem.float64, device=device), return_complex=True)
    close(spec.istft(8, window=tandem.hann_window(8, dtype=tandem.float64, device=device), length=50), x, device)


def test_stft_gradient(device):
    x = sample((40,), torch.float64).requires_grad_()
    w = torch.hann_window(8, dtype=torch.float64)
    y = torch.stft(x, 8, window=w, return_complex=True)
    g = sample(tuple(y.shape), torch.complex128, seed=3)
    (want,) = torch.autograd.grad((y * g.conj()).real.sum(), x)
    tx = from_torch(x.detach(), device).requires_grad_()
    ty = tandem.stft(tx, 8, window=from_torch(w, device), return_complex=True)
    (got,) = tandem.autograd.grad((ty * from_torch(g, device).conj()).real.sum(), tx)
    close(got, want, device)


@pytest.mark.filterwarnings("ignore:A window was not provided")
@pytest.mark.parametrize("case,kind,match", [
    (lambda lib, x: lib.stft(x, 16), RuntimeError, "stft requires the return_complex parameter be given"),
    (lambda lib, x: lib.stft(x, 16, hop_length=0, return_complex=True), RuntimeError,
     "expected hop_length > 0, but got hop_length=0"),
    (lambda lib, x: lib.stft(x, 16, win_length=20, return_complex=True), RuntimeError,
     "expected 0 < win_length <= n_fft, but got win_length=20"),
    (lambda lib, x: lib.stft(x, 16, window=lib.ones(5), return_complex=True), RuntimeError,
     r"expected a 1D window tensor of size equal to win_length=16, but got window with size \[5\]"),
    (lambda lib, x: lib.stft(x.reshape(1, 1, 100), 16, return_complex=True), RuntimeError,
     "expected a 1D or 2D tensor"),
    (lambda lib, x: lib.stft(x, 0, return_complex=True), RuntimeError, "expected 0 < n_fft < 100, but got n_fft=0"),
    (lambda lib, x: lib.stft(x[:10], 16, center=False, return_complex=True), RuntimeError,
     "expected 0 < n_fft < 10, but got n_fft=16"),
    (lambda lib, x: lib.stft(x + 0j, 16, onesided=True, return_complex=True), RuntimeError,
     "Cannot have onesided output if window or input is complex"),
    (lambda lib, x: lib.stft(x, 16, pad_mode="bad", return_complex=True), NotImplementedError,
     "Unrecognised padding mode bad"),
    (lambda lib, x: lib.stft(x, 16, align_to_window=True, return_complex=True), RuntimeError,
     "stft align_to_window should only be set when center = false"),
    (lambda lib, x: lib.istft(x.reshape(10, 10), 16), TypeError,
     "istft requires a complex-valued input tensor matching the output from stft with return_complex=True."),
])
def test_errors(case, kind, match):
    x = torch.randn(100)
    with pytest.raises(kind, match=match):
        case(torch, x)
    with pytest.raises(kind, match=match):
        case(tandem, from_torch(x))


@pytest.mark.parametrize("win_length,hop", [(16, 4), (8, 4), (10, 3), (4, 5)])
def test_align_to_window_matches_pytorch(win_length, hop):
    # the frames start where their (shorter) windows start; an even margin n_fft - win_length, where PyTorch's
    # own padding holds every frame (docs/reliability.md, Round 15)
    x = sample((100,), torch.float64)
    w = torch.hann_window(win_length, dtype=torch.float64)
    close(tandem.stft(from_torch(x), 16, hop, win_length, from_torch(w), center=False, align_to_window=True,
                      return_complex=True),
          torch.stft(x, 16, hop, win_length, w, center=False, align_to_window=True, return_complex=True), "cpu")


def test_align_to_window_false_is_the_default_framing():
    x = sample((100,), torch.float64)
    close(tandem.stft(from_torch(x), 16, center=False, align_to_window=False, return_complex=True,
                      window=tandem.ones(16, dtype=tandem.float64)),
          torch.stft(x, 16, center=False, align_to_window=False, return_complex=True,
                     window=torch.ones(16, dtype=torch.float64)), "cpu")
