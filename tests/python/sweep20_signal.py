"""Sweep 20 programs, signal and audio code by hand: STFT/ISTFT round trips with periodic and symmetric Hann,
Hamming and Blackman windows (centre and no centre, onesided and two-sided, normalized, return_complex forms, a
batch of signals), a log-mel spectrogram with a hand-built triangular filterbank and SpecAugment masks, FFT-based
convolution with rfft/irfft checked against conv1d, overlap-add and overlap-save block filtering, a phase vocoder
time stretch, the window functions' and FFT helpers' edge cases, and framing options (align_to_window, complex
signals and windows, the shapes stft/istft refuse).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep20.py). Signals come from NumPy so both libraries start from the same numbers."""
import math

import numpy as np

from sweep15_common import cases
from test_programs_sweeputil import rounded as _r


def _signal(torch, seed, n, device, dtype=None):
    rng = np.random.default_rng(seed)
    t = np.arange(n) / 800.0
    x = np.sin(2 * np.pi * 55 * t) + 0.5 * np.sin(2 * np.pi * 170 * t + 0.3) + 0.1 * rng.standard_normal(n)
    return torch.tensor(x, dtype=dtype or torch.float32, device=device)


# ---- STFT/ISTFT round trips with windows ------------------------------------------------------------------------------
def stft_istft_round_trips(torch, device):
    x = _signal(torch, 2600, 512, device, torch.float64)
    batch = torch.stack([x, x.flip(0), x * 0.5])
    out = {}
    windows = {
        "hann_periodic": torch.hann_window(64, periodic=True, dtype=torch.float64, device=device),
        "hann_symmetric": torch.hann_window(64, periodic=False, dtype=torch.float64, device=device),
        "hamming": torch.hamming_window(64, dtype=torch.float64, device=device),
        "blackman": torch.blackman_window(64, dtype=torch.float64, device=device),
    }
    for name, w in windows.items():
        S = torch.stft(x, 64, hop_length=16, window=w, return_complex=True)
        y = torch.istft(S, 64, hop_length=16, window=w, length=x.numel())
        out[name] = [list(S.shape), str(S.dtype), _r((y - x).abs().max(), 8), _r(S.abs().sum(), 3)]
    w = windows["hann_periodic"]
    S = torch.stft(batch, 64, hop_length=16, window=w, return_complex=True, normalized=True)
    y = torch.istft(S, 64, hop_length=16, window=w, normalized=True)
    out["batch_normalized"] = [list(S.shape), list(y.shape), _r((y - batch[:, :y.shape[-1]]).abs().max(), 8)]
    S_nc = torch.stft(batch, 64, hop_length=16, window=w, return_complex=True, center=False)
    out["no_center"] = [list(S_nc.shape), _r(S_nc.abs().sum(), 3)]
    S2 = torch.stft(x, 64, hop_length=32, window=w, return_complex=True, onesided=False, pad_mode="constant")
    y2 = torch.istft(S2, 64, hop_length=32, window=w, onesided=False, return_complex=True)
    out["two_sided"] = [list(S2.shape), str(y2.dtype), _r((y2.real - x[:y2.numel()]).abs().max(), 8),
                        _r(y2.imag.abs().max(), 8)]
    S3 = torch.stft(x.float(), 48, hop_length=12, win_length=32, window=torch.hann_window(32, device=device),
                    return_complex=True)
    out["win_length"] = [list(S3.shape), _r(S3.abs().mean(), 4)]
    real = torch.view_as_real(S3)
    out["as_real"] = [list(real.shape), str(real.dtype)]
    out["errs"] = cases(torch, {
        "no_return_complex": lambda: torch.stft(x, 64, window=w),
        "istft_real": lambda: torch.istft(real, 48, hop_length=12),
        "window_size": lambda: torch.stft(x.cpu(), 64, window=torch.hann_window(30, dtype=torch.float64),
                                          return_complex=True),  # PyTorch's message names the tensor type
        "istft_no_center": lambda: torch.istft(S_nc.cpu(), 64, hop_length=16, window=w.cpu(), center=False),
        "hop_zero": lambda: torch.stft(x.cpu(), 64, hop_length=0, window=w.cpu(), return_complex=True),
    })
    return out


