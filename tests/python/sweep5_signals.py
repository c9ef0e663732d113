"""Sweep 5 programs, audio and sequences: a keyword-spotting net on log-mel features built by hand from stft, a
spectral-mask denoiser trained through stft/istft, CTC speech recognition with greedy decoding, and GRU
forecasting of variable-length series through packed sequences.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep5.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import math
import warnings

import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


def mel_filterbank(torch, n_freqs, n_mels, sample_rate, device):
    """Triangular filters evenly spaced on the HTK mel scale, as written in audio tutorials (n_freqs x n_mels)."""
    def hz_to_mel(f):
        return 2595.0 * math.log10(1.0 + f / 700.0)

    all_freqs = torch.linspace(0, sample_rate // 2, n_freqs, device=device)
    m_pts = torch.linspace(hz_to_mel(0.0), hz_to_mel(sample_rate / 2), n_mels + 2, device=device)
    f_pts = 700.0 * (10 ** (m_pts / 2595.0) - 1.0)
    f_diff = f_pts[1:] - f_pts[:-1]
    slopes = f_pts.unsqueeze(0) - all_freqs.unsqueeze(1)
    down_slopes = (-1.0 * slopes[:, :-2]) / f_diff[:-1]
    up_slopes = slopes[:, 2:] / f_diff[1:]
    return torch.max(torch.zeros(1, device=device), torch.min(down_slopes, up_slopes))


# ---- keyword spotting: stft -> mel -> log -> conv1d stack -> global pooling -> classes ---------------------------
def keyword_spotting(torch, device):
    nn = torch.nn
    F = nn.functional
    sample_rate, n_fft, hop = 8000, 128, 64
    t = torch.arange(2048, device=device) / sample_rate
    rng = np.random.default_rng(11)
    freqs = torch.tensor(rng.choice([300.0, 900.0, 2000.0], size=6), dtype=torch.float32, device=device)
    labels = (freqs > 500).long() + (freqs > 1000).long()
    noise = numpy_input(torch, 12, 6, 2048, device=device)
    waves = torch.sin(2 * math.pi * freqs.unsqueeze(1) * t) + 0.1 * noise
    window = torch.hann_window(n_fft, device=device)
    spec = torch.stft(waves, n_fft=n_fft, hop_length=hop, window=window, return_complex=True)
    power = spec.abs().pow(2)  # (batch, freq, frames)
    fb = mel_filterbank(torch, n_fft // 2 + 1, 16, sample_rate, device)
    mel = torch.matmul(power.transpose(1, 2), fb).transpose(1, 2)
    log_mel = torch.log(mel.clamp(min=1e-10))
    log_mel = (log_mel - log_mel.mean(dim=(1, 2), keepdim=True)) / log_mel.std(dim=(1, 2), keepdim=True)

    model = nn.Sequential(
        nn.Conv1d(16, 24, kernel_size=3, padding=1), nn.BatchNorm1d(24), nn.ReLU(),
        nn.Conv1d(24, 24, kernel_size=3, padding=2, dilation=2), nn.BatchNorm1d(24), nn.ReLU(),
        nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(24, 3)).to(device)
    init_from_numpy(torch, model, 13)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    losses = []
    for _ in range(4):
        logits = model(log_mel)
        loss = F.cross_entropy(logits, labels, label_smoothing=0.1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        predictions = model(log_mel).argmax(1)
    return {"losses": losses, "spec_shape": list(spec.shape), "spec_dtype": str(spec.dtype),
            "fb_row_sums": [round(v, 4) for v in fb.sum(0)[:4].tolist()], "predictions_dtype": str(predictions.dtype),
            "running_var": model[1].running_var[:3].tolist()}


# ---- speech denoising with a learned spectral mask, trained through stft and istft --------------------------------
def spectral_denoiser(torch, device):
    nn = torch.nn
    n_fft, hop = 64, 16
    window = torch.hann_window(n_fft, periodic=True, device=device)
    t = torch.arange(1024, device=device, dtype=torch.float32) / 1024
    clean = torch.stack([torch.sin(2 * math.pi * 40 * t), torch.sign(torch.sin(2 * math.pi * 10 * t)) * 0.5])
    noisy = clean + 0.3 * numpy_input(torch, 14, 2, 1024, device=device)

    class MaskNet(nn.Module):
        def __init__(self, n_freq):
            super().__init__()
            self.gru = nn.GRU(n_freq, 32, batch_first=True)
            self.out = nn.Linear(32, n_freq)

        def forward(self, wave):
            spec = torch.stft(wave, n_fft, hop_length=hop, window=window, center=True, return_complex=True)
            mag = spec.abs()
            features = torch.log1p(mag).transpose(1, 2)
            hidden, _ = self.gru(features)
            mask = torch.sigmoid(self.out(hidden)).transpose(1, 2)
            return torch.istft(spec * mask, n_fft, hop_length=hop, window=window, center=True, length=wave.shape[-1])

    model = MaskNet(n_fft // 2 + 1).to(device)
    init_from_numpy(torch, model, 15)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    losses = []
    for _ in range(3):
        estimate = model(noisy)
        loss = nn.functional.l1_loss(estimate, clean)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        losses.append(loss.item())
    # Perfect reconstruction without a mask: istft(stft(x)) == x.
    spec = torch.stft(noisy, n_fft, hop_length=hop, window=window, return_complex=True)
    round_trip = torch.istft(spec, n_fft, hop_length=hop, window=window, length=1024)
    snr = 10 * torch.log10(clean.pow(2).sum() / (estimate.detach() - clean).pow(2).sum())
    return {"losses": losses, "round_trip_error": float((round_trip - noisy).abs().max() < 1e-5),
            "snr": snr.item(), "shape": list(estimate.shape)}


# ---- CTC speech recognition: BiLSTM acoustic model, ctc_loss, greedy decoding with unique_consecutive -------------
def ctc_speech(torch, device):
    nn = torch.nn
    n_feats, n_classes, T, N = 10, 6, 20, 3  # class 0 is the blank

    class AcousticModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(n_feats, 16, kernel_size=5, padding=2)
            self.lstm = nn.LSTM(16, 12, num_layers=1, bidirectional=True)
            self.fc = nn.Linear(24, n_classes)

        def forward(self, x):  # x: (N, feats, T)
            x = nn.functional.relu(self.conv(x)).permute(2, 0, 1)  # (T, N, C)
            x, _ = self.lstm(x)
            return self.fc(x).log_softmax(dim=-1)

    model = AcousticModel().to(device)
    init_from_numpy(torch, model, 16)
    features = numpy_input(torch, 17, N, n_feats, T, device=device)
    rng = np.random.default_rng(18)
    target_lengths = torch.tensor([5, 3, 4], dtype=torch.long)
    targets = torch.tensor(rng.integers(1, n_classes, size=int(target_lengths.sum())), device=device)
    input_lengths = torch.full((N,), T, dtype=torch.long)
    input_lengths[2] = 15
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(3):
        log_probs = model(features)
        loss = ctc(log_probs, targets, input_lengths, target_lengths)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    # padded (N, S) targets and the per-sample losses
    padded = torch.zeros(N, 5, dtype=torch.long, device=device)
    offsets = torch.cumsum(target_lengths, 0) - target_lengths
    for i in range(N):
        padded[i, :target_lengths[i]] = targets[offsets[i]:offsets[i] + target_lengths[i]]
    per_sample = nn.functional.ctc_loss(log_probs.detach(), padded, input_lengths, target_lengths, reduction="none")
    best = log_probs.detach().argmax(-1).T  # (N, T)
    decoded = []
    for i in range(N):
        collapsed = torch.unique_consecutive(best[i, :input_lengths[i]])
        decoded.append(collapsed[collapsed != 0].tolist())
    return {"losses": losses, "per_sample": per_sample.tolist(), "decoded": decoded,
            "log_probs_shape": list(log_probs.shape)}


# ---- GRU forecasting of variable-length series: pad_sequence, pack_padded_sequence, one-step-ahead targets -----
def gru_forecasting(torch, device):
    nn = torch.nn
    rnn_utils = nn.utils.rnn
    rng = np.random.default_rng(19)
    lengths = [12, 9, 7, 4]
    series = [torch.tensor(np.sin(np.arange(n) * 0.5 + rng.uniform(0, 3)) + 0.05 * rng.standard_normal(n),
                           dtype=torch.float32) for n in lengths]

    class Forecaster(nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = nn.GRU(1, 16, num_layers=2, batch_first=True, dropout=0.0)
            self.head = nn.Linear(16, 1)

        def forward(self, x, lengths):
            packed = rnn_utils.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
            out, h_n = self.gru(packed)
            out, out_lengths = rnn_utils.pad_packed_sequence(out, batch_first=True)
            return self.head(out).squeeze(-1), h_n, out_lengths

    model = Forecaster().to(device)
    init_from_numpy(torch, model, 20)
    order = [2, 0, 3, 1]  # unsorted on purpose: enforce_sorted=False sorts and restores
    inputs = rnn_utils.pad_sequence([series[i][:-1] for i in order], batch_first=True).unsqueeze(-1).to(device)
    targets = rnn_utils.pad_sequence([series[i][1:] for i in order], batch_first=True, padding_value=0.0).to(device)
    in_lengths = torch.tensor([lengths[i] - 1 for i in order])
    mask = torch.arange(targets.size(1)).unsqueeze(0) < in_lengths.unsqueeze(1)
    mask = mask.to(device)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=5e-3)
    losses = []
    for _ in range(4):
        pred, h_n, out_lengths = model(inputs, in_lengths)
        loss = ((pred - targets) ** 2 * mask).sum() / mask.sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    # autoregressive rollout from the last hidden state of the first series
    with torch.no_grad():
        x = targets[:1, in_lengths[0] - 1].view(1, 1, 1)
        h = h_n[:, :1].contiguous()
        rollout = []
        for _ in range(3):
            out, h = model.gru(x, h)
            x = model.head(out)
            rollout.append(x.item())
    return {"losses": losses, "out_lengths": out_lengths.tolist(), "h_shape": list(h_n.shape),
            "rollout": rollout, "pred_shape": list(pred.shape)}


# ---- resampling and MFCCs: a windowed-sinc low-pass (Kaiser window) applied by conv1d, then MFCCs from a
# Hamming-windowed power spectrum (alpha/beta given), log-mel and a DCT-II matrix built by hand; and the
# spectrogram with a shorter win_length than n_fft and no window (a rectangular window of win_length samples) ------
def resample_and_mfcc(torch, device):
    F = torch.nn.functional
    orig_freq, new_freq, taps = 3, 2, 24  # 12 kHz -> 8 kHz
    rng = np.random.default_rng(21)
    t = torch.arange(1200, dtype=torch.float64, device=device) / 12000
    wave = (torch.sin(2 * math.pi * 440 * t) + 0.5 * torch.sin(2 * math.pi * 5000 * t)).float()
    wave = wave + 0.01 * torch.tensor(rng.standard_normal(1200), dtype=torch.float32, device=device)

    cutoff = 0.99 * min(orig_freq, new_freq) / (2 * orig_freq)  # of the sampling rate
    n = torch.arange(-taps, taps + 1, dtype=torch.float32, device=device)
    window = torch.kaiser_window(2 * taps + 1, periodic=False, beta=8.6, device=device)
    kernel = 2 * cutoff * torch.special.sinc(2 * cutoff * n) * window
    filtered = F.conv1d(F.pad(wave.view(1, 1, -1), (taps, taps), mode="reflect"), kernel.view(1, 1, -1))
    # upsample by 2 (zeros between), filter again, keep every third sample
    up = torch.zeros(1, 1, filtered.shape[-1] * new_freq, device=device)
    up[..., ::new_freq] = filtered * new_freq
    up = F.conv1d(F.pad(up, (taps, taps)), kernel.view(1, 1, -1))
    resampled = up[..., ::orig_freq].squeeze()

    n_fft, hop, n_mels, n_mfcc = 256, 80, 20, 12
    hamming = torch.hamming_window(200, True, alpha=0.54, beta=0.46, device=device)
    spec = torch.stft(resampled, n_fft, hop_length=hop, win_length=200, window=hamming, center=True,
                      pad_mode="reflect", return_complex=True)
    power = spec.abs().pow(2)
    fb = mel_filterbank(torch, n_fft // 2 + 1, n_mels, 8000, device)
    log_mel = torch.log(fb.T @ power + 1e-6)
    k = torch.arange(n_mfcc, dtype=torch.float32, device=device).unsqueeze(1)
    m = torch.arange(n_mels, dtype=torch.float32, device=device).unsqueeze(0)
    dct = torch.cos(math.pi / n_mels * (m + 0.5) * k) * math.sqrt(2.0 / n_mels)
    dct[0] *= 1 / math.sqrt(2.0)
    mfcc = dct @ log_mel
    deltas = torch.gradient(mfcc, dim=1)[0]

    with warnings.catch_warnings():  # the rectangular-window warning is the point here
        warnings.simplefilter("ignore")
        boxcar = torch.stft(resampled, 64, hop_length=16, win_length=40, return_complex=True)
    return {"resampled_len": resampled.shape[-1], "resampled": resampled[100:104].tolist(),
            "mfcc_shape": list(mfcc.shape), "mfcc": mfcc[:3, 2].tolist(), "delta": deltas[1, 1:3].tolist(),
            "boxcar": boxcar.abs()[:3, 2].tolist(), "window": [window[0].item(), hamming[0].item()]}


PROGRAMS = [keyword_spotting, spectral_denoiser, ctc_speech, gru_forecasting, resample_and_mfcc]
