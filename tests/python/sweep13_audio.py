"""Sweep 13 programs, audio front ends as speech and TTS repositories write them without torchaudio: a mel filterbank
built by hand (HTK and Slaney scales) with log-mel and MFCC through a DCT matrix, STFT / iSTFT round trips with
Hann, Hamming and Kaiser windows (center, onesided, normalized, win_length < n_fft, complex input), Griffin-Lim with
momentum, resampling by the FFT and by a windowed-sinc filter bank, CTC loss with its reductions and zero_infinity
plus greedy and prefix decoding, a causal dilated WaveNet stack with F.pad, and mu-law companding with one-hot
targets.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep13.py). Data come from NumPy so both libraries start from the same numbers."""
import math

import numpy as np


def _rounded(values, digits=5):
    return [round(float(v), digits) for v in values]


def _tone(n, sr, freqs, seed):
    t = np.arange(n) / sr
    rng = np.random.default_rng(seed)
    return sum(np.sin(2 * np.pi * f * t) for f in freqs) + 0.05 * rng.standard_normal(n)


# ---- a mel filterbank by hand, log-mel and MFCC via an orthonormal DCT-II matrix ----------------------------------
def mfcc_dct_matrix(torch, device):
    def hz_to_mel(f, scale):
        if scale == "htk":
            return 2595.0 * math.log10(1.0 + f / 700.0)
        f_sp = 200.0 / 3
        mels = f / f_sp
        min_log_hz, logstep = 1000.0, math.log(6.4) / 27.0
        min_log_mel = min_log_hz / f_sp
        return min_log_mel + math.log(f / min_log_hz) / logstep if f >= min_log_hz else mels

    def mel_to_hz(mels, scale):
        if scale == "htk":
            return 700.0 * (10.0 ** (mels / 2595.0) - 1.0)
        f_sp, min_log_hz, logstep = 200.0 / 3, 1000.0, math.log(6.4) / 27.0
        min_log_mel = min_log_hz / f_sp
        freqs = f_sp * mels
        log_t = mels >= min_log_mel
        freqs[log_t] = min_log_hz * torch.exp(logstep * (mels[log_t] - min_log_mel))
        return freqs

    def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sr, scale, norm=None):
        all_freqs = torch.linspace(0, sr // 2, n_freqs, device=device)
        m_min, m_max = hz_to_mel(f_min, scale), hz_to_mel(f_max, scale)
        m_pts = torch.linspace(m_min, m_max, n_mels + 2, device=device)
        f_pts = mel_to_hz(m_pts, scale)
        f_diff = f_pts[1:] - f_pts[:-1]
        slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
        down = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
        up = slopes[:, 2:] / f_diff[1:]
        fb = torch.max(torch.zeros(1, device=device), torch.min(down, up))
        if norm == "slaney":
            enorm = 2.0 / (f_pts[2:n_mels + 2] - f_pts[:n_mels])
            fb *= enorm.unsqueeze(0)
        return fb

    def create_dct(n_mfcc, n_mels):
        n = torch.arange(float(n_mels), device=device)
        k = torch.arange(float(n_mfcc), device=device).unsqueeze(1)
        dct = torch.cos(math.pi / float(n_mels) * (n + 0.5) * k)
        dct[0] *= 1.0 / math.sqrt(2.0)
        dct *= math.sqrt(2.0 / float(n_mels))
        return dct.t()

    sr, n_fft = 8000, 256
    wav = torch.tensor(_tone(4000, sr, (440, 1200), 1310), dtype=torch.float32, device=device)
    window = torch.hann_window(n_fft, device=device)
    spec = torch.stft(wav, n_fft, hop_length=128, window=window, return_complex=True).abs().pow(2.0)
    out = {"spec": list(spec.shape)}
    for scale, norm in (("htk", None), ("slaney", "slaney")):
        fb = melscale_fbanks(n_fft // 2 + 1, 0.0, sr / 2, 20, sr, scale, norm)
        mel = torch.matmul(spec.transpose(-1, -2), fb).transpose(-1, -2)
        log_mel = torch.clamp(mel, min=1e-10).log10() * 10.0
        log_mel = torch.max(log_mel, log_mel.max() - 80.0)  # top_db
        mfcc = torch.matmul(log_mel.transpose(-1, -2), create_dct(13, 20)).transpose(-1, -2)
        out[scale] = [list(fb.shape), round(fb.sum().item(), 4), round(log_mel.mean().item(), 4),
                      _rounded(mfcc[:4, 3], 3)]
    dct = create_dct(20, 20)
    out["dct_orthonormal"] = round((dct.t() @ dct - torch.eye(20, device=device)).abs().max().item(), 5)
    deltas = torch.nn.functional.conv1d(torch.nn.functional.pad(mfcc.unsqueeze(1), (2, 2), mode="replicate"),
                                        torch.arange(-2.0, 3.0, device=device).view(1, 1, 5) / 10.0)
    out["deltas"] = [list(deltas.shape), round(deltas.abs().mean().item(), 4)]
    cmvn = (mfcc - mfcc.mean(-1, keepdim=True)) / mfcc.std(-1, keepdim=True, unbiased=True)
    out["cmvn"] = round(cmvn.std(-1, correction=0).mean().item(), 4)
    return out


# ---- STFT / iSTFT round trips with several windows and options -----------------------------------------------------
def stft_istft_windows(torch, device):
    rng = np.random.default_rng(1311)
    x = torch.tensor(rng.standard_normal((2, 1000)), dtype=torch.float64, device=device)
    out = {}
    windows = {
        "hann": torch.hann_window(64, dtype=torch.float64, device=device),
        "hamming": torch.hamming_window(64, periodic=True, dtype=torch.float64, device=device),
        "kaiser": torch.kaiser_window(64, periodic=True, beta=8.0, dtype=torch.float64, device=device),
        "blackman": torch.blackman_window(64, dtype=torch.float64, device=device),
    }
    for name, win in windows.items():
        X = torch.stft(x, n_fft=64, hop_length=16, window=win, center=True, pad_mode="reflect",
                       normalized=False, onesided=True, return_complex=True)
        y = torch.istft(X, n_fft=64, hop_length=16, window=win, center=True, length=1000)
        out[name] = [list(X.shape), round((y - x).abs().max().item(), 8), round(X.abs().mean().item(), 5)]
    short = torch.hann_window(40, dtype=torch.float64, device=device)
    X = torch.stft(x, 64, hop_length=10, win_length=40, window=short, normalized=True, return_complex=True)
    y = torch.istft(X, 64, hop_length=10, win_length=40, window=short, normalized=True, length=1000)
    out["win_length"] = [list(X.shape), round((y - x).abs().max().item(), 8)]
    X = torch.stft(x[0], 64, hop_length=16, window=windows["hann"], onesided=False, return_complex=True)
    out["two_sided"] = [list(X.shape), str(X.dtype)]
    X = torch.stft(x, 64, hop_length=16, window=windows["hann"], center=False, return_complex=True)
    out["no_center"] = list(X.shape)
    z = torch.complex(x[0], x[1])
    Z = torch.stft(z, 32, hop_length=8, window=torch.hann_window(32, dtype=torch.float64, device=device),
                   return_complex=True)
    zr = torch.istft(Z, 32, hop_length=8, window=torch.hann_window(32, dtype=torch.float64, device=device),
                     onesided=False, return_complex=True, length=1000)
    out["complex"] = [list(Z.shape), str(zr.dtype), round((zr - z).abs().max().item(), 8)]
    out["window_values"] = _rounded(torch.kaiser_window(6, False, 5.0).tolist()) + _rounded(
        torch.hamming_window(5, periodic=False, alpha=0.5, beta=0.5))
    out["bartlett"] = _rounded(torch.bartlett_window(7))
    return out


# ---- Griffin-Lim phase reconstruction with momentum ----------------------------------------------------------------
def griffin_lim(torch, device):
    n_fft, hop = 128, 32
    wav = torch.tensor(_tone(2048, 8000, (500, 900), 1312), dtype=torch.float32, device=device)
    window = torch.hann_window(n_fft, device=device)
    mag = torch.stft(wav, n_fft, hop, window=window, return_complex=True).abs()
    rng = np.random.default_rng(1313)
    angles = torch.polar(torch.ones_like(mag), torch.tensor(rng.uniform(0, 2 * np.pi, tuple(mag.shape)),
                                                            dtype=torch.float32, device=device))
    tprev = torch.tensor(0.0, dtype=mag.dtype, device=device)
    momentum = 0.99
    errors = []
    for i in range(16):
        inverse = torch.istft(mag * angles, n_fft=n_fft, hop_length=hop, window=window, length=2048)
        rebuilt = torch.stft(inverse, n_fft, hop, window=window, center=True, pad_mode="reflect",
                             normalized=False, onesided=True, return_complex=True)
        angles = rebuilt
        if momentum:
            angles = angles - tprev.mul_(momentum / (1 + momentum))
        angles = angles.div(angles.abs().add(1e-16))
        tprev = rebuilt
        if i % 5 == 0:
            errors.append(round((rebuilt.abs() - mag).pow(2).mean().sqrt().item(), 4))
    final = torch.istft(mag * angles, n_fft=n_fft, hop_length=hop, window=window, length=2048)
    spectral_conv = (torch.stft(final, n_fft, hop, window=window, return_complex=True).abs() - mag).norm() / mag.norm()
    return {"errors": errors, "converged": bool(errors[-1] < errors[0]), "sc": round(spectral_conv.item(), 3),
            "dtype": str(angles.dtype), "angle_dtype": str(torch.angle(angles).dtype)}


# ---- resampling: by the FFT (scipy.signal.resample) and by a Kaiser-windowed sinc filter bank ----------------------
def resample_fft_and_sinc(torch, device):
    F = torch.nn.functional

    def fft_resample(x, num):
        n = x.shape[-1]
        X = torch.fft.rfft(x)
        Y = torch.zeros(x.shape[:-1] + (num // 2 + 1,), dtype=X.dtype, device=x.device)
        m = min(num, n) // 2 + 1
        Y[..., :m] = X[..., :m]
        if num < n and num % 2 == 0:
            Y[..., num // 2] *= 2 if False else 1
        return torch.fft.irfft(Y, n=num) * (num / n)

    def sinc_kernel(orig, new, width=6, beta=14.769656459379492):
        base = min(orig, new) * 0.99
        idx = torch.arange(-width, width + orig, dtype=torch.float64, device=device)[None, None] / orig
        t = torch.arange(0, -new, -1, dtype=torch.float64, device=device)[:, None, None] / new + idx
        t *= base
        t = t.clamp_(-width, width)
        window = torch.i0(beta * torch.sqrt(1 - (t / width) ** 2)) / torch.i0(torch.tensor(float(beta)))
        t *= math.pi
        kernels = torch.where(t == 0, torch.tensor(1.0).to(t), t.sin() / t)
        kernels *= window * (base / orig)
        return kernels.to(torch.float32)

    def sinc_resample(wav, orig, new):
        g = math.gcd(orig, new)
        orig, new = orig // g, new // g
        kernel = sinc_kernel(orig, new)
        width = 6
        n = wav.shape[-1]
        wav = F.pad(wav.view(-1, 1, n), (width, width + orig))
        res = F.conv1d(wav, kernel, stride=orig)
        res = res.transpose(1, 2).reshape(wav.shape[0], -1)
        target = int(math.ceil(new * n / orig))
        return res[..., :target]

    x = torch.tensor(_tone(800, 8000, (300,), 1314), dtype=torch.float64, device=device)
    up = fft_resample(x, 1600)
    down = fft_resample(x, 400)
    wav = x.float().unsqueeze(0)
    r = sinc_resample(wav, 8000, 6000)
    r2 = sinc_resample(wav, 8000, 16000)
    return {"fft_up": [list(up.shape), round((up[::2] - x).abs().max().item(), 3)],
            "fft_down": [list(down.shape), round(down.pow(2).mean().item(), 4)],
            "sinc": [list(r.shape), round(r.pow(2).mean().item(), 4)],
            "sinc_up": [list(r2.shape), round(r2.pow(2).mean().item(), 4)],
            "i0": _rounded(torch.i0(torch.tensor([0.0, 1.0, 3.0], device=device)))}


# ---- CTC: F.ctc_loss in its forms and reductions, a small model, greedy and best-path decoding ----------------------
def ctc_loss_and_decoding(torch, device):
    nn, F = torch.nn, torch.nn.functional
    rng = np.random.default_rng(1315)
    T, N, C = 12, 3, 6
    logits = torch.tensor(rng.standard_normal((T, N, C)), dtype=torch.float32, device=device, requires_grad=True)
    log_probs = logits.log_softmax(2)
    targets = torch.tensor([[1, 2, 2, 3], [4, 5, 0, 0], [1, 1, 1, 1]], dtype=torch.long, device=device)
    target_lengths = torch.tensor([4, 2, 4], device=device)
    input_lengths = torch.full((N,), T, dtype=torch.long, device=device)
    out = {}
    for reduction in ("none", "sum", "mean"):
        loss = F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=reduction)
        out[reduction] = _rounded(loss.flatten(), 4)
    concat = torch.cat([targets[0, :4], targets[1, :2], targets[2, :4]])
    loss_concat = F.ctc_loss(log_probs, concat, (T, T, T), (4, 2, 4))
    out["concat"] = round(loss_concat.item(), 4)
    # an impossible alignment: 4 repeated labels need 7 frames
    short = torch.tensor([12, 12, 5], device=device)
    inf_loss = F.ctc_loss(log_probs, targets, short, target_lengths, reduction="none")
    ctc = nn.CTCLoss(blank=0, reduction="mean", zero_infinity=True)
    zi = ctc(log_probs, targets, short, target_lengths)
    zi.backward()
    out["inf"] = [math.isinf(inf_loss[2].item()), round(zi.item(), 4), bool(torch.isfinite(logits.grad).all()),
                  round(logits.grad[:, 2].abs().sum().item(), 6)]
    # train a tiny model for a few steps
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, C))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.uniform(-0.4, 0.4, tuple(p.shape)), dtype=torch.float32))
    model.to(device)
    feats = torch.tensor(rng.standard_normal((N, T, 4)), dtype=torch.float32, device=device)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    crit = nn.CTCLoss(blank=0)
    hist = []
    for _ in range(8):
        lp = model(feats).log_softmax(-1).transpose(0, 1)
        loss = crit(lp, targets, input_lengths, target_lengths)
        opt.zero_grad()
        loss.backward()
        opt.step()
        hist.append(round(loss.item(), 4))
    out["train"] = hist

    def greedy_decode(lp, blank=0):
        best = lp.argmax(-1).transpose(0, 1)
        results = []
        for seq in best:
            collapsed = torch.unique_consecutive(seq)
            results.append(collapsed[collapsed != blank].tolist())
        return results

    out["greedy"] = greedy_decode(lp)
    uc, inverse, counts = torch.unique_consecutive(torch.tensor([0, 0, 3, 3, 0, 2, 2, 2], device=device),
                                                   return_inverse=True, return_counts=True)
    out["unique_consecutive"] = [uc.tolist(), inverse.tolist(), counts.tolist()]
    out["float64"] = round(F.ctc_loss(log_probs.double(), targets, input_lengths, target_lengths).item(), 4)
    return out


