"""Sweep 11 programs, time series: a temporal convolutional network (causal Conv1d by left padding and dilation,
weight_norm as the old hook and as a parametrization), an LSTM with proj_size fed by a sliding-window Dataset
through DataLoader with WeightedRandomSampler/SubsetRandomSampler/BatchSampler, a seasonal-trend decomposition by
moving averages (avg_pool1d, replicate padding, unfold, rfft periodogram), quantile forecasting with a pinball loss
under OneCycleLR, a DeepAR-style Gaussian likelihood (GaussianNLLLoss) under CyclicLR, and an N-BEATS-style
residual stack under SequentialLR/ChainedScheduler with the schedulers' state_dict round trips, and a
Transformer forecaster with reversible instance normalisation and Time2Vec features (norm_first encoder layers,
causal and key-padding masks, clip_grad_norm_ with foreach).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep11.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import io
import math
import warnings

import numpy as np

from test_programs_sweeputil import init_from_numpy


def _rounded(values, digits=5):
    return [round(float(v), digits) for v in values]


def _series(seed, length, period=12):
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    return (0.02 * t + np.sin(2 * np.pi * t / period) + 0.1 * rng.standard_normal(length)).astype(np.float32)


# ---- TCN: causal dilated convolutions with weight normalisation ----------------------------------------------
def tcn_weight_norm(torch, device):
    nn = torch.nn
    parametrizations = nn.utils.parametrizations
    weight_norm, remove_weight_norm = nn.utils.weight_norm, nn.utils.remove_weight_norm

    class Chomp1d(nn.Module):
        def __init__(self, chomp):
            super().__init__()
            self.chomp = chomp

        def forward(self, x):
            return x[:, :, :-self.chomp].contiguous()

    class TemporalBlock(nn.Module):
        def __init__(self, fan_in, fan_out, kernel, dilation, new_style):
            super().__init__()
            pad = (kernel - 1) * dilation
            wn = parametrizations.weight_norm if new_style else weight_norm
            self.conv1 = wn(nn.Conv1d(fan_in, fan_out, kernel, padding=pad, dilation=dilation))
            self.chomp1 = Chomp1d(pad)
            self.conv2 = wn(nn.Conv1d(fan_out, fan_out, kernel, padding=pad, dilation=dilation))
            self.chomp2 = Chomp1d(pad)
            self.net = nn.Sequential(self.conv1, self.chomp1, nn.ReLU(), nn.Dropout(0.0),
                                     self.conv2, self.chomp2, nn.ReLU())
            self.downsample = nn.Conv1d(fan_in, fan_out, 1) if fan_in != fan_out else nn.Identity()

        def forward(self, x):
            return torch.relu(self.net(x) + self.downsample(x))

    series = _series(1301, 80)
    x = torch.tensor(series[None, None, :-1], device=device)
    y = torch.tensor(series[None, None, 1:], device=device)
    results = {}
    for new_style in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            model = nn.Sequential(TemporalBlock(1, 8, 3, 1, new_style), TemporalBlock(8, 8, 3, 2, new_style),
                                  TemporalBlock(8, 8, 3, 4, new_style), nn.Conv1d(8, 1, 1)).to(device)
        init_from_numpy(torch, model, 1302)
        opt = torch.optim.Adam(model.parameters(), lr=0.005)
        losses = []
        for _ in range(4):
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)
            opt.step()
            losses.append(loss.item())
        # causality: changing the future must not change the past outputs
        x2 = x.clone()
        x2[..., 50:] += 10.0
        with torch.no_grad():
            causal = torch.allclose(model(x)[..., :50], model(x2)[..., :50])
        names = sorted(n for n, _ in model[0].conv1.named_parameters())
        results["new" if new_style else "old"] = {"losses": _rounded(losses), "causal": causal, "names": names}
    old = weight_norm(nn.Conv1d(2, 3, 3), name="weight", dim=0)
    init_from_numpy(torch, old, 1303)
    w_before = old.weight.detach().clone()
    remove_weight_norm(old)
    results["removed"] = [sorted(n for n, _ in old.named_parameters()), torch.allclose(old.weight, w_before)]
    p = parametrizations.weight_norm(nn.Linear(4, 3), dim=None)
    results["dim_none"] = [list(p.parametrizations.weight.original0.shape),
                           list(p.parametrizations.weight.original1.shape)]
    return results


# ---- LSTM with proj_size on sliding windows (Dataset, DataLoader, samplers) ------------------------------------
def lstm_windows_samplers(torch, device):
    nn = torch.nn
    data = torch.utils.data

    class Windows(data.Dataset):
        def __init__(self, series, lookback, horizon):
            self.series = torch.tensor(series)
            self.lookback, self.horizon = lookback, horizon

        def __len__(self):
            return len(self.series) - self.lookback - self.horizon + 1

        def __getitem__(self, i):
            past = self.series[i:i + self.lookback].unsqueeze(-1)
            future = self.series[i + self.lookback:i + self.lookback + self.horizon]
            return {"past": past, "future": future, "index": i}

    class Forecaster(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(1, 16, num_layers=2, batch_first=True, proj_size=4, dropout=0.0)
            self.head = nn.Linear(4, 3)

        def forward(self, x):
            out, (h, c) = self.lstm(x)
            return self.head(out[:, -1]), h.shape, c.shape

    ds = Windows(_series(1311, 60), 12, 3)
    model = Forecaster().to(device)
    init_from_numpy(torch, model, 1312)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    # a deterministic pass: BatchSampler over a SequentialSampler
    batches = data.BatchSampler(data.SequentialSampler(ds), batch_size=8, drop_last=True)
    loader = data.DataLoader(ds, batch_sampler=batches)
    losses, shapes = [], None
    for batch in loader:
        pred, hs, cs = model(batch["past"].to(device))
        loss = nn.functional.l1_loss(pred, batch["future"].to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        shapes = [list(hs), list(cs), list(batch["past"].shape), batch["index"].dtype == torch.int64]
    # the random samplers: properties only (the generators differ between libraries)
    weights = torch.tensor([0.0 if i % 2 else 1.0 for i in range(len(ds))], dtype=torch.double)
    wsampler = data.WeightedRandomSampler(weights, num_samples=20, replacement=True,
                                          generator=torch.Generator().manual_seed(3))
    drawn = list(wsampler)
    again = list(data.WeightedRandomSampler(weights, 20, generator=torch.Generator().manual_seed(3)))
    subset = data.SubsetRandomSampler(list(range(10, 20)), generator=torch.Generator().manual_seed(4))
    subset_drawn = sorted(subset)
    split = data.random_split(ds, [0.7, 0.3], generator=torch.Generator().manual_seed(5))
    loader2 = data.DataLoader(ds, batch_size=10, sampler=subset, drop_last=False)
    sizes = [len(b["future"]) for b in loader2]
    return {"losses": _rounded(losses), "shapes": shapes, "n_batches": len(batches), "len": len(ds),
            "even_only": all(i % 2 == 0 for i in drawn), "reproducible": drawn == again, "n_drawn": len(drawn),
            "subset": subset_drawn, "split": [len(s) for s in split], "split_type": type(split[0]).__name__,
            "loader2": sizes, "params": [list(p.shape) for n, p in model.lstm.named_parameters() if "l0" in n]}


# ---- seasonal-trend decomposition by moving averages and a periodogram -------------------------------------------
def seasonal_decomposition(torch, device):
    F = torch.nn.functional
    period = 12
    series = torch.tensor(np.stack([_series(1321, 96, period), _series(1322, 96, period)]), device=device)
    x = series.unsqueeze(1)  # (batch, 1, time)
    # centred moving average with replicate padding (the Autoformer series_decomp block)
    k = 13
    front = x[:, :, :1].repeat(1, 1, (k - 1) // 2)
    end = x[:, :, -1:].repeat(1, 1, (k - 1) // 2)
    trend = F.avg_pool1d(torch.cat([front, x, end], dim=-1), kernel_size=k, stride=1)
    trend_pad = F.avg_pool1d(F.pad(x, ((k - 1) // 2, (k - 1) // 2), mode="replicate"), k, stride=1)
    detrended = (x - trend).squeeze(1)
    seasonal = detrended.unfold(-1, period, period).mean(dim=1)  # (batch, period)
    seasonal = seasonal - seasonal.mean(dim=1, keepdim=True)
    resid = detrended - seasonal.repeat(1, 96 // period)
    spectrum = torch.fft.rfft(series - series.mean(dim=1, keepdim=True), dim=-1).abs() ** 2
    freqs = torch.fft.rfftfreq(96, d=1.0, device=device)
    peak = freqs[spectrum[:, 1:].argmax(dim=1) + 1]
    windows = series.unfold(1, 24, 6)
    stats = torch.std_mean(windows, dim=-1, correction=0)
    pools = {"ceil": F.avg_pool1d(x, 5, stride=5, ceil_mode=True).shape[-1],
             "no_pad_count": _rounded(F.avg_pool1d(x[:1], 3, stride=3, padding=1,
                                                   count_include_pad=False).flatten()[:4]),
             "pad_count": _rounded(F.avg_pool1d(x[:1], 3, stride=3, padding=1).flatten()[:4]),
             "max": _rounded(F.max_pool1d(x[:1], 4, stride=4).flatten()[:4]),
             "lp": _rounded(F.lp_pool1d(x[:1].abs(), 2.0, 4, stride=4).flatten()[:4])}
    return {"trend_same": torch.allclose(trend, trend_pad), "trend": _rounded(trend[0, 0, ::12]),
            "seasonal": _rounded(seasonal[0]), "resid_std": _rounded(resid.std(dim=1)),
            "peak_period": [round(1.0 / f, 3) for f in peak.tolist()], "windows": list(windows.shape),
            "std": _rounded(stats[0][0]), "mean": _rounded(stats[1][0]), "pools": pools,
            "cummax": _rounded(series[0, :8].cummax(0).values), "diff": _rounded(torch.diff(series[0, :5],
                                                                                           prepend=series[0, :1]))}


# ---- quantile regression with the pinball loss under OneCycleLR --------------------------------------------------
def quantile_forecast_onecycle(torch, device):
    nn = torch.nn
    quantiles = torch.tensor([0.1, 0.5, 0.9], device=device)

    def pinball(pred, target):
        diff = target.unsqueeze(-1) - pred
        return torch.maximum(quantiles * diff, (quantiles - 1) * diff).mean()

    series = _series(1331, 120)
    windows = np.lib.stride_tricks.sliding_window_view(series, 17)
    x = torch.tensor(windows[:, :16].copy(), device=device)
    y = torch.tensor(windows[:, 16].copy(), device=device)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(approximate="tanh"), nn.Linear(32, 3),
                          nn.Unflatten(1, (3, 1)), nn.Flatten(1)).to(device)
    init_from_numpy(torch, model, 1332)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    epochs, steps = 3, 4
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=steps,
                                                pct_start=0.25, anneal_strategy="cos", div_factor=10.0,
                                                final_div_factor=100.0, three_phase=True)
    lrs, moms, losses = [], [], []
    for epoch in range(epochs):
        for s in range(steps):
            idx = slice(s * 25, s * 25 + 25)
            loss = pinball(model(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.item())
            lrs.append(sched.get_last_lr()[0])
            moms.append(opt.param_groups[0]["momentum"])
    with torch.no_grad():
        pred = model(x)
        coverage = ((y >= pred[:, 0]) & (y <= pred[:, 2])).float().mean().item()
        ordered = torch.sort(pred, dim=1).values
    q_ref = torch.quantile(y, quantiles, interpolation="linear")
    q_modes = {m: _rounded(torch.quantile(y[:10], 0.35, interpolation=m).reshape(1))
               for m in ("linear", "lower", "higher", "midpoint", "nearest")}
    nan_y = y[:10].clone()
    nan_y[3] = float("nan")
    return {"losses": _rounded(losses), "lrs": _rounded(lrs, 7), "moms": _rounded(moms, 6),
            "coverage": round(coverage, 5), "sorted_gap": round((ordered - pred).abs().max().item(), 5),
            "q_ref": _rounded(q_ref), "q_modes": q_modes, "nanquantile": round(nan_y.nanquantile(0.5).item(), 5),
            "quantile_nan": math.isnan(nan_y.quantile(0.5).item()), "sched_keys": sorted(sched.state_dict())}


# ---- DeepAR-style Gaussian likelihood with GaussianNLLLoss under CyclicLR --------------------------------------
def deepar_gaussian_cyclic(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class DeepAR(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(2, 12, batch_first=True)
            self.mu = nn.Linear(12, 1)
            self.sigma = nn.Sequential(nn.Linear(12, 1), nn.Softplus(beta=1.0, threshold=20.0))

        def forward(self, x):
            h, _ = self.rnn(x)
            return self.mu(h).squeeze(-1), self.sigma(h).squeeze(-1) + 1e-3

    rng = np.random.default_rng(1341)
    series = np.stack([_series(1342 + i, 41) for i in range(6)])
    covariate = rng.standard_normal((6, 40)).astype(np.float32)
    scale = series[:, :-1].mean(axis=1, keepdims=True) + 1.0
    inputs = np.stack([series[:, :-1] / scale, covariate], axis=-1)
    x = torch.tensor(inputs, device=device)
    target = torch.tensor(series[:, 1:] / scale, device=device)
    model = DeepAR().to(device)
    init_from_numpy(torch, model, 1343)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    sched = torch.optim.lr_scheduler.CyclicLR(opt, base_lr=0.001, max_lr=0.05, step_size_up=2, step_size_down=3,
                                              mode="exp_range", gamma=0.9, cycle_momentum=True,
                                              base_momentum=0.8, max_momentum=0.95)
    criterion = nn.GaussianNLLLoss(full=True, eps=1e-6)
    losses, lrs = [], []
    for _ in range(6):
        mu, sigma = model(x)
        loss = criterion(mu, target, sigma ** 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
        lrs.append([round(sched.get_last_lr()[0], 7), round(opt.param_groups[0]["momentum"], 6)])
    with torch.no_grad():
        mu, sigma = model(x)
        dist = torch.distributions.Normal(mu, sigma)
        manual = -dist.log_prob(target).mean()
        ref = F.gaussian_nll_loss(mu, target, sigma ** 2, full=True)
        per_dim = F.gaussian_nll_loss(mu, target, (sigma ** 2)[..., :1], reduction="none")
        icdf = dist.icdf(torch.tensor(0.9, device=device))
    errors = []
    try:
        F.gaussian_nll_loss(mu, target, -torch.ones_like(mu))
    except ValueError as exc:
        errors.append(str(exc))
    try:
        F.gaussian_nll_loss(mu, target, torch.ones(6, 3, device=device))
    except ValueError as exc:
        errors.append(str(exc))
    state = sched.state_dict()
    return {"losses": _rounded(losses), "lrs": lrs, "manual_vs_loss": round((manual - ref).abs().item(), 5),
            "per_dim": list(per_dim.shape), "icdf": _rounded(icdf[0, :5]), "errors": errors,
            "state_has": sorted(k for k in ("base_lrs", "last_epoch", "mode", "gamma", "_scale_fn_ref",
                                            "scale_mode") if k in state)}


# ---- N-BEATS-style residual stack under SequentialLR and ChainedScheduler, schedulers saved and restored -----
def nbeats_sequential_lr(torch, device):
    nn = torch.nn
    lr_sched = torch.optim.lr_scheduler

    class Block(nn.Module):
        def __init__(self, lookback, horizon, width):
            super().__init__()
            self.fc = nn.Sequential(nn.Linear(lookback, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
            self.theta = nn.Linear(width, lookback + horizon, bias=False)
            self.lookback = lookback

        def forward(self, x):
            theta = self.theta(self.fc(x))
            return theta[:, :self.lookback], theta[:, self.lookback:]

    class NBeats(nn.Module):
        def __init__(self, n_blocks):
            super().__init__()
            self.blocks = nn.ModuleList([Block(20, 5, 16) for _ in range(n_blocks)])

        def forward(self, x):
            forecast = 0
            for block in self.blocks:
                backcast, f = block(x)
                x = x - backcast
                forecast = forecast + f
            return forecast

    series = _series(1351, 100)
    w = np.lib.stride_tricks.sliding_window_view(series, 25)
    x = torch.tensor(w[:, :20].copy(), device=device)
    y = torch.tensor(w[:, 20:].copy(), device=device)

    def build():
        model = NBeats(3).to(device)
        init_from_numpy(torch, model, 1352)
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        warm = lr_sched.LinearLR(opt, start_factor=0.1, end_factor=1.0, total_iters=3)
        decay = lr_sched.ExponentialLR(opt, gamma=0.8)
        seq = lr_sched.SequentialLR(opt, schedulers=[warm, decay], milestones=[3])
        return model, opt, seq

    model, opt, seq = build()
    losses, lrs = [], []
    for step in range(8):
        loss = nn.functional.smooth_l1_loss(model(x), y, beta=0.5)
        opt.zero_grad()
        loss.backward()
        opt.step()
        seq.step()
        losses.append(loss.item())
        lrs.append(seq.get_last_lr()[0])
        if step == 4:  # checkpoint mid-way, restore into a fresh trio, and continue from there
            buf = io.BytesIO()
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": seq.state_dict()}, buf)
    buf.seek(0)
    ckpt = torch.load(buf, weights_only=False)
    model2, opt2, seq2 = build()
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["opt"])
    seq2.load_state_dict(ckpt["sched"])
    resumed = []
    for step in range(5, 8):
        loss = nn.functional.smooth_l1_loss(model2(x), y, beta=0.5)
        opt2.zero_grad()
        loss.backward()
        opt2.step()
        seq2.step()
        resumed.append(seq2.get_last_lr()[0])
    # ChainedScheduler multiplies the factors of schedulers that step together
    p = nn.Parameter(torch.zeros(1, device=device))
    opt3 = torch.optim.SGD([p], lr=1.0)
    chained = lr_sched.ChainedScheduler([lr_sched.ConstantLR(opt3, factor=0.5, total_iters=2),
                                         lr_sched.MultiStepLR(opt3, milestones=[1, 3], gamma=0.1)])
    chain_lrs = []
    for _ in range(5):
        opt3.step()
        chained.step()
        chain_lrs.append(round(opt3.param_groups[0]["lr"], 8))
    poly = lr_sched.PolynomialLR(torch.optim.SGD([p], lr=0.5), total_iters=4, power=2.0)
    poly_lrs = []
    for _ in range(5):
        poly.optimizer.step()
        poly.step()
        poly_lrs.append(round(poly.get_last_lr()[0], 8))
    return {"losses": _rounded(losses), "lrs": _rounded(lrs, 8), "resumed": _rounded(resumed, 8),
            "chain": chain_lrs, "poly": poly_lrs, "seq_keys": sorted(ckpt["sched"]),
            "last_epoch": ckpt["sched"]["last_epoch"], "opt_state_steps": float(ckpt["opt"]["state"][0]["step"])}


# ---- a Transformer forecaster with reversible instance normalisation (RevIN) and Time2Vec features -------------
def revin_time2vec_transformer(torch, device):
    nn = torch.nn

    class RevIN(nn.Module):
        def __init__(self, channels, eps=1e-5):
            super().__init__()
            self.eps = eps
            self.weight = nn.Parameter(torch.ones(channels))
            self.bias = nn.Parameter(torch.zeros(channels))

        def forward(self, x, mode):
            if mode == "norm":
                self.mean = x.mean(dim=1, keepdim=True).detach()
                self.std = torch.sqrt(x.var(dim=1, keepdim=True, unbiased=False) + self.eps).detach()
                return (x - self.mean) / self.std * self.weight + self.bias
            return (x - self.bias) / (self.weight + self.eps ** 2) * self.std + self.mean

    class Time2Vec(nn.Module):
        def __init__(self, k):
            super().__init__()
            self.linear = nn.Linear(1, 1)
            self.periodic = nn.Linear(1, k - 1)

        def forward(self, t):
            return torch.cat([self.linear(t), torch.sin(self.periodic(t))], dim=-1)

    class Forecaster(nn.Module):
        def __init__(self, channels, horizon, d_model=16):
            super().__init__()
            self.revin = RevIN(channels)
            self.t2v = Time2Vec(4)
            self.embed = nn.Linear(channels + 4, d_model)
            layer = nn.TransformerEncoderLayer(d_model, nhead=2, dim_feedforward=32, dropout=0.0,
                                               batch_first=True, norm_first=True, activation="gelu")
            self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
            self.head = nn.Sequential(nn.Flatten(1), nn.Linear(24 * d_model, horizon * channels),
                                      nn.Unflatten(1, (horizon, channels)))

        def forward(self, x, t, pad_mask):
            z = self.revin(x, "norm")
            h = self.embed(torch.cat([z, self.t2v(t)], dim=-1))
            mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1], device=x.device)
            h = self.encoder(h, mask=mask, src_key_padding_mask=pad_mask, is_causal=True)
            return self.revin(self.head(h), "denorm")

    rng = np.random.default_rng(1361)
    series = np.stack([np.stack([_series(1362 + 2 * i, 30), _series(1363 + 2 * i, 30, 6)], axis=-1)
                       for i in range(4)])
    x = torch.tensor(series[:, :24], device=device)
    y = torch.tensor(series[:, 24:], device=device)
    t = torch.arange(24, dtype=torch.float32, device=device).view(1, 24, 1).expand(4, -1, -1) / 24
    pad = torch.zeros(4, 24, dtype=torch.bool, device=device)
    pad[0, :3] = True  # the first series starts late: its first steps are padding
    model = Forecaster(2, 6).to(device)
    init_from_numpy(torch, model, 1364)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.98), eps=1e-9)
    losses = []
    for _ in range(4):
        loss = nn.functional.huber_loss(model(x, t, pad), y, delta=0.5)
        opt.zero_grad()
        loss.backward()
        total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, foreach=True)
        opt.step()
        losses.append([loss.item(), total.item()])
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    model.eval()
    with torch.no_grad():
        pred = model(x, t, pad)
    return {"losses": [_rounded(pair) for pair in losses], "pred": _rounded(pred[1, :, 0]),
            "mask": [[v if v == 0.0 else "-inf" for v in row] for row in mask.tolist()],
            "revin": _rounded(model.revin.mean.flatten()), "shape": list(pred.shape)}


PROGRAMS = [tcn_weight_norm, lstm_windows_samplers, seasonal_decomposition, quantile_forecast_onecycle,
            deepar_gaussian_cyclic, nbeats_sequential_lr, revin_time2vec_transformer]
NEEDS_CPP = {}
