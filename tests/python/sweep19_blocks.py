"""Sweep 19 programs in the style of timm and HuggingFace building blocks not covered before: channel and spatial
attention (squeeze-excitation, ECA, CBAM) in a residual stage with stochastic depth by rows and LayerScale,
HuggingFace-style logits processors (temperature, top-k, top-p by sort/cumsum/scatter, repetition penalty by
gather/scatter, no-repeat n-grams, min-length EOS masking) in a greedy loop, beam search with a reordered KV cache,
grouped-query attention (repeat_interleave and SDPA's enable_gqa, sliding windows, attention sinks), layer-wise LR
decay parameter groups with the newer clipping utilities (get_total_norm, clip_grads_with_norm_), and a top-2
mixture-of-experts layer with a load-balancing loss.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep19.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import math

import numpy as np

from sweep15_common import cases
from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


# ---- SE / ECA / CBAM blocks with stochastic depth (row mode) and LayerScale ----------------------------------------
def attention_cnn_blocks(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class SqueezeExcite(nn.Module):
        def __init__(self, ch, rd=4):
            super().__init__()
            self.fc1 = nn.Conv2d(ch, ch // rd, 1)
            self.fc2 = nn.Conv2d(ch // rd, ch, 1)

        def forward(self, x):
            s = x.mean((2, 3), keepdim=True)
            return x * F.hardsigmoid(self.fc2(F.relu(self.fc1(s))))

    class ECA(nn.Module):
        def __init__(self, ch):
            super().__init__()
            k = int(abs((math.log2(ch) + 1) / 2))
            k = k if k % 2 else k + 1
            self.conv = nn.Conv1d(1, 1, k, padding=(k - 1) // 2, bias=False)

        def forward(self, x):
            y = F.adaptive_avg_pool2d(x, 1).squeeze(-1).transpose(-1, -2)
            return x * torch.sigmoid(self.conv(y).transpose(-1, -2).unsqueeze(-1))

    class CBAM(nn.Module):
        def __init__(self, ch):
            super().__init__()
            self.mlp = nn.Sequential(nn.Flatten(), nn.Linear(ch, ch // 2), nn.ReLU(), nn.Linear(ch // 2, ch))
            self.spatial = nn.Conv2d(2, 1, 7, padding=3)

        def forward(self, x):
            ca = torch.sigmoid(self.mlp(F.adaptive_avg_pool2d(x, 1)) + self.mlp(F.adaptive_max_pool2d(x, 1)))
            x = x * ca[:, :, None, None]
            sa = torch.cat([x.mean(1, keepdim=True), x.amax(1, keepdim=True)], dim=1)
            return x * torch.sigmoid(self.spatial(sa))

    def stochastic_depth(x, p, training, keep_mask):
        if not training or p == 0:
            return x
        survival = 1 - p
        return x * keep_mask.view(-1, *([1] * (x.dim() - 1))).to(x.dtype) / survival

    class Block(nn.Module):
        def __init__(self, ch, attn, drop):
            super().__init__()
            self.conv = nn.Conv2d(ch, ch, 3, padding=1, groups=ch)
            self.pw = nn.Conv2d(ch, ch, 1)
            self.norm = nn.BatchNorm2d(ch)
            self.attn = attn
            self.gamma = nn.Parameter(torch.full((ch, 1, 1), 0.1))
            self.drop = drop

        def forward(self, x, keep):
            y = self.attn(F.gelu(self.norm(self.pw(self.conv(x)))))
            return x + stochastic_depth(self.gamma * y, self.drop, self.training, keep)

    ch = 8
    stage = nn.ModuleList([Block(ch, SqueezeExcite(ch), 0.0), Block(ch, ECA(ch), 0.1), Block(ch, CBAM(ch), 0.2)])
    _fill(torch, stage, 2000, 0.3)
    stage = stage.to(device)
    rng = np.random.default_rng(2001)
    x = _randn(torch, 2002, 4, ch, 6, 6, device=device)
    opt = torch.optim.SGD(stage.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    losses = []
    for _ in range(4):
        h = x
        for blk in stage:
            keep = torch.tensor(rng.random(4) >= blk.drop, device=device)
            h = blk(h, keep)
        loss = h.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(_r(loss, 5))
    stage.eval()
    with torch.no_grad():
        h = x
        for blk in stage:
            h = blk(h, None)
    k_eca = stage[1].attn.conv.kernel_size
    return {"losses": losses, "eval": _r(h.mean((0, 2, 3)), 4), "eca_kernel": list(k_eca),
            "running_var": _r(stage[2].norm.running_var, 4), "gamma": _r(stage[0].gamma.view(-1), 4)}


# ---- HF-style logits processors in a greedy loop ---------------------------------------------------------------------
def logits_processors(torch, device):
    V, eos = 12, 11
    rng = np.random.default_rng(2010)
    W = torch.tensor(rng.standard_normal((V, V)) * 2, dtype=torch.float32, device=device)
    bias = torch.tensor(rng.standard_normal(V), dtype=torch.float32, device=device)

    def model(ids):  # a bigram "language model"
        return W[ids[:, -1]] + bias

    def temperature(scores, t):
        return scores / t

    def top_k(scores, k, filter_value=-float("inf")):
        kth = torch.topk(scores, k)[0][..., -1, None]
        return scores.masked_fill(scores < kth, filter_value)

    def top_p(scores, p, min_keep=1):
        sorted_logits, sorted_idx = torch.sort(scores, descending=False)
        cum = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
        remove_sorted = cum <= (1 - p)
        remove_sorted[..., -min_keep:] = 0
        remove = remove_sorted.scatter(1, sorted_idx, remove_sorted)
        return scores.masked_fill(remove, -float("inf"))

    def repetition_penalty(ids, scores, penalty):
        score = torch.gather(scores, 1, ids)
        score = torch.where(score < 0, score * penalty, score / penalty)
        return scores.scatter(1, ids, score)

    def no_repeat_ngram(ids, scores, n):
        banned = []
        for row in ids.tolist():
            seen = {}
            for i in range(len(row) - n + 1):
                seen.setdefault(tuple(row[i:i + n - 1]), []).append(row[i + n - 1])
            banned.append(seen.get(tuple(row[len(row) - n + 1:]), []))
        for b, toks in enumerate(banned):
            if toks:
                scores[b, toks] = -float("inf")
        return scores

    def min_length(ids, scores, n):
        if ids.shape[-1] < n:
            scores[:, eos] = -float("inf")
        return scores

    ids = torch.tensor([[1, 4], [7, 2], [3, 3]], device=device)
    finished = torch.zeros(3, dtype=torch.bool, device=device)
    steps = []
    for _ in range(8):
        scores = model(ids)
        scores = repetition_penalty(ids, scores, 1.3)
        scores = no_repeat_ngram(ids, scores, 2)
        scores = min_length(ids, scores, 5)
        scores = temperature(scores, 0.7)
        scores = top_k(scores, 6)
        scores = top_p(scores, 0.9)
        probs = scores.softmax(-1)
        nxt = probs.argmax(-1)
        nxt = torch.where(finished, torch.full_like(nxt, eos), nxt)
        finished |= nxt == eos
        ids = torch.cat([ids, nxt[:, None]], dim=-1)
        steps.append([int(torch.isinf(scores).sum(-1).max()), _r(probs.max(-1).values, 4)])
        if finished.all():
            break
    # LM loss over padded micro-batches with gradient accumulation: one micro-batch is all padding (-100), whose
    # mean loss is NaN and must not poison the accumulated gradient (it is skipped by its token count)
    labels = torch.tensor([[3, 5, -100], [-100, -100, -100], [7, -100, -100]], device=device)
    Wp = W.clone().requires_grad_(True)
    F = torch.nn.functional
    accumulated = []
    for row in range(3):
        logits = (Wp[ids[row:row + 1, :3].clamp(max=V - 1)] + bias).view(-1, V)
        for smoothing in (0.0, 0.1):
            loss = F.cross_entropy(logits, labels[row], ignore_index=-100, label_smoothing=smoothing)
            (g,) = torch.autograd.grad(loss, Wp, retain_graph=True)
            accumulated.append([_r(loss, 4) if not math.isnan(loss.item()) else "nan", bool(torch.isnan(g).any()),
                                _r(g.abs().sum(), 4)])
    # the warped distribution is still a distribution; its entropy per row
    ent = -(probs * probs.clamp_min(1e-12).log()).sum(-1)
    return {"ids": ids.tolist(), "steps": steps, "entropy": _r(ent, 4), "finished": finished.tolist(),
            "padded_lm": accumulated,
            "topk_ties": top_k(torch.tensor([[1.0, 2.0, 2.0, 0.5]], device=device), 2).isinf().tolist()}


# ---- beam search over flattened beams with a reordered KV cache ---------------------------------------------------------
def beam_search_kv(torch, device):
    nn, F = torch.nn, torch.nn.functional
    V, D, B, K = 10, 8, 2, 3

    class TinyDecoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, D)
            self.q, self.k, self.v = nn.Linear(D, D), nn.Linear(D, D), nn.Linear(D, D)
            self.out = nn.Linear(D, V)

        def forward(self, tok, cache):
            h = self.emb(tok)  # (N, 1, D)
            k, v = self.k(h), self.v(h)
            if cache is not None:
                k = torch.cat([cache[0], k], dim=1)
                v = torch.cat([cache[1], v], dim=1)
            att = F.scaled_dot_product_attention(self.q(h), k, v)
            return self.out(att[:, -1]), (k, v)

    model = _fill(torch, TinyDecoder(), 2020, 0.6).to(device).eval()
    start = torch.tensor([1, 5], device=device)
    tok = start.repeat_interleave(K)[:, None]  # (B*K, 1)
    beam_scores = torch.zeros(B, K, device=device)
    beam_scores[:, 1:] = -1e9  # only the first beam is live at the start
    beam_scores = beam_scores.view(-1)
    seqs = tok.clone()
    cache = None
    with torch.inference_mode():
        for step in range(4):
            logits, cache = model(tok, cache)
            logp = F.log_softmax(logits, dim=-1) + beam_scores[:, None]
            flat = logp.view(B, K * V)
            top_scores, top_idx = torch.topk(flat, K, dim=1, largest=True, sorted=True)
            beam_idx = torch.div(top_idx, V, rounding_mode="floor")
            token_idx = top_idx % V
            src = (beam_idx + torch.arange(B, device=device)[:, None] * K).view(-1)
            cache = tuple(c.index_select(0, src) for c in cache)
            seqs = torch.cat([seqs[src], token_idx.view(-1, 1)], dim=1)
            beam_scores = top_scores.view(-1)
            tok = token_idx.view(-1, 1)
        length_penalty = ((5 + seqs.shape[1]) / 6) ** 0.8
        final = (beam_scores / length_penalty).view(B, K)
        best = final.argmax(1)
    return {"seqs": seqs.view(B, K, -1).tolist(), "scores": _r(final, 4), "best": best.tolist(),
            "cache_shape": list(cache[0].shape), "requires_grad": seqs.requires_grad}


# ---- grouped-query attention: repeat_interleave vs enable_gqa, sliding windows, sinks ---------------------------------
def grouped_query_attention(torch, device):
    F = torch.nn.functional
    B, Hq, Hkv, L, E = 2, 4, 2, 6, 8
    q = _randn(torch, 2030, B, Hq, L, E, device=device)
    k = _randn(torch, 2031, B, Hkv, L, E, device=device)
    v = _randn(torch, 2032, B, Hkv, L, E, device=device)
    rep = Hq // Hkv
    k_rep, v_rep = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
    causal = F.scaled_dot_product_attention(q, k_rep, v_rep, is_causal=True)
    i = torch.arange(L, device=device)
    window = (i[:, None] >= i[None, :]) & (i[:, None] - i[None, :] < 3)
    sliding = F.scaled_dot_product_attention(q, k_rep, v_rep, attn_mask=window)
    manual = torch.softmax((q @ k_rep.transpose(-1, -2) / math.sqrt(E)).masked_fill(~window, float("-inf")), -1) @ v_rep
    # attention sink: a learned logit column that absorbs mass
    sink = torch.full((Hq, 1, 1), 0.5, device=device)
    scores = q @ k_rep.transpose(-1, -2) / math.sqrt(E)
    scores = scores.masked_fill(~window, float("-inf"))
    with_sink = torch.cat([scores, sink.expand(B, Hq, L, 1)], dim=-1).softmax(-1)[..., :-1]
    out = cases(torch, {
        "gqa": lambda: _r((F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True) - causal)
                          .abs().max() < 1e-5, 1),
        "gqa_off": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True).shape,
        "expand_view": lambda: list(k[:, :, None].expand(B, Hkv, rep, L, E).reshape(B, Hq, L, E).shape),
        "scale": lambda: _r(F.scaled_dot_product_attention(q, k_rep, v_rep, scale=0.1)[0, 0, 0], 4),
        "bool_and_float_mask": lambda: _r((F.scaled_dot_product_attention(
            q, k_rep, v_rep, attn_mask=torch.zeros(L, L, device=device).masked_fill(~window, float("-inf")))
            - sliding).abs().max() < 1e-5, 1),
        "mask_and_causal": lambda: F.scaled_dot_product_attention(q, k_rep, v_rep, attn_mask=window, is_causal=True),
        # a key-padding vector as the mask: broadcast by the math path (3-D), refused by the CPU flash check (4-D)
        "padding_vector_3d": lambda: _r(F.scaled_dot_product_attention(q[0], k_rep[0], v_rep[0],
                                                                        attn_mask=i < 4)[1, 2], 4),
        "padding_vector_4d": lambda: F.scaled_dot_product_attention(q, k_rep, v_rep, attn_mask=i < 4),
        "padding_broadcast_4d": lambda: _r(F.scaled_dot_product_attention(q, k_rep, v_rep,
                                                                          attn_mask=(i < 4)[None, None, None])[1, 3, 2], 4),
        "scalar_mask_3d": lambda: _r(F.scaled_dot_product_attention(q[0], k_rep[0], v_rep[0],
                                                                    attn_mask=torch.tensor(0.5, device=device))[0, 0], 4),
        "dropout_eval": lambda: _r(F.scaled_dot_product_attention(q, k_rep, v_rep, dropout_p=0.0)[1, 3, 2], 4),
    })
    out["causal"] = _r(causal[0, :, -1].sum(-1), 4)
    out["sliding_matches"] = bool(torch.allclose(sliding, manual, atol=1e-5))
    out["sink_mass"] = _r(with_sink.sum(-1)[0, 0], 4)
    return out


# ---- layer-wise LR decay groups, no decay on norms/biases, the new clipping utilities ---------------------------------
def layer_decay_groups(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class TinyViT(nn.Module):
        def __init__(self, depth=3, dim=8):
            super().__init__()
            self.patch_embed = nn.Linear(4, dim)
            self.pos_embed = nn.Parameter(torch.zeros(1, 5, dim))
            self.blocks = nn.ModuleList(nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim), nn.GELU())
                                        for _ in range(depth))
            self.norm = nn.LayerNorm(dim)
            self.head = nn.Linear(dim, 3)

        def forward(self, x):
            h = self.patch_embed(x) + self.pos_embed
            for b in self.blocks:
                h = h + b(h)
            return self.head(self.norm(h).mean(1))

    model = _fill(torch, TinyViT(), 2040, 0.3).to(device)
    num_layers = len(model.blocks) + 1

    def layer_id(name):
        if name.startswith(("patch_embed", "pos_embed")):
            return 0
        if name.startswith("blocks."):
            return int(name.split(".")[1]) + 1
        return num_layers

    groups = {}
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        no_decay = p.ndim <= 1 or name.endswith(".bias") or name in {"pos_embed"}
        lid = layer_id(name)
        key = f"layer_{lid}_{'no_decay' if no_decay else 'decay'}"
        g = groups.setdefault(key, {"params": [], "weight_decay": 0.0 if no_decay else 0.05,
                                    "lr_scale": 0.75 ** (num_layers - lid), "names": []})
        g["params"].append(p)
        g["names"].append(name)
    opt = torch.optim.AdamW([{k: v for k, v in g.items() if k != "names"} for g in groups.values()], lr=1e-2)
    x = _randn(torch, 2041, 6, 5, 4, device=device)
    y = torch.tensor([0, 1, 2, 0, 1, 2], device=device)
    log = []
    for step in range(4):
        for g in opt.param_groups:
            g["lr"] = 1e-2 * g["lr_scale"] * (step + 1) / 4
        loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
        opt.zero_grad()
        loss.backward()
        grads = [p.grad for p in model.parameters() if p.grad is not None]
        total = torch.nn.utils.get_total_norm(grads, norm_type=2.0, foreach=True)
        torch.nn.utils.clip_grads_with_norm_(model.parameters(), 0.5, total)
        after = torch.nn.utils.get_total_norm([p.grad for p in model.parameters()])
        opt.step()
        log.append([_r(loss, 4), _r(total, 4), _r(after, 4)])
    out = {"log": log, "groups": {k: [g["names"], g["weight_decay"], round(g["lr_scale"], 4)]
                                  for k, g in groups.items()},
           "opt_keys": sorted(opt.param_groups[0].keys())}
    out["clip"] = cases(torch, {
        "nonfinite": lambda: torch.nn.utils.clip_grad_norm_([_with_grad(torch, [float("inf"), 1.0], device)],
                                                            1.0, error_if_nonfinite=True),
        "nonfinite_ok": lambda: torch.nn.utils.clip_grad_norm_([_with_grad(torch, [float("nan"), 1.0], device)],
                                                               1.0),
        "inf_norm": lambda: torch.nn.utils.clip_grad_norm_([_with_grad(torch, [3.0, -4.0], device)], 1.0,
                                                           norm_type="inf"),
        "foreach_true": lambda: torch.nn.utils.clip_grad_norm_([_with_grad(torch, [3.0, -4.0], device)], 1.0,
                                                               foreach=True),
        "total_norm_empty": lambda: torch.nn.utils.get_total_norm([]),
        "clip_value": lambda: _clip_value(torch, device),
        "clip_no_grads": lambda: torch.nn.utils.clip_grad_norm_([torch.zeros(2, device=device)], 1.0),
    })
    return out


def _with_grad(torch, values, device):
    p = torch.nn.Parameter(torch.zeros(len(values), device=device))
    p.grad = torch.tensor(values, device=device)
    return p


def _clip_value(torch, device):
    p = _with_grad(torch, [3.0, -4.0, 0.5], device)
    torch.nn.utils.clip_grad_value_([p], 1.0)
    return p.grad


# ---- top-2 mixture of experts with a load-balancing loss -------------------------------------------------------------
def mixture_of_experts(torch, device):
    nn, F = torch.nn, torch.nn.functional
    E, D, H, T = 4, 6, 10, 12

    class MoE(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate = nn.Linear(D, E, bias=False)
            self.w1 = nn.Parameter(torch.empty(E, D, H))
            self.w2 = nn.Parameter(torch.empty(E, H, D))

        def forward(self, x):
            logits = self.gate(x)
            probs = logits.softmax(-1)
            top_p, top_e = probs.topk(2, dim=-1)
            top_p = top_p / top_p.sum(-1, keepdim=True)
            out = torch.zeros_like(x)
            for e in range(E):
                tok, slot = torch.where(top_e == e)
                if tok.numel() == 0:
                    continue
                h = F.silu(x[tok] @ self.w1[e]) @ self.w2[e]
                out.index_add_(0, tok, h * top_p[tok, slot, None])
            counts = torch.bincount(top_e.flatten(), minlength=E).float()
            frac = counts / counts.sum()
            aux = E * (frac * probs.mean(0)).sum()
            z_loss = torch.logsumexp(logits, -1).pow(2).mean()
            return out, aux, z_loss, counts

    moe = _fill(torch, MoE(), 2050, 0.4).to(device)
    x = _randn(torch, 2051, T, D, device=device)
    target = _randn(torch, 2052, T, D, device=device)
    opt = torch.optim.Adam(moe.parameters(), lr=1e-2)
    log = []
    for _ in range(4):
        out, aux, z, counts = moe(x)
        loss = F.mse_loss(out, target) + 0.01 * aux + 1e-3 * z
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append([_r(loss, 4), _r(aux, 4), counts.long().tolist()])
    hist = torch.histc(moe.gate(x).argmax(-1).float(), bins=E, min=0, max=E - 1)
    return {"log": log, "hist": hist.tolist(), "gate_grad": _r(moe.gate.weight.grad.abs().sum(), 3)}


PROGRAMS = [attention_cnn_blocks, logits_processors, beam_search_kv, grouped_query_attention, layer_decay_groups,
            mixture_of_experts]
NEEDS_CPP = {}
