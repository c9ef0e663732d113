"""Sweep 12 programs, NLP written from scratch: a pure-Python BPE tokenizer feeding nn.Embedding with padding_idx and a
masked-mean classifier, an nn.Transformer seq2seq copy task with every mask (generate_square_subsequent_mask, key
padding for source, target and memory) and greedy decoding, nn.MultiheadAttention's options (need_weights,
average_attn_weights, key_padding_mask, kdim/vdim, add_bias_kv, add_zero_attn, per-head 3-D masks), BERT-style
masked-language-model masking with label-smoothed CrossEntropyLoss(ignore_index), T5 relative position buckets as
an attention bias, greedy/top-k/top-p filtering with multinomial, rotary embeddings through view_as_complex and
polar, the Annotated Transformer's KLDivLoss label smoothing under a Noam LambdaLR, and an adaptive softmax
language model.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep12.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import collections
import math

import numpy as np

from test_programs_sweeputil import init_from_numpy


def _rounded(values, digits=5):
    return [round(float(v), digits) for v in values]


_CORPUS = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog met", "the mat was on the log",
           "dogs and cats sat", "a log on a mat"]


def _train_bpe(corpus, merges):
    words = collections.Counter(" ".join(corpus).split())
    vocab = {tuple(w) + ("</w>",): c for w, c in words.items()}
    rules = []
    for _ in range(merges):
        pairs = collections.Counter()
        for word, c in vocab.items():
            for a, b in zip(word, word[1:]):
                pairs[a, b] += c
        if not pairs:
            break
        best = max(sorted(pairs), key=pairs.get)
        rules.append(best)
        new_vocab = {}
        for word, c in vocab.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            new_vocab[tuple(out)] = c
        vocab = new_vocab
    symbols = sorted({s for w in vocab for s in w})
    return rules, {s: i + 2 for i, s in enumerate(symbols)}  # 0 = <pad>, 1 = <unk>


def _encode(text, rules, table):
    ids = []
    for word in text.split():
        parts = list(word) + ["</w>"]
        for a, b in rules:
            i, out = 0, []
            while i < len(parts):
                if i + 1 < len(parts) and parts[i] == a and parts[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(parts[i])
                    i += 1
            parts = out
        ids.extend(table.get(p, 1) for p in parts)
    return ids


# ---- BPE tokenizer -> Embedding(padding_idx) -> masked mean -> classifier ------------------------------------
def bpe_embedding_classifier(torch, device):
    nn, F = torch.nn, torch.nn.functional
    pad_sequence = torch.nn.utils.rnn.pad_sequence
    rules, table = _train_bpe(_CORPUS, 12)
    seqs = [torch.tensor(_encode(t, rules, table), dtype=torch.long) for t in _CORPUS]
    batch = pad_sequence(seqs, batch_first=True, padding_value=0).to(device)
    lengths = torch.tensor([len(s) for s in seqs], device=device)
    labels = torch.tensor([int("cat" in t) for t in _CORPUS], device=device)

    class Classifier(nn.Module):
        def __init__(self, vocab):
            super().__init__()
            self.emb = nn.Embedding(vocab, 16, padding_idx=0)
            self.out = nn.Linear(16, 2)

        def forward(self, ids):
            mask = (ids != self.emb.padding_idx).unsqueeze(-1).type_as(self.emb.weight)
            pooled = (self.emb(ids) * mask).sum(1) / mask.sum(1).clamp(min=1)
            return self.out(pooled)

    model = Classifier(len(table) + 2).to(device)
    init_from_numpy(torch, model, 1301)
    with torch.no_grad():
        model.emb.weight[model.emb.padding_idx].fill_(0)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    for _ in range(8):
        loss = F.cross_entropy(model(batch), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    arange = torch.arange(batch.shape[1], device=device)
    length_mask = arange[None, :] < lengths[:, None]
    return {"rules": [" ".join(r) for r in rules[:6]], "vocab": len(table), "batch": list(batch.shape),
            "first": batch[0].tolist(), "losses": _rounded(losses, 4),
            "pad_grad": model.emb.weight.grad[0].abs().sum().item(),
            "masks_agree": bool((length_mask == (batch != 0)).all()),
            "pred": model(batch).argmax(-1).tolist()}


# ---- nn.Transformer seq2seq on a copy task with every mask and greedy decoding -------------------------------
def transformer_copy_task(torch, device):
    nn = torch.nn
    V, D, PAD, BOS = 8, 16, 0, 1
    rng = np.random.default_rng(1311)
    src_np = rng.integers(2, V, (4, 6))
    src_np[1, 4:] = PAD
    src_np[3, 5:] = PAD
    src = torch.tensor(src_np, device=device)
    tgt_in = torch.cat([torch.full((4, 1), BOS, device=device), src[:, :-1]], 1)

    class Seq2Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, D, padding_idx=PAD)
            self.pos = nn.Parameter(torch.zeros(1, 8, D))
            self.tf = nn.Transformer(d_model=D, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                     dim_feedforward=32, dropout=0.0, batch_first=True)
            self.out = nn.Linear(D, V)

        def embed(self, x):
            return self.emb(x) * math.sqrt(D) + self.pos[:, :x.shape[1]]

        def forward(self, s, t):
            tgt_mask = nn.Transformer.generate_square_subsequent_mask(t.shape[1], device=s.device)
            h = self.tf(self.embed(s), self.embed(t), tgt_mask=tgt_mask, src_key_padding_mask=s == PAD,
                        tgt_key_padding_mask=t == PAD, memory_key_padding_mask=s == PAD, tgt_is_causal=True)
            return self.out(h)

    model = Seq2Seq().to(device)
    init_from_numpy(torch, model, 1312)
    opt = torch.optim.Adam(model.parameters(), lr=5e-3, betas=(0.9, 0.98), eps=1e-9)
    crit = nn.CrossEntropyLoss(ignore_index=PAD)
    losses = []
    for _ in range(6):
        logits = model(src, tgt_in)
        loss = crit(logits.reshape(-1, V), src.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        memory = model.tf.encoder(model.embed(src), src_key_padding_mask=src == PAD)
        ys = torch.full((4, 1), BOS, dtype=torch.long, device=device)
        for _ in range(5):
            mask = nn.Transformer.generate_square_subsequent_mask(ys.shape[1]).to(device)
            h = model.tf.decoder(model.embed(ys), memory, tgt_mask=mask, memory_key_padding_mask=src == PAD)
            nxt = model.out(h[:, -1]).argmax(-1, keepdim=True)
            ys = torch.cat([ys, nxt], dim=1)
    m = nn.Transformer.generate_square_subsequent_mask(3)
    return {"losses": _rounded(losses, 4), "decoded": ys.tolist(), "mask": m.tolist(), "mask_dtype": str(m.dtype),
            "memory_shape": list(memory.shape)}


# ---- nn.MultiheadAttention's options --------------------------------------------------------------------------
def multihead_attention_options(torch, device):
    nn = torch.nn
    rng = np.random.default_rng(1321)
    f = lambda *s: torch.tensor(rng.standard_normal(s), dtype=torch.float32, device=device)
    q, k, v = f(2, 3, 8), f(2, 5, 6), f(2, 5, 4)
    out = {}
    mha = nn.MultiheadAttention(8, 2, batch_first=True, kdim=6, vdim=4).to(device)
    init_from_numpy(torch, mha, 1322)
    kpm = torch.tensor([[False] * 5, [False, False, False, True, True]], device=device)
    o, w = mha(q, k, v, key_padding_mask=kpm, need_weights=True, average_attn_weights=False)
    out["per_head"] = [list(w.shape), _rounded(w[1, 0, 0]), _rounded(o[1, 2, :4])]
    o2, w2 = mha(q, k, v, key_padding_mask=kpm)
    out["averaged"] = [list(w2.shape), bool(torch.allclose(w2, w.mean(1), atol=1e-6))]
    float_kpm = torch.zeros(2, 5, device=device).masked_fill(kpm, float("-inf"))
    o3, _ = mha(q, k, v, key_padding_mask=float_kpm)
    out["float_mask_same"] = bool(torch.allclose(o3, o2, atol=1e-6))
    o4, w4 = mha(q, k, v, need_weights=False)
    out["no_weights"] = [w4 is None, list(o4.shape)]

    self_attn = nn.MultiheadAttention(8, 4, add_bias_kv=True, add_zero_attn=True).to(device)  # (L, N, E)
    init_from_numpy(torch, self_attn, 1323)
    x = f(4, 2, 8)
    mask3d = torch.zeros(2 * 4, 4, 4, dtype=torch.bool, device=device)
    mask3d[:, :, -1] = True
    o5, w5 = self_attn(x, x, x, attn_mask=mask3d)
    out["bias_kv"] = [list(w5.shape), _rounded(w5[0, 0]), _rounded(o5[0, 0, :4])]
    causal = torch.triu(torch.ones(4, 4, dtype=torch.bool, device=device), diagonal=1)
    o6, w6 = self_attn(x, x, x, attn_mask=causal, is_causal=True)
    out["causal_upper_zero"] = float(w6[:, 0, 1:4].abs().sum())
    o6.sum().backward()
    out["grads"] = [round(self_attn.bias_k.grad.abs().sum().item(), 4),
                    round(self_attn.in_proj_weight.grad.norm().item(), 4)]
    out["params"] = sorted(n for n, _ in self_attn.named_parameters())
    out["sep_params"] = sorted(n for n, _ in mha.named_parameters())
    return out


# ---- BERT-style MLM masking and a small encoder trained with label smoothing ---------------------------------
def bert_mlm_masking(torch, device):
    nn = torch.nn
    V, MASK, PAD, D = 20, 3, 0, 16
    rng = np.random.default_rng(1331)
    ids = torch.tensor(rng.integers(4, V, (6, 10)), device=device)
    ids[4, 7:] = PAD
    u = torch.tensor(rng.random((3, 6, 10)), dtype=torch.float32, device=device)
    special = ids == PAD
    chosen = (u[0] < 0.3) & ~special
    labels = ids.masked_fill(~chosen, -100)
    inputs = ids.clone()
    to_mask = chosen & (u[1] < 0.8)
    inputs[to_mask] = MASK
    to_random = chosen & ~to_mask & (u[2] < 0.5)
    random_words = torch.tensor(rng.integers(4, V, (6, 10)), device=device)
    inputs = torch.where(to_random, random_words, inputs)

    # the library's own bernoulli draws: only their shape, dtype and range are comparable
    probs = torch.full(ids.shape, 0.15, device=device)
    drawn = torch.bernoulli(probs)
    layer = nn.TransformerEncoderLayer(D, 2, 32, dropout=0.0, activation="gelu", batch_first=True,
                                       norm_first=True)
    encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(D), enable_nested_tensor=False).to(device)
    emb = nn.Embedding(V, D, padding_idx=PAD).to(device)
    head = nn.Linear(D, V).to(device)
    head.weight = emb.weight  # tied input/output embeddings
    for i, m in enumerate([encoder, emb]):
        init_from_numpy(torch, m, 1332 + i)
    nn.init.zeros_(head.bias)
    params = list(encoder.parameters()) + list(emb.parameters()) + [head.bias]
    opt = torch.optim.AdamW(params, lr=2e-3, weight_decay=0.01)
    crit = nn.CrossEntropyLoss(ignore_index=-100, label_smoothing=0.1)
    losses = []
    for _ in range(5):
        h = encoder(emb(inputs), src_key_padding_mask=ids == PAD)
        logits = head(h)
        loss = crit(logits.view(-1, V), labels.view(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        pred = logits.argmax(-1)
        acc = (pred[chosen] == ids[chosen]).float().mean()
    none = crit(logits.view(-1, V), torch.full((60,), -100, device=device))
    return {"n_chosen": int(chosen.sum()), "n_mask": int((inputs == MASK).sum()), "losses": _rounded(losses, 4),
            "acc": round(acc.item(), 4), "tied": head.weight is emb.weight,
            "drawn": [drawn.dtype == probs.dtype, list(drawn.shape), sorted(set(drawn.flatten().tolist())) in
                      ([0.0], [1.0], [0.0, 1.0])], "all_ignored": str(none.item())}


# ---- T5 relative position buckets as an additive attention bias ---------------------------------------------
def t5_relative_position_bias(torch, device):
    nn, F = torch.nn, torch.nn.functional

    def relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
        relative_buckets = 0
        if bidirectional:
            num_buckets //= 2
            relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        else:
            relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        rel_if_large = max_exact + (
            torch.log(relative_position.float() / max_exact) / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)).to(torch.long)
        rel_if_large = torch.min(rel_if_large, torch.full_like(rel_if_large, num_buckets - 1))
        relative_buckets += torch.where(is_small, relative_position, rel_if_large)
        return relative_buckets

    q_len = k_len = 40
    context = torch.arange(q_len, dtype=torch.long, device=device)[:, None]
    memory = torch.arange(k_len, dtype=torch.long, device=device)[None, :]
    rel = memory - context
    buckets = relative_position_bucket(rel, num_buckets=16, max_distance=32)
    causal_buckets = relative_position_bucket(rel, bidirectional=False, num_buckets=16, max_distance=32)
    bias_table = nn.Embedding(16, 2).to(device)
    init_from_numpy(torch, bias_table, 1341)
    bias = bias_table(buckets).permute(2, 0, 1).unsqueeze(0)  # (1, heads, q, k)
    rng = np.random.default_rng(1342)
    q, k, v = (torch.tensor(rng.standard_normal((1, 2, q_len, 4)), dtype=torch.float32, device=device)
               for _ in range(3))
    scores = q @ k.transpose(-1, -2) + bias  # T5 does not scale by sqrt(d)
    manual = scores.softmax(-1) @ v
    sdpa = F.scaled_dot_product_attention(q, k, v, attn_mask=bias, scale=1.0)
    return {"row0": buckets[0, :20].tolist(), "row_last": buckets[-1, ::5].tolist(),
            "causal": causal_buckets[-1, ::4].tolist(), "dtype": str(buckets.dtype),
            "n_unique": int(torch.unique(buckets).numel()), "sdpa_match": bool(torch.allclose(manual, sdpa, atol=1e-5)),
            "out": _rounded(manual[0, 1, 3])}


# ---- decoding: temperature, top-k, top-p (nucleus) filtering and multinomial sampling -------------------------
def sampling_filters(torch, device):
    F = torch.nn.functional
    rng = np.random.default_rng(1351)
    logits = torch.tensor(rng.standard_normal((3, 12)) * 2, dtype=torch.float32, device=device)

    def top_k_filter(lg, k):
        v, _ = torch.topk(lg, k)
        return lg.masked_fill(lg < v[:, [-1]], float("-inf"))

    def top_p_filter(lg, p):
        sorted_logits, sorted_idx = torch.sort(lg, descending=True)
        cum = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
        remove = cum > p
        remove[..., 1:] = remove[..., :-1].clone()
        remove[..., 0] = False
        remove = remove.scatter(1, sorted_idx, remove)
        return lg.masked_fill(remove, -float("inf"))

    greedy = logits.argmax(-1)
    tk = F.softmax(top_k_filter(logits / 0.7, 3), dim=-1)
    tp = F.softmax(top_p_filter(logits, 0.8), dim=-1)
    gen = torch.Generator(device=device).manual_seed(0)
    draws = torch.multinomial(tk, num_samples=50, replacement=True, generator=gen)
    allowed = tk > 0
    draws_ok = bool(allowed.gather(1, draws).all())
    no_repl = torch.multinomial(tk, 3, replacement=False)
    one_hot = torch.multinomial(F.one_hot(greedy, 12).float(), 1).squeeze(1)
    # repetition penalty as in HF: divide positive logits, multiply negative ones for tokens already seen
    seen = torch.tensor([[0, 1], [2, 3], [4, 4]], device=device)
    picked = torch.gather(logits, 1, seen)
    picked = torch.where(picked < 0, picked * 1.3, picked / 1.3)
    penalised = logits.scatter(1, seen, picked)
    return {"greedy": greedy.tolist(), "tk_nonzero": allowed.sum(1).tolist(), "tk": _rounded(tk[0], 5),
            "tp_nonzero": (tp > 0).sum(1).tolist(), "tp": _rounded(tp[1], 5), "draws_ok": draws_ok,
            "draws": [list(draws.shape), str(draws.dtype)], "no_repl_distinct": sorted(no_repl[0].tolist()) ==
            sorted(set(no_repl[0].tolist())) and len(set(no_repl[0].tolist())) == 3,
            "one_hot": one_hot.tolist(), "penalised": _rounded(penalised[2, :6])}


# ---- rotary position embeddings with complex numbers (LLaMA style) -------------------------------------------
def rope_complex(torch, device):
    def precompute_freqs_cis(dim, end, theta=10000.0):
        freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
        t = torch.arange(end, device=freqs.device, dtype=torch.float32)
        freqs = torch.outer(t, freqs)
        return torch.polar(torch.ones_like(freqs), freqs)

    def reshape_for_broadcast(freqs_cis, x):
        shape = [d if i == 1 or i == x.ndim - 1 else 1 for i, d in enumerate(x.shape)]
        return freqs_cis.view(*shape)

    def apply_rotary_emb(xq, xk, freqs_cis):
        xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
        xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
        freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
        xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
        xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
        return xq_out.type_as(xq), xk_out.type_as(xk)

    def rotate_half(x):
        x1, x2 = x[..., ::2], x[..., 1::2]
        return torch.stack((-x2, x1), dim=-1).flatten(-2)

    rng = np.random.default_rng(1361)
    B, T, H, Dh = 2, 6, 2, 8
    xq = torch.tensor(rng.standard_normal((B, T, H, Dh)), dtype=torch.float32, device=device, requires_grad=True)
    xk = torch.tensor(rng.standard_normal((B, T, H, Dh)), dtype=torch.float32, device=device)
    freqs_cis = precompute_freqs_cis(Dh, T).to(device)
    q_rot, k_rot = apply_rotary_emb(xq, xk, freqs_cis)
    angles = torch.angle(freqs_cis)
    cos = torch.repeat_interleave(angles.cos(), 2, dim=-1)[None, :, None, :]
    sin = torch.repeat_interleave(angles.sin(), 2, dim=-1)[None, :, None, :]
    q_real = xq * cos + rotate_half(xq) * sin
    scores = torch.einsum("bthd,bshd->bhts", q_rot, k_rot)
    # relative property: the score between positions depends on their offset only
    q1 = apply_rotary_emb(xq[:, :1].expand(B, T, H, Dh), xk, freqs_cis)[0]
    scores.sum().backward()
    return {"dtype": str(freqs_cis.dtype), "shape": list(freqs_cis.shape), "abs": round(freqs_cis.abs().mean().item(), 6),
            "angle_last": _rounded(angles[-1]), "same_as_real": bool(torch.allclose(q_rot, q_real, atol=1e-5)),
            "norm_kept": bool(torch.allclose(q_rot.norm(dim=-1), xq.norm(dim=-1), atol=1e-5)),
            "scores": _rounded(scores[0, 0, 2, :4], 4), "grad": round(xq.grad.abs().sum().item(), 4),
            "q1": _rounded(q1[0, 3, 0, :4], 5), "real_shape": list(torch.view_as_real(freqs_cis).shape)}


# ---- the Annotated Transformer's label smoothing (KLDivLoss) under a Noam schedule ----------------------------
def annotated_label_smoothing_noam(torch, device):
    nn = torch.nn

    class LabelSmoothing(nn.Module):
        def __init__(self, size, padding_idx, smoothing=0.0):
            super().__init__()
            self.criterion = nn.KLDivLoss(reduction="sum")
            self.padding_idx, self.confidence, self.smoothing, self.size = padding_idx, 1.0 - smoothing, smoothing, size
            self.true_dist = None

        def forward(self, x, target):
            true_dist = x.data.clone()
            true_dist.fill_(self.smoothing / (self.size - 2))
            true_dist.scatter_(1, target.data.unsqueeze(1), self.confidence)
            true_dist[:, self.padding_idx] = 0
            mask = torch.nonzero(target.data == self.padding_idx)
            if mask.dim() > 0 and mask.numel() > 0:
                true_dist.index_fill_(0, mask.squeeze(), 0.0)
            self.true_dist = true_dist
            return self.criterion(x, true_dist.clone().detach())

    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, max_len=50):
            super().__init__()
            pe = torch.zeros(max_len, d_model)
            position = torch.arange(0, max_len).unsqueeze(1)
            div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
            pe[:, 0::2] = torch.sin(position * div_term)
            pe[:, 1::2] = torch.cos(position * div_term)
            self.register_buffer("pe", pe.unsqueeze(0))

        def forward(self, x):
            return x + self.pe[:, : x.size(1)].requires_grad_(False)

    def rate(step, model_size, factor, warmup):
        if step == 0:
            step = 1
        return factor * (model_size ** (-0.5) * min(step ** (-0.5), step * warmup ** (-1.5)))

    V, D = 11, 16
    model = nn.Sequential(nn.Embedding(V, D), PositionalEncoding(D), nn.Linear(D, V), nn.LogSoftmax(dim=-1))
    model.to(device)
    init_from_numpy(torch, model, 1371)
    crit = LabelSmoothing(V, padding_idx=0, smoothing=0.1)
    opt = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lambda step: rate(step, D, 1.0, 4))
    rng = np.random.default_rng(1372)
    data = torch.tensor(rng.integers(1, V, (4, 7)), device=device)
    data[:, -2:] = 0
    losses, lrs = [], []
    for _ in range(6):
        out = model(data)
        loss = crit(out.view(-1, V), data.view(-1)) / (data != 0).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
        lrs.append(sched.get_last_lr()[0])
    return {"losses": _rounded(losses, 4), "lrs": _rounded(lrs, 6), "true_dist": _rounded(crit.true_dist[0], 4),
            "zero_rows": int((crit.true_dist.sum(1) == 0).sum()), "pe_buffers": [n for n, _ in model.named_buffers()],
            "pe": _rounded(model[1].pe[0, 3, :4])}


# ---- an adaptive-softmax word language model over a frequency-sorted vocabulary -----------------------------
def adaptive_softmax_lm(torch, device):
    nn = torch.nn
    words = " ".join(_CORPUS * 3).split()
    counts = collections.Counter(words)
    itos = [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    stoi = {w: i for i, w in enumerate(itos)}
    stream = torch.tensor([stoi[w] for w in words], device=device)
    n_vocab = len(itos)
    bptt = 5
    n_batches = (stream.numel() - 1) // bptt
    inputs = stream[: n_batches * bptt].view(n_batches, bptt)
    targets = stream[1: n_batches * bptt + 1].view(n_batches, bptt)

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(n_vocab, 12)
            self.rnn = nn.GRU(12, 16, batch_first=True)
            self.asm = nn.AdaptiveLogSoftmaxWithLoss(16, n_vocab, cutoffs=[4, 10], div_value=2.0)

        def forward(self, x, y, h=None):
            out, h = self.rnn(self.emb(x), h)
            return self.asm(out.reshape(-1, 16), y.reshape(-1)), h

    lm = LM().to(device)
    init_from_numpy(torch, lm, 1381)
    opt = torch.optim.Adagrad(lm.parameters(), lr=0.1)
    losses = []
    for epoch in range(3):
        h = None
        for i in range(0, n_batches, 4):
            res, h = lm(inputs[i:i + 4], targets[i:i + 4], None if h is None or h.shape[1] != inputs[i:i + 4].shape[0]
                        else h.detach())
            opt.zero_grad()
            res.loss.backward()
            opt.step()
        losses.append(res.loss.item())
    with torch.no_grad():
        hid, _ = lm.rnn(lm.emb(inputs[:2]))
        flat = hid.reshape(-1, 16)
        logp = lm.asm.log_prob(flat)
        pred = lm.asm.predict(flat)
    return {"vocab": n_vocab, "losses": _rounded(losses, 4), "logp_sum": _rounded(logp.exp().sum(1)[:3], 4),
            "pred_same": bool((pred == logp.argmax(1)).all()), "output_shape": list(res.output.shape),
            "head": list(lm.asm.head.weight.shape), "tail0": [list(p.shape) for p in lm.asm.tail[0].parameters()]}


# ---- a sentence encoder trained, then run for inference on a padded batch (PyTorch's nested-tensor path) -------
def sentence_encoder_inference(torch, device):
    nn, F = torch.nn, torch.nn.functional
    rules, table = _train_bpe(_CORPUS, 8)
    seqs = [torch.tensor(_encode(t, rules, table)) for t in _CORPUS]
    ids = nn.utils.rnn.pad_sequence(seqs, batch_first=True).to(device)
    pad = ids == 0
    labels = torch.tensor([int("dog" in t) for t in _CORPUS], device=device)

    class Encoder(nn.Module):
        def __init__(self, vocab, d=16):
            super().__init__()
            self.emb = nn.Embedding(vocab, d, padding_idx=0)
            layer = nn.TransformerEncoderLayer(d, 2, 32, dropout=0.0, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(d))
            self.cls = nn.Linear(d, 2)

        def forward(self, x, padding):
            h = self.encoder(self.emb(x), src_key_padding_mask=padding)
            return self.cls(h.mean(dim=1)), h  # averages the padded positions too, as many scripts do

    model = Encoder(len(table) + 2).to(device)
    init_from_numpy(torch, model, 1391)
    with torch.no_grad():
        model.encoder.norm.bias.fill_(0.1)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(4):
        loss = F.cross_entropy(model(ids, pad)[0], labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        logits, h = model(ids, pad)
        float_pad = torch.zeros(pad.shape, device=device).masked_fill(pad, float("-inf"))
        logits_float = model(ids, float_pad)[0]
        shuffled = pad.roll(1, dims=1)  # padding no longer at the end: PyTorch keeps the padded batch
        logits_shuffled = model(ids, shuffled)[0]
    train_logits = model.train()(ids, pad)[0]
    return {"loss": round(loss.item(), 4), "nested": model.encoder.use_nested_tensor,
            "eval": _rounded(logits.flatten(), 4), "float_mask": _rounded(logits_float.flatten(), 4),
            "padded_rows": _rounded(h[pad][:2].flatten(), 4), "shuffled": _rounded(logits_shuffled.flatten(), 4),
            "train": _rounded(train_logits.detach().flatten(), 4)}


# ---- corpus BLEU from n-gram counts (unfold + unique over rows), with a brevity penalty ---------------------
def bleu_from_ngrams(torch, device):
    def ngram_counts(seq, n):
        if seq.numel() < n:
            return {}
        grams, counts = torch.unique(seq.unfold(0, n, 1), dim=0, return_counts=True)
        return {tuple(g.tolist()): int(c) for g, c in zip(grams, counts)}

    def corpus_bleu(hyps, refs, max_n=4):
        clipped = torch.zeros(max_n, dtype=torch.float64)
        totals = torch.zeros(max_n, dtype=torch.float64)
        hyp_len = ref_len = 0
        for h, r in zip(hyps, refs):
            hyp_len += h.numel()
            ref_len += r.numel()
            for n in range(1, max_n + 1):
                hc, rc = ngram_counts(h, n), ngram_counts(r, n)
                clipped[n - 1] += sum(min(c, rc.get(g, 0)) for g, c in hc.items())
                totals[n - 1] += max(h.numel() - n + 1, 0)
        precisions = (clipped + 1) / (totals + 1)  # add-one smoothing
        log_p = torch.log(precisions).mean()
        bp = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / max(hyp_len, 1))
        return bp * torch.exp(log_p).item(), precisions

    rules, table = _train_bpe(_CORPUS, 10)
    refs = [torch.tensor(_encode(t, rules, table), device=device) for t in _CORPUS]
    hyps = [torch.tensor(_encode(t.replace("cat", "dog").replace("log", "mat"), rules, table), device=device)
            for t in _CORPUS]
    score, precisions = corpus_bleu(hyps, refs)
    perfect, _ = corpus_bleu(refs, refs)
    short, _ = corpus_bleu([r[:3] for r in refs], refs)
    bigrams = ngram_counts(refs[0], 2)
    return {"bleu": round(score, 6), "precisions": _rounded(precisions, 6), "perfect": round(perfect, 6),
            "short": round(short, 6), "n_bigrams": len(bigrams), "top_bigram": max(bigrams.values()),
            "unfold_shape": list(refs[0].unfold(0, 3, 1).shape)}


# ---- GloVe: a co-occurrence matrix accumulated with index_put_, weighted least squares under Adagrad -------
def glove_cooccurrence(torch, device):
    nn = torch.nn
    words = " ".join(_CORPUS).split()
    vocab = sorted(set(words))
    stoi = {w: i for i, w in enumerate(vocab)}
    ids = torch.tensor([stoi[w] for w in words], device=device)
    V, window = len(vocab), 2
    X = torch.zeros(V, V, device=device)
    for off in range(1, window + 1):
        left, right = ids[:-off], ids[off:]
        weight = torch.full((left.numel(),), 1.0 / off, device=device)
        X.index_put_((left, right), weight, accumulate=True)
        X.index_put_((right, left), weight, accumulate=True)
    i, j = torch.nonzero(X, as_tuple=True)
    x_ij = X[i, j]
    f = torch.clamp((x_ij / 3.0) ** 0.75, max=1.0)
    log_x = torch.log(x_ij)

    class GloVe(nn.Module):
        def __init__(self):
            super().__init__()
            self.w, self.c = nn.Embedding(V, 8), nn.Embedding(V, 8)
            self.bw, self.bc = nn.Embedding(V, 1), nn.Embedding(V, 1)

        def forward(self, a, b):
            dot = (self.w(a) * self.c(b)).sum(-1)
            return dot + self.bw(a).squeeze(-1) + self.bc(b).squeeze(-1)

    model = GloVe().to(device)
    init_from_numpy(torch, model, 1401)
    opt = torch.optim.Adagrad(model.parameters(), lr=0.05, initial_accumulator_value=0.1)
    losses = []
    for _ in range(10):
        loss = (f * (model(i, j) - log_x) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    vectors = model.w.weight + model.c.weight
    unit = nn.functional.normalize(vectors, dim=1)
    sims = unit @ unit[stoi["cat"]]
    nearest = sims.topk(3).indices.tolist()
    return {"nnz": int(i.numel()), "X_sum": round(X.sum().item(), 4), "symmetric": bool(torch.equal(X, X.T)),
            "losses": _rounded(losses, 3), "nearest": [vocab[k] for k in nearest],
            "cos": round(nn.functional.cosine_similarity(vectors[stoi["cat"]], vectors[stoi["dog"]], dim=0).item(), 4)}


# ---- speculative decoding: accept/reject draft tokens against a target model, resample from the residual ---
def speculative_decoding(torch, device):
    nn, F = torch.nn, torch.nn.functional
    V, k = 10, 4
    rng = np.random.default_rng(1411)

    def make_lm(seed):
        lm = nn.Sequential(nn.Embedding(V, 12), nn.Flatten(), nn.Linear(12 * 3, 32), nn.GELU(approximate="tanh"),
                           nn.Linear(32, V)).to(device)
        init_from_numpy(torch, lm, seed)
        return lm.eval()

    target, draft = make_lm(1412), make_lm(1413)
    context = torch.tensor([[1, 2, 3]], device=device)
    uniforms = torch.tensor(rng.random(64), dtype=torch.float32, device=device)
    u_iter = iter(uniforms)

    def sample(probs):  # inverse-CDF sampling with NumPy's uniforms, so both libraries draw the same tokens
        cdf = probs.cumsum(-1)
        return torch.searchsorted(cdf, next(u_iter).view(1, 1) * cdf[:, -1:]).clamp(max=V - 1)

    accepted_total, steps, out = 0, 0, context.clone()
    with torch.no_grad():
        while out.shape[1] < 15:
            steps += 1
            drafted, q_probs, ctx = [], [], out[:, -3:]
            for _ in range(k):
                q = F.softmax(draft(ctx) / 0.8, dim=-1)
                tok = sample(q)
                drafted.append(tok)
                q_probs.append(q)
                ctx = torch.cat([ctx[:, 1:], tok], 1)
            ctx = out[:, -3:]
            n_ok = 0
            for tok, q in zip(drafted, q_probs):
                p = F.softmax(target(ctx) / 0.8, dim=-1)
                ratio = (p.gather(1, tok) / q.gather(1, tok)).clamp(max=1.0)
                if next(u_iter) < ratio.squeeze():
                    out = torch.cat([out, tok], 1)
                    ctx = torch.cat([ctx[:, 1:], tok], 1)
                    n_ok += 1
                else:
                    residual = torch.clamp(p - q, min=0)
                    residual = residual / residual.sum(-1, keepdim=True)
                    out = torch.cat([out, sample(residual)], 1)
                    break
            accepted_total += n_ok
    return {"tokens": out[0].tolist(), "accepted": accepted_total, "steps": steps,
            "last_q": _rounded(q_probs[-1][0], 5)}


# ---- ALiBi biases as a per-head float src_mask of nn.TransformerEncoderLayer, trained then run for inference ---
def alibi_encoder_inference(torch, device):
    nn, F = torch.nn, torch.nn.functional
    heads, d, T = 2, 8, 6

    def alibi(n_heads, length):
        slopes = torch.tensor([2 ** (-8 * (h + 1) / n_heads) for h in range(n_heads)], device=device)
        pos = torch.arange(length, device=device)
        distance = (pos[None, :] - pos[:, None]).abs().neg().float()
        causal = torch.triu(torch.full((length, length), float("-inf"), device=device), diagonal=1)
        return slopes[:, None, None] * distance + causal  # (heads, T, T)

    rng = np.random.default_rng(1421)
    ids = torch.tensor(rng.integers(1, 10, (3, T)), device=device)
    ids[2, 4:] = 0
    emb = nn.Embedding(10, d, padding_idx=0).to(device)
    layer = nn.TransformerEncoderLayer(d, heads, 16, dropout=0.0, batch_first=True).to(device)
    head = nn.Linear(d, 10).to(device)
    for i, m in enumerate([emb, layer, head]):
        init_from_numpy(torch, m, 1422 + i)
    bias = alibi(heads, T).repeat(3, 1, 1)  # (N * heads, T, T)
    pad = ids == 0
    opt = torch.optim.Adam(list(emb.parameters()) + list(layer.parameters()) + list(head.parameters()), lr=1e-2)
    for _ in range(3):
        logits = head(layer(emb(ids), src_mask=bias, src_key_padding_mask=pad))
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, 10), ids[:, 1:].reshape(-1), ignore_index=0)
        opt.zero_grad()
        loss.backward()
        opt.step()
    train_out = layer(emb(ids), src_mask=bias).detach()
    layer.eval()
    with torch.no_grad():
        eval_bias = layer(emb(ids), src_mask=bias)
        eval_causal = layer(emb(ids), src_mask=nn.Transformer.generate_square_subsequent_mask(T, device=device))
        left_pad = torch.tensor([[True, True, False, False, False, False]] * 3, device=device)
        eval_left = layer(emb(ids), src_mask=torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), 1),
                          src_key_padding_mask=left_pad)
    return {"loss": round(loss.item(), 4), "train": _rounded(train_out[0, 2], 4), "eval_bias": _rounded(eval_bias[0, 2], 4),
            "bias_as_mask": round((eval_bias - train_out).abs().max().item(), 3),
            "causal": _rounded(eval_causal[1, 3], 4),
            "left_pad_nan": torch.isnan(eval_left).any(-1).tolist()}


PROGRAMS = [bpe_embedding_classifier, transformer_copy_task, multihead_attention_options, bert_mlm_masking,
            t5_relative_position_bias, sampling_filters, rope_complex, annotated_label_smoothing_noam,
            adaptive_softmax_lm, sentence_encoder_inference, bleu_from_ngrams, glove_cooccurrence, speculative_decoding,
            alibi_encoder_inference]
NEEDS_CPP = {}