# ---- log-mel spectrogram with a hand-built filterbank and SpecAugment -------------------------------------------------
def log_mel_specaugment(torch, device):
    sr, n_fft, n_mels = 8000, 256, 20
    x = _signal(torch, 2610, 4000, device)

    def hz_to_mel(f):
        return 2595.0 * torch.log10(1.0 + f / 700.0)

    def mel_to_hz(m):
        return 700.0 * (10 ** (m / 2595.0) - 1.0)

    freqs = torch.linspace(0, sr / 2, n_fft // 2 + 1, device=device)
    mels = torch.linspace(hz_to_mel(torch.tensor(0.0)).item(), hz_to_mel(torch.tensor(sr / 2)).item(), n_mels + 2,
                          device=device)
    hz = mel_to_hz(mels)
    lower, centre, upper = hz[:-2].unsqueeze(1), hz[1:-1].unsqueeze(1), hz[2:].unsqueeze(1)
    up = (freqs - lower) / (centre - lower)
    down = (upper - freqs) / (upper - centre)
    fb = torch.clamp(torch.minimum(up, down), min=0.0)
    fb = fb * (2.0 / (upper - lower))  # Slaney area normalisation
    spec = torch.stft(x, n_fft, hop_length=64, window=torch.hann_window(n_fft, device=device),
                      return_complex=True).abs().pow(2)
    mel = fb @ spec
    logmel = 10 * torch.log10(mel.clamp(min=1e-10))
    logmel = torch.maximum(logmel, logmel.max() - 80.0)
    # SpecAugment: fixed masks chosen from a NumPy generator
    rng = np.random.default_rng(2611)
    aug = logmel.clone()
    f0, fw = int(rng.integers(0, n_mels - 4)), 4
    t0, tw = int(rng.integers(0, aug.shape[1] - 8)), 8
    aug[f0:f0 + fw, :] = aug.mean()
    aug[:, t0:t0 + tw] = 0.0
    cmvn = (logmel - logmel.mean(1, keepdim=True)) / (logmel.std(1, keepdim=True) + 1e-5)
    deltas = torch.nn.functional.conv1d(cmvn.unsqueeze(1), torch.tensor([[[-1.0, 0.0, 1.0]]], device=device) / 2,
                                        padding=1).squeeze(1)
    dct = torch.cos(math.pi / n_mels * (torch.arange(n_mels, device=device).unsqueeze(1) + 0.5)
                    * torch.arange(13, device=device)).T
    mfcc = dct @ logmel
    return {"fb": [list(fb.shape), _r(fb.sum(1), 5)], "logmel": [list(logmel.shape), _r(logmel.mean(), 3),
                                                                 _r(logmel.min(), 3)],
            "aug": _r(aug.sum(), 1), "cmvn": _r(cmvn.std(1)[:4], 4), "deltas": _r(deltas.abs().mean(), 4),
            "mfcc": _r(mfcc[:3, :3], 2), "peak_bin": spec.sum(1).argmax().item()}


# ---- FFT convolution, overlap-add and overlap-save ---------------------------------------------------------------------
def fft_convolution_block_filtering(torch, device):
    F = torch.nn.functional
    x = _signal(torch, 2620, 300, device, torch.float64)
    h = torch.tensor(np.hanning(17) / np.hanning(17).sum(), dtype=torch.float64, device=device)
    n = x.numel() + h.numel() - 1
    nfft = 1 << (n - 1).bit_length()
    full = torch.fft.irfft(torch.fft.rfft(x, nfft) * torch.fft.rfft(h, nfft), nfft)[:n]
    direct = F.conv1d(x.view(1, 1, -1), h.flip(0).view(1, 1, -1), padding=h.numel() - 1).view(-1)
    # overlap-add with blocks of 64
    L = 64
    M = L + h.numel() - 1
    Hf = torch.fft.rfft(h, 128)
    ola = torch.zeros(x.numel() + h.numel() - 1 + L, dtype=torch.float64, device=device)
    for s in range(0, x.numel(), L):
        block = x[s:s + L]
        yb = torch.fft.irfft(torch.fft.rfft(block, 128) * Hf, 128)[:block.numel() + h.numel() - 1]
        ola[s:s + yb.numel()] += yb
    ola = ola[:n]
    # overlap-save: frames by unfold over a zero-prefixed signal
    P = h.numel() - 1
    padded = F.pad(x, (P, 128))
    frames = padded.unfold(0, 128, 128 - P)
    ys = torch.fft.irfft(torch.fft.rfft(frames, dim=-1) * Hf, 128, dim=-1)[:, P:]
    ols = ys.reshape(-1)[:n]
    # a batched FFT correlation to find a delay
    delayed = torch.roll(x, 23)
    corr = torch.fft.irfft(torch.fft.rfft(delayed) * torch.fft.rfft(x).conj(), x.numel())
    # 2-D FFT blur of an image, fftshift and frequency grids
    img = x[:256].view(16, 16)
    k2 = torch.outer(h[::2], h[::2])
    blurred = torch.fft.irfft2(torch.fft.rfft2(img) * torch.fft.rfft2(k2, s=img.shape), s=img.shape)
    return {"fft_vs_direct": _r((full - direct).abs().max(), 10), "ola": _r((ola - full).abs().max(), 10),
            "ols": _r((ols - full).abs().max(), 10), "full": _r(full[100:105], 6), "delay": corr.argmax().item(),
            "blur": [list(blurred.shape), _r(blurred.sum(), 4)], "M": M,
            "freqs": _r(torch.fft.fftshift(torch.fft.fftfreq(6, d=0.5, device=device)), 6),
            "rfreqs": _r(torch.fft.rfftfreq(7, device=device), 6),
            "ifftshift": torch.fft.ifftshift(torch.arange(5, device=device)).tolist()}


# ---- a phase vocoder time stretch ---------------------------------------------------------------------------------------
def phase_vocoder_stretch(torch, device):
    n_fft, hop = 128, 32
    x = _signal(torch, 2630, 2048, device)
    w = torch.hann_window(n_fft, device=device)
    S = torch.stft(x, n_fft, hop_length=hop, window=w, return_complex=True)
    rate = 1.25
    steps = torch.arange(0, S.shape[-1], rate, device=device)
    expected = torch.linspace(0, math.pi * hop, S.shape[0], device=device)
    phase0 = S[:, 0].angle()
    S = torch.nn.functional.pad(torch.view_as_real(S), (0, 0, 0, 2)).contiguous()
    S = torch.view_as_complex(S)
    idx = steps.floor().long()
    alpha = steps - idx
    a, b = S[:, idx], S[:, idx + 1]
    mag = (1 - alpha) * a.abs() + alpha * b.abs()
    dphi = b.angle() - a.angle() - expected.unsqueeze(1)
    dphi = dphi - 2 * math.pi * torch.round(dphi / (2 * math.pi))
    phase = torch.cat([phase0.unsqueeze(1), (dphi + expected.unsqueeze(1))[:, :-1]], 1).cumsum(1)
    stretched = torch.polar(mag, phase)
    y = torch.istft(stretched, n_fft, hop_length=hop, window=w)
    return {"frames": [S.shape[-1], stretched.shape[-1]], "len": y.numel(), "dtype": str(stretched.dtype),
            "energy_ratio": _r(y.pow(2).mean() / x.pow(2).mean(), 2), "mag": _r(mag.sum(), 1),
            "polar": _r(torch.view_as_real(torch.polar(torch.tensor([2.0], device=device),
                                                       torch.tensor([math.pi / 3], device=device))), 6)}


# ---- window functions and FFT helpers at their edges ---------------------------------------------------------------------
def window_and_fft_edges(torch, device):
    W = torch.signal.windows

    def t(v, dtype=None):
        return torch.tensor(v, dtype=dtype, device=device)

    table = {
        "hann_1": lambda: torch.hann_window(1, device=device),
        "hann_0": lambda: torch.hann_window(0, device=device),
        "hann_sym_5": lambda: torch.hann_window(5, periodic=False, device=device),
        "bartlett": lambda: torch.bartlett_window(6, device=device),
        "kaiser": lambda: torch.kaiser_window(6, beta=8.0, device=device),
        "kaiser_sym": lambda: torch.kaiser_window(6, periodic=False, beta=5.0, dtype=torch.float64, device=device),
        "int_window": lambda: torch.hann_window(4, dtype=torch.int64),
        "int_window_options": lambda: torch.kaiser_window(4, False, 2.0, dtype=torch.int8, layout=torch.strided,
                                                          pin_memory=False),
        "complex_window": lambda: torch.hann_window(4, dtype=torch.complex64),
        "complex_window_1": lambda: torch.view_as_real(torch.hann_window(1, dtype=torch.complex64, device=device)),
        "kaiser_beta_alone": lambda: torch.kaiser_window(6, beta=8.0, dtype=torch.float64),
        "neg_window": lambda: torch.hann_window(-1),
        "sig_gaussian": lambda: W.gaussian(7, std=1.5, device=device),
        "sig_cosine": lambda: W.cosine(5, sym=False, device=device),
        "sig_exponential": lambda: W.exponential(5, tau=2.0, device=device),
        "sig_general_hamming": lambda: W.general_hamming(6, alpha=0.6, device=device),
        "sig_nuttall": lambda: W.nuttall(5, device=device),
        "sig_bad": lambda: W.gaussian(5, std=-1.0),
        "rfft_odd": lambda: torch.fft.irfft(torch.fft.rfft(t([1.0, 2.0, 3.0, 4.0, 5.0])), n=5),
        "fft_norm": lambda: torch.view_as_real(torch.fft.fft(t([1.0, 0.0, -1.0, 0.0]), norm="ortho")),
        "hfft": lambda: torch.fft.hfft(t([1.0, 2.0, 3.0])),
        "ihfft": lambda: torch.view_as_real(torch.fft.ihfft(t([1.0, 2.0, 3.0, 4.0])).resolve_conj()),
        "fftn_dims": lambda: torch.view_as_real(torch.fft.fftn(torch.ones(2, 3, device=device), dim=(0,))),
        "int_input": lambda: torch.view_as_real(torch.fft.fft(t([1, 2, 3]))),
        "half_rfft": lambda: torch.fft.rfft(t([1.0, 2.0, 3.0, 4.0])).dtype,
        "bad_norm": lambda: torch.fft.fft(t([1.0, 2.0]), norm="sideways"),
        "bad_n": lambda: torch.fft.rfft(t([1.0, 2.0]), n=0),
        "irfft_n1": lambda: torch.fft.irfft(t([1.0, 2.0]), n=1),
    }
    return cases(torch, table)


PROGRAMS = [stft_istft_round_trips, log_mel_specaugment, fft_convolution_block_filtering, phase_vocoder_stretch,
            window_and_fft_edges]
NEEDS_CPP = {}


# ---- framing options: frames aligned to their window, complex signals and windows, shapes refused -----------------------
def stft_framing_options(torch, device):
    x = _signal(torch, 2640, 97, device, torch.float64)
    w = torch.hann_window(10, dtype=torch.float64, device=device) + 0.05

    def spec(**kw):
        S = torch.stft(x, 16, 3, 10, window=w, return_complex=True, **kw)
        return [list(S.shape), _r(S.abs().sum(), 4), _r(S[:, 0].abs(), 5)]

    def vr(t):
        return torch.view_as_real(t)

    cpu_x = x.cpu()
    table = {
        "aligned": lambda: spec(center=False, align_to_window=True),
        "not_aligned": lambda: spec(center=False, align_to_window=False),
        "default_no_center": lambda: spec(center=False),
        "aligned_full_window": lambda: list(torch.stft(x, 16, 4, window=torch.ones(16, dtype=torch.float64,
                                                                                    device=device),
                                                       center=False, align_to_window=True, return_complex=True).shape),
        "aligned_center": lambda: spec(center=True, align_to_window=True),
        "aligned_center_false": lambda: spec(center=True, align_to_window=False),
        "aligned_short": lambda: torch.stft(cpu_x[:12], 16, 3, 10, window=w.cpu(), center=False,
                                            align_to_window=True, return_complex=True),
        "complex_signal": lambda: vr(torch.stft(x[:40].to(torch.complex128) * (1 + 0.5j), 8, 4,
                                                window=w[:8], return_complex=True))[:, :3].sum(0),
        "complex_window": lambda: vr(torch.stft(x[:40], 8, 4, window=w[:8] * (1 - 1j),
                                                return_complex=True)).shape,
        "complex_window_repr": lambda: torch.stft(cpu_x.view(1, 1, -1), 8, window=w[:8].cpu().to(torch.complex128),
                                                  return_complex=True),
        "zero_dim": lambda: torch.stft(cpu_x[0], 8, return_complex=True),
        "zero_dim_constant": lambda: torch.stft(cpu_x[0], 8, return_complex=True, pad_mode="constant"),
        "three_dim": lambda: torch.stft(cpu_x[:96].view(2, 3, 16), 4, window=torch.ones(4, dtype=torch.float64),
                                        return_complex=True),
        "four_dim": lambda: torch.stft(cpu_x[:96].view(2, 3, 2, 8), 4, return_complex=True),
        "half_cpu": lambda: torch.stft(cpu_x.half(), 8, window=torch.ones(8, dtype=torch.half), return_complex=True),
        "half_with_float_window": lambda: str(torch.stft(x.half(), 8, window=torch.ones(8, device=device),
                                                         return_complex=True).dtype),
        "istft_1d": lambda: torch.istft(torch.ones(9, dtype=torch.complex64, device=device), 16),
        "istft_0d": lambda: torch.istft(torch.ones((), dtype=torch.complex64, device=device), 16),
        "istft_4d": lambda: torch.istft(torch.ones(2, 2, 9, 5, dtype=torch.complex64), 16,
                                        window=torch.ones(16, dtype=torch.complex64)),
    }
    return cases(torch, table)


PROGRAMS.append(stft_framing_options)