# ---- a causal dilated WaveNet stack with gated activations and skip connections -----------------------------------
def wavenet_causal_dilated(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class CausalConv1d(nn.Conv1d):
        def __init__(self, cin, cout, kernel_size, dilation=1):
            super().__init__(cin, cout, kernel_size, dilation=dilation, padding=0)
            self.left = (kernel_size - 1) * dilation

        def forward(self, x):
            return super().forward(F.pad(x, (self.left, 0)))

    class ResidualBlock(nn.Module):
        def __init__(self, ch, skip, dilation):
            super().__init__()
            self.dilated = CausalConv1d(ch, 2 * ch, 2, dilation)
            self.res = nn.Conv1d(ch, ch, 1)
            self.skip = nn.Conv1d(ch, skip, 1)

        def forward(self, x):
            h = self.dilated(x)
            filt, gate = h.chunk(2, dim=1)
            z = torch.tanh(filt) * torch.sigmoid(gate)
            return x + self.res(z), self.skip(z)

    class WaveNet(nn.Module):
        def __init__(self, q=16, ch=8, skip=8, dilations=(1, 2, 4, 8)):
            super().__init__()
            self.embed = CausalConv1d(q, ch, 2)
            self.blocks = nn.ModuleList([ResidualBlock(ch, skip, d) for d in dilations])
            self.out = nn.Sequential(nn.ReLU(), nn.Conv1d(skip, skip, 1), nn.ReLU(), nn.Conv1d(skip, q, 1))
            self.receptive_field = 2 + sum(dilations)

        def forward(self, x):
            x = self.embed(x)
            skips = 0
            for block in self.blocks:
                x, s = block(x)
                skips = skips + s
            return self.out(skips)

    rng = np.random.default_rng(1316)
    model = WaveNet()
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.uniform(-0.3, 0.3, tuple(p.shape)), dtype=torch.float32))
    model.to(device)
    seq = torch.tensor(rng.integers(0, 16, (2, 40)), device=device)
    inputs = F.one_hot(seq[:, :-1], 16).permute(0, 2, 1).float()
    logits = model(inputs)
    loss = F.cross_entropy(logits, seq[:, 1:])
    loss.backward()
    # causality: changing a future sample leaves earlier outputs alone
    x2 = inputs.clone()
    x2[:, :, 30] = 0
    with torch.no_grad():
        diff = (model(x2) - logits).abs().amax(dim=(0, 1))
    grads = {n: round(p.grad.norm().item(), 5) for n, p in model.named_parameters() if n.endswith("dilated.weight")}
    return {"loss": round(loss.item(), 5), "shape": list(logits.shape), "rf": model.receptive_field,
            "causal": [bool((diff[:30] == 0).all()), bool(diff[30] > 0)], "grads": grads}


