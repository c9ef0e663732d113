"""Sweep 22 programs, sequences as forecasting and decoding repositories write them: PatchTST (RevIN, replication
padding, patching with Tensor.unfold, channel independence); DLinear's moving-average decomposition with
front/end replicate padding and MASE/sMAPE metrics; sliding windows three ways (as_strided, unfold, a stacked loop)
with rolling statistics and lag features; contrastive search decoding with a KV cache and a degeneration penalty;
min-p and typical filtering with NumPy uniforms for inverse-CDF sampling; diverse beam search with a length penalty
and n-gram blocking; CTC training with per-sample losses plus Viterbi forced alignment and greedy decoding;
FT-Transformer for tabular data (numeric feature tokens, categorical embeddings with offsets, piecewise-linear
encodings from bucketize); masked pooling over padded sequences with torch.masked (CMVN over valid frames,
masked softmax attention pooling, masked mean/amax/logsumexp/norm/var).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep22.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import numpy as np

from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


def _series(torch, seed, batch, length, channels, device):
    t = np.arange(length)
    rng = np.random.default_rng(seed)
    data = (np.sin(t / 4.0)[None, :, None] * rng.uniform(0.5, 2, (batch, 1, channels))
            + 0.02 * t[None, :, None] + 0.1 * rng.standard_normal((batch, length, channels)))
    return torch.tensor(data, dtype=torch.float32, device=device)


# ---- PatchTST ------------------------------------------------------------------------------------------------------------
def patchtst_forecaster(torch, device):
    nn = torch.nn

    class RevIN(nn.Module):
        def __init__(self, c, eps=1e-5):
            super().__init__()
            self.eps = eps
            self.affine_weight = nn.Parameter(torch.ones(c))
            self.affine_bias = nn.Parameter(torch.zeros(c))

        def forward(self, x, mode):
            if mode == "norm":
                self.mean = torch.mean(x, dim=1, keepdim=True).detach()
                self.stdev = torch.sqrt(torch.var(x, dim=1, keepdim=True, unbiased=False) + self.eps).detach()
                return (x - self.mean) / self.stdev * self.affine_weight + self.affine_bias
            x = (x - self.affine_bias) / (self.affine_weight + self.eps * self.eps)
            return x * self.stdev + self.mean

    class PatchTST(nn.Module):
        def __init__(self, seq_len=24, pred_len=6, patch_len=6, stride=3, d_model=8, c=2):
            super().__init__()
            self.patch_len, self.stride = patch_len, stride
            self.revin = RevIN(c)
            self.pad = nn.ReplicationPad1d((0, stride))
            n_patches = (seq_len - patch_len) // stride + 2
            self.embed = nn.Linear(patch_len, d_model)
            self.pos = nn.Parameter(torch.zeros(1, n_patches, d_model))
            self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model, 2, 16, dropout=0.0,
                                                                            batch_first=True), 1)
            self.head = nn.Sequential(nn.Flatten(start_dim=-2), nn.Linear(n_patches * d_model, pred_len))

        def forward(self, x):  # x: B, L, C
            x = self.revin(x, "norm").permute(0, 2, 1)
            B, C, L = x.shape
            x = self.pad(x).unfold(dimension=-1, size=self.patch_len, step=self.stride)
            x = x.reshape(B * C, x.shape[2], self.patch_len)
            h = self.encoder(self.embed(x) + self.pos)
            out = self.head(h).reshape(B, C, -1).permute(0, 2, 1)
            return self.revin(out, "denorm")

    series = _series(torch, 2700, 3, 30, 2, device)
    x, y = series[:, :24], series[:, 24:]
    model = _fill(torch, PatchTST(), 2701, scale=0.3).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(4):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 5))
    patches = model.pad(x.permute(0, 2, 1)).unfold(-1, 6, 3)
    return {"losses": losses, "patches": list(patches.shape), "last_patch": _r(patches[0, 0, -1], 4),
            "stride": list(patches.stride())}


# ---- DLinear decomposition -----------------------------------------------------------------------------------------------
def dlinear_decomposition(torch, device):
    nn = torch.nn

    class MovingAvg(nn.Module):
        def __init__(self, kernel_size):
            super().__init__()
            self.kernel_size = kernel_size
            self.avg = nn.AvgPool1d(kernel_size=kernel_size, stride=1, padding=0)

        def forward(self, x):
            front = x[:, 0:1, :].repeat(1, (self.kernel_size - 1) // 2, 1)
            end = x[:, -1:, :].repeat(1, (self.kernel_size - 1) // 2, 1)
            x = torch.cat([front, x, end], dim=1)
            return self.avg(x.permute(0, 2, 1)).permute(0, 2, 1)

    class DLinear(nn.Module):
        def __init__(self, seq_len, pred_len):
            super().__init__()
            self.decomp = MovingAvg(5)
            self.seasonal = nn.Linear(seq_len, pred_len)
            self.trend = nn.Linear(seq_len, pred_len)
            self.seasonal.weight = nn.Parameter((1 / seq_len) * torch.ones([pred_len, seq_len]))
            self.trend.weight = nn.Parameter((1 / seq_len) * torch.ones([pred_len, seq_len]))
            nn.init.zeros_(self.seasonal.bias)
            nn.init.zeros_(self.trend.bias)

        def forward(self, x):
            trend = self.decomp(x)
            seasonal = x - trend
            s = self.seasonal(seasonal.permute(0, 2, 1))
            t = self.trend(trend.permute(0, 2, 1))
            return (s + t).permute(0, 2, 1)

    series = _series(torch, 2710, 4, 40, 3, device)
    x, y = series[:, :32], series[:, 32:]
    model = DLinear(32, 8).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    for _ in range(20):
        loss = nn.functional.l1_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        pred = model(x)
    naive_scale = (x[:, 1:] - x[:, :-1]).abs().mean(dim=1, keepdim=True)
    mase = ((pred - y).abs() / naive_scale).mean()
    smape = 200 * ((pred - y).abs() / (pred.abs() + y.abs())).mean()
    return {"loss": round(loss.item(), 5), "mase": round(mase.item(), 5), "smape": round(smape.item(), 4),
            "trend": _r(model.decomp(x)[0, :4, 0], 5)}


# ---- sliding windows three ways -----------------------------------------------------------------------------------------
def sliding_windows_three_ways(torch, device):
    s = torch.arange(20.0, device=device) ** 1.5
    w, step = 5, 2
    n = (s.numel() - w) // step + 1
    by_strided = torch.as_strided(s, size=(n, w), stride=(step * s.stride(0), s.stride(0)))
    by_unfold = s.unfold(0, w, step)
    by_loop = torch.stack([s[i * step:i * step + w] for i in range(n)])
    X, y = by_unfold[:, :-1], by_unfold[:, -1]
    rolling_mean = s.unfold(0, 4, 1).mean(-1)
    rolling_std = s.unfold(0, 4, 1).std(-1)
    lags = torch.stack([s.roll(k)[3:] for k in (1, 2, 3)], dim=1)
    mat = torch.arange(24.0, device=device).view(4, 6)
    patches2d = mat.unfold(0, 2, 2).unfold(1, 3, 3)
    # a windowed dataset fed to a linear autoregressive model
    ds = torch.utils.data.TensorDataset(X, y)
    loader = torch.utils.data.DataLoader(ds, batch_size=3, shuffle=False)
    lin = torch.nn.Linear(4, 1).to(device)
    with torch.no_grad():
        lin.weight.fill_(0.25)
        lin.bias.zero_()
    preds = torch.cat([lin(xb).squeeze(-1) for xb, _ in loader])
    return {"same": torch.equal(by_strided, by_unfold) and torch.equal(by_unfold, by_loop),
            "stride": list(by_strided.stride()), "is_view": by_unfold._is_view() and by_unfold.untyped_storage().data_ptr() == s.untyped_storage().data_ptr(),
            "contiguous": by_unfold.is_contiguous(), "rolling": _r(rolling_mean[:3], 4),
            "std": _r(rolling_std[:3], 4), "lags": _r(lags[:2], 4), "patches2d": patches2d.tolist(),
            "preds": _r(preds, 3), "n_batches": len(loader)}


# ---- contrastive search with a KV cache ---------------------------------------------------------------------------------
def contrastive_search_kv(torch, device):
    nn, F = torch.nn, torch.nn.functional
    V, D = 11, 8

    class TinyLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, D)
            self.qkv = nn.Linear(D, 3 * D)
            self.out = nn.Linear(D, V)

        def forward(self, ids, cache=None):
            h = self.emb(ids)
            q, k, v = self.qkv(h).chunk(3, dim=-1)
            if cache is not None:
                k = torch.cat([cache[0], k], dim=1)
                v = torch.cat([cache[1], v], dim=1)
            causal = q.shape[1] > 1
            a = F.scaled_dot_product_attention(q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1),
                                               is_causal=causal).squeeze(1)
            hidden = h + a
            return self.out(hidden), hidden, (k, v)

    model = _fill(torch, TinyLM(), 2730, scale=0.6).to(device).eval()
    ids = torch.tensor([[1, 4, 2]], device=device)
    k_top, alpha = 3, 0.6
    with torch.no_grad():
        logits, hidden, cache = model(ids)
        context_hidden = hidden
        out = ids[0].tolist()
        for _ in range(6):
            probs = logits[:, -1].softmax(-1)
            top_p, top_ids = probs.topk(k_top, dim=-1)
            scores = []
            for j in range(k_top):
                cand = top_ids[:, j:j + 1]
                _, h_c, _ = model(cand, cache)
                sim = F.cosine_similarity(h_c, context_hidden, dim=-1).max()
                scores.append((1 - alpha) * top_p[0, j] - alpha * sim)
            best = int(torch.stack(scores).argmax())
            nxt = top_ids[:, best:best + 1]
            logits, h_new, cache = model(nxt, cache)
            context_hidden = torch.cat([context_hidden, h_new], dim=1)
            out.append(nxt.item())
        # the cached pass equals the full recomputation
        full_logits, _, _ = model(torch.tensor([out], device=device))
    return {"tokens": out, "cache_len": cache[0].shape[1],
            "last": _r(full_logits[0, -1], 4), "cached": _r(logits[0, -1], 4)}


# ---- min-p and typical filtering, inverse-CDF sampling -----------------------------------------------------------------
def min_p_and_typical_sampling(torch, device):
    logits = _randn(torch, 2740, 4, 12, device=device) * 2

    def min_p_filter(logits, min_p=0.1):
        probs = logits.softmax(-1)
        top = probs.max(-1, keepdim=True).values
        return logits.masked_fill(probs < min_p * top, float("-inf"))

    def typical_filter(logits, mass=0.9):
        normalized = torch.nn.functional.log_softmax(logits, dim=-1)
        p = torch.exp(normalized)
        ent = -(normalized * p).nansum(-1, keepdim=True)
        shifted = torch.abs((-normalized) - ent)
        sorted_scores, sorted_indices = torch.sort(shifted, descending=False)
        cumulative = logits.gather(-1, sorted_indices).softmax(dim=-1).cumsum(dim=-1)
        last_ind = (cumulative < mass).sum(dim=1)
        last_ind.clamp_(max=sorted_scores.shape[-1] - 1)
        to_remove = sorted_scores > sorted_scores.gather(1, last_ind.view(-1, 1))
        to_remove[..., :1] = False
        remove = to_remove.scatter(1, sorted_indices, to_remove)
        return logits.masked_fill(remove, -float("Inf"))

    u = torch.tensor(np.random.default_rng(2741).random((4, 1)), dtype=torch.float32, device=device)

    def sample(filtered):
        probs = filtered.softmax(-1)
        cdf = probs.cumsum(-1)
        return torch.searchsorted(cdf, u * cdf[:, -1:]).squeeze(-1).clamp(max=11)

    mp, ty = min_p_filter(logits), typical_filter(logits)
    return {"min_p_kept": torch.isfinite(mp).sum(-1).tolist(), "typical_kept": torch.isfinite(ty).sum(-1).tolist(),
            "min_p_sample": sample(mp).tolist(), "typical_sample": sample(ty).tolist(),
            "entropy": _r(torch.distributions.Categorical(logits=logits).entropy(), 5)}


# ---- diverse beam search with a length penalty and n-gram blocking ------------------------------------------------------
def diverse_beam_search(torch, device):
    V, groups, beams_per_group, steps = 7, 2, 2, 5
    table = torch.tensor(np.random.default_rng(2750).standard_normal((V, V)) * 1.5, dtype=torch.float32,
                         device=device)
    eos = 0

    def step_logprobs(seqs):
        last = torch.tensor([s[-1] for s in seqs], device=device)
        return torch.log_softmax(table[last], dim=-1)

    def banned(seq, n=2):
        if len(seq) < n:
            return set()
        prefix = tuple(seq[-(n - 1):])
        return {seq[i + n - 1] for i in range(len(seq) - n + 1) if tuple(seq[i:i + n - 1]) == prefix}

    group_beams = [[([3], 0.0)] for _ in range(groups)]
    finished = []
    for t in range(steps):
        chosen_this_step = torch.zeros(V, device=device)
        for g in range(groups):
            beams = group_beams[g]
            lp = step_logprobs([b[0] for b in beams])
            lp = lp - 0.8 * chosen_this_step  # Hamming diversity against earlier groups
            for i, (seq, _) in enumerate(beams):
                for tok in banned(seq):
                    lp[i, tok] = float("-inf")
            scores = torch.tensor([b[1] for b in beams], device=device)[:, None] + lp
            top_scores, top_idx = scores.view(-1).topk(beams_per_group)
            new = []
            for sc, idx in zip(top_scores.tolist(), top_idx.tolist()):
                b, tok = divmod(idx, V)
                seq = beams[b][0] + [tok]
                if tok == eos:
                    finished.append((seq, sc / (len(seq) ** 1.2)))
                else:
                    new.append((seq, sc))
                chosen_this_step[tok] += 1
            group_beams[g] = new or beams
    for beams in group_beams:
        finished.extend((s, sc / (len(s) ** 1.2)) for s, sc in beams)
    finished.sort(key=lambda p: -p[1])
    return [[s, round(sc, 4)] for s, sc in finished[:4]]


# ---- CTC training, forced alignment, greedy decoding --------------------------------------------------------------------
def ctc_alignment(torch, device):
    nn, F = torch.nn, torch.nn.functional
    T, B, C = 12, 2, 5
    model = _fill(torch, nn.GRU(4, 8), 2760).to(device)
    head = _fill(torch, nn.Linear(8, C), 2761).to(device)
    x = _randn(torch, 2762, T, B, 4, device=device)
    targets = torch.tensor([1, 2, 2, 3, 4, 1, 3], device=device)
    target_lengths = torch.tensor([4, 3], device=device)
    input_lengths = torch.tensor([12, 9], device=device)
    ctc = nn.CTCLoss(blank=0, reduction="none", zero_infinity=True)
    opt = torch.optim.Adam(list(model.parameters()) + list(head.parameters()), lr=0.02)
    hist = []
    for _ in range(4):
        log_probs = head(model(x)[0]).log_softmax(-1)
        per_sample = ctc(log_probs, targets, input_lengths, target_lengths)
        loss = (per_sample / target_lengths).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        hist.append(_r(per_sample, 4))
    lp = log_probs[:, 0].detach()
    tgt = targets[:4].tolist()
    ext = [0]
    for c in tgt:
        ext += [c, 0]
    S = len(ext)
    dp = torch.full((T, S), float("-inf"), device=device)
    back = torch.zeros((T, S), dtype=torch.long)
    dp[0, 0], dp[0, 1] = lp[0, ext[0]], lp[0, ext[1]]
    for t in range(1, T):
        for s in range(S):
            cands = [(dp[t - 1, s].item(), s)]
            if s >= 1:
                cands.append((dp[t - 1, s - 1].item(), s - 1))
            if s >= 2 and ext[s] != 0 and ext[s] != ext[s - 2]:
                cands.append((dp[t - 1, s - 2].item(), s - 2))
            best, arg = max(cands)
            dp[t, s] = best + lp[t, ext[s]]
            back[t, s] = arg
    s = S - 1 if dp[T - 1, S - 1] > dp[T - 1, S - 2] else S - 2
    path = [s]
    for t in range(T - 1, 0, -1):
        s = int(back[t, s])
        path.append(s)
    align = [ext[s] for s in reversed(path)]
    greedy = torch.unique_consecutive(lp.argmax(-1))
    greedy = greedy[greedy != 0].tolist()
    return {"hist": hist, "align": align, "greedy": greedy, "mean": round(F.ctc_loss(
        log_probs, targets, input_lengths, target_lengths).item(), 4)}


# ---- FT-Transformer for tabular data ------------------------------------------------------------------------------------
def ft_transformer_tabular(torch, device):
    nn = torch.nn
    cardinalities = [3, 5, 2]

    class FTTransformer(nn.Module):
        def __init__(self, n_num=3, d=8):
            super().__init__()
            self.num_weight = nn.Parameter(torch.zeros(n_num, d))
            self.num_bias = nn.Parameter(torch.zeros(n_num, d))
            self.register_buffer("cat_offsets", torch.tensor([0] + cardinalities[:-1]).cumsum(0))
            self.cat_emb = nn.Embedding(sum(cardinalities), d)
            self.cls = nn.Parameter(torch.zeros(1, 1, d))
            self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, 2, 16, dropout=0.0, batch_first=True,
                                                                            norm_first=True), 2)
            self.head = nn.Sequential(nn.LayerNorm(d), nn.ReLU(), nn.Linear(d, 1))

        def forward(self, x_num, x_cat):
            num_tokens = self.num_weight[None] * x_num[..., None] + self.num_bias[None]
            cat_tokens = self.cat_emb(x_cat + self.cat_offsets[None])
            tokens = torch.cat([self.cls.expand(len(x_num), -1, -1), num_tokens, cat_tokens], dim=1)
            return self.head(self.encoder(tokens)[:, 0]).squeeze(-1)

    rng = np.random.default_rng(2770)
    x_num = torch.tensor(rng.standard_normal((16, 3)), dtype=torch.float32, device=device)
    x_cat = torch.tensor(np.stack([rng.integers(0, c, 16) for c in cardinalities], 1), device=device)
    y = (x_num[:, 0] > 0).float() + (x_cat[:, 1] == 2).float()
    # piecewise-linear encoding of the first feature from quantile bins
    edges = torch.quantile(x_num[:, 0], torch.linspace(0, 1, 5, device=device))
    bins = torch.bucketize(x_num[:, 0], edges[1:-1])
    width = edges[1:] - edges[:-1]
    frac = ((x_num[:, 0:1] - edges[None, :-1]) / width[None]).clamp(0, 1)
    ple = torch.where(torch.arange(4, device=device)[None] < bins[:, None], torch.ones_like(frac), frac)
    ple = torch.where(torch.arange(4, device=device)[None] > bins[:, None], torch.zeros_like(frac), ple)
    model = _fill(torch, FTTransformer(), 2771, scale=0.3).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-5)
    losses = []
    for _ in range(4):
        loss = nn.functional.binary_cross_entropy_with_logits(model(x_num, x_cat), (y > 0.5).float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 5))
    return {"losses": losses, "offsets": model.cat_offsets.tolist(), "bins": bins.tolist(), "ple": _r(ple[:3], 4)}


# ---- masked pooling over padded sequences with torch.masked ------------------------------------------------------------
def masked_sequence_pooling(torch, device):
    nn = torch.nn
    B, T, D = 4, 6, 5
    x = _randn(torch, 2780, B, T, D, device=device)
    lengths = torch.tensor([6, 3, 1, 4], device=device)
    mask = torch.arange(T, device=device)[None, :] < lengths[:, None]  # B, T
    mask3 = mask[:, :, None]  # broadcast over features

    # per-utterance feature normalisation (CMVN) over valid frames only
    mu = torch.masked.mean(x, 1, keepdim=True, mask=mask3)
    sd = torch.masked.std(x, 1, keepdim=True, correction=0, mask=mask3)
    normed = torch.where(mask3, (x - mu) / (sd + 1e-5), torch.zeros_like(x))

    class AttentivePooling(nn.Module):
        def __init__(self):
            super().__init__()
            self.score = nn.Linear(D, 1)
            self.out = nn.Linear(3 * D, 2)

        def forward(self, h, mask):
            w = torch.masked.softmax(self.score(h).squeeze(-1), 1, mask=mask)  # padded frames get 0
            att = (w.unsqueeze(-1) * h).sum(1)
            mean = torch.masked.mean(h, 1, mask=mask[:, :, None])
            peak = torch.masked.amax(h, 1, mask=mask[:, :, None])
            return self.out(torch.cat([att, mean, peak], -1)), w

    model = _fill(torch, AttentivePooling(), 2781).to(device)
    y = torch.tensor([0, 1, 1, 0], device=device)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    for _ in range(4):
        logits, w = model(normed, mask)
        loss = nn.functional.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 5))
    stats = {"sum": _r(torch.masked.sum(x[..., 0], 1, mask=mask), 5),
             "argmax": torch.masked.argmax(x[..., 0], 1, mask=mask).tolist(),
             "logsumexp": _r(torch.masked.logsumexp(x[..., 0], 1, mask=mask), 5),
             "norm": _r(torch.masked.norm(x[..., 0], 2.0, 1, mask=mask), 5),
             "cumsum": _r(torch.masked.cumsum(x[1, :, 0], 0, mask=mask[1]), 5),
             # a fully masked-out row is nan (0 / 0)
             "var_empty": torch.masked.var(x[..., 0], 1, mask=mask & (lengths[:, None] > 1)).isnan().tolist()}
    return {"mu": _r(mu[:, 0, :2], 5), "sd": _r(sd[:, 0, :2], 5), "losses": losses, "weights": _r(w, 4),
            "stats": stats}


PROGRAMS = [patchtst_forecaster, dlinear_decomposition, sliding_windows_three_ways, contrastive_search_kv,
            min_p_and_typical_sampling, diverse_beam_search, ctc_alignment, ft_transformer_tabular,
            masked_sequence_pooling]
NEEDS_CPP = {}