# ---- mu-law companding with 8-bit targets (WaveRNN / WaveNet preprocessing) ----------------------------------------
def mu_law_companding(torch, device):
    def mu_law_encoding(x, quantization_channels):
        mu = torch.tensor(quantization_channels - 1.0, dtype=x.dtype, device=x.device)
        x_mu = torch.sign(x) * torch.log1p(mu * torch.abs(x)) / torch.log1p(mu)
        return ((x_mu + 1) / 2 * mu + 0.5).to(torch.int64)

    def mu_law_decoding(x_mu, quantization_channels):
        mu = quantization_channels - 1.0
        if not x_mu.is_floating_point():
            x_mu = x_mu.to(torch.float)
        mu = torch.tensor(mu, dtype=x_mu.dtype, device=x_mu.device)
        x = ((x_mu) / mu) * 2 - 1.0
        return torch.sign(x) * (torch.exp(torch.abs(x) * torch.log1p(mu)) - 1.0) / mu

    rng = np.random.default_rng(1317)
    wav = torch.tensor(np.clip(rng.normal(0, 0.3, 500), -1, 1), dtype=torch.float32, device=device)
    enc = mu_law_encoding(wav, 256)
    dec = mu_law_decoding(enc, 256)
    hist = torch.bincount(enc, minlength=256)
    onehot = torch.nn.functional.one_hot(enc[:10], 256)
    snr = 10 * torch.log10(wav.pow(2).sum() / (wav - dec).pow(2).sum())
    # bits: 8-bit PCM through uint8 and back, int16 scaling
    pcm16 = (wav * 32767).round().to(torch.int16)
    back16 = pcm16.to(torch.float32) / 32768.0
    u8 = enc.to(torch.uint8)
    return {"enc": enc[:12].tolist(), "dtype": str(enc.dtype), "range": [int(enc.min()), int(enc.max())],
            "snr": round(snr.item(), 3), "mode": int(hist.argmax()), "onehot": [list(onehot.shape), str(onehot.dtype)],
            "pcm16": [str(pcm16.dtype), pcm16[:5].tolist(), round((back16 - wav).abs().max().item(), 5)],
            "u8": [str(u8.dtype), int(u8.max()), round(mu_law_decoding(u8, 256).abs().max().item(), 5)],
            "extremes": mu_law_encoding(torch.tensor([-1.0, 0.0, 1.0], device=device), 256).tolist()}


PROGRAMS = [mfcc_dct_matrix, stft_istft_windows, griffin_lim, resample_fft_and_sinc, ctc_loss_and_decoding,
            wavenet_causal_dilated, mu_law_companding]
NEEDS_CPP = {}
