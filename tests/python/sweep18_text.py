"""Sweep 18 programs, text from scratch: byte-pair-encoding merges learned over id tensors, n-gram language models
with unique(return_inverse, return_counts) and bincount, a word2vec skip-gram model with negative sampling, a
character-CNN classifier, perplexity evaluation of a small LSTM language model (sliding windows, ignore_index) and
TF-IDF retrieval with sparse tensors."""
import collections
import math

import numpy as np

from sweep15_common import cases, plain
from test_programs_sweeputil import uniform_fill as _fill

_TEXT = ("the cat sat on the mat . the dog sat on the log . a cat and a dog met on the mat . "
         "the log was on the mat and the cat sat on the log .")


def _vocab(text):
    words = text.split()
    vocab = sorted(set(words))
    return words, vocab, {w: i for i, w in enumerate(vocab)}


# ---- byte-pair encoding: count adjacent pairs by pair codes, merge the most frequent, repeat -------------------------
def bpe_merges(torch, device):
    ids = torch.tensor(list(_TEXT.encode("utf-8")), dtype=torch.long, device=device)
    merges = []
    next_id = 256
    lengths = [ids.numel()]
    for _ in range(6):
        pairs = torch.stack([ids[:-1], ids[1:]], 1)
        uniq, counts = torch.unique(pairs, dim=0, return_counts=True)
        best = int(torch.argmax(counts))  # ties: the smallest pair, as unique sorts
        a, b = uniq[best].tolist()
        match = (ids[:-1] == a) & (ids[1:] == b)
        # drop overlapping matches (a a a): keep a match only if the previous position did not match
        keep = match.clone()
        for i in range(1, keep.numel()):
            if keep[i] and keep[i - 1]:
                keep[i] = False
        pos = keep.nonzero().squeeze(1)
        ids = ids.clone()
        ids[pos] = next_id
        drop = torch.ones_like(ids, dtype=torch.bool)
        drop[pos + 1] = False
        ids = ids[drop]
        merges.append([a, b, int(counts[best]), next_id])
        next_id += 1
        lengths.append(ids.numel())
    code = ids[:-1] * 1000 + ids[1:]
    hist = torch.bincount(code - code.min())
    return {"merges": merges, "lengths": lengths, "head": ids[:20].tolist(), "hist_len": hist.numel(),
            "hist_max": int(hist.max()), "uniq_tokens": torch.unique(ids).numel()}


# ---- n-gram models: bigram/trigram counts by unique(return_inverse, return_counts), smoothing, perplexity ----------
def ngram_models(torch, device):
    words, vocab, index = _vocab(_TEXT)
    ids = torch.tensor([index[w] for w in words], device=device)
    V = len(vocab)
    uni = torch.bincount(ids, minlength=V).float()
    bigrams = torch.stack([ids[:-1], ids[1:]], 1)
    uniq, inverse, counts = torch.unique(bigrams, dim=0, return_inverse=True, return_counts=True)
    table = torch.zeros(V, V, device=device)
    table.index_put_((bigrams[:, 0], bigrams[:, 1]), torch.ones(len(bigrams), device=device), accumulate=True)
    probs = (table + 0.1) / (table + 0.1).sum(1, keepdim=True)
    nll = -torch.log(probs[ids[:-1], ids[1:]])
    ppl = torch.exp(nll.mean())
    tri_code = ids[:-2] * V * V + ids[1:-1] * V + ids[2:]
    tri_vals, tri_inv, tri_counts = torch.unique(tri_code, sorted=True, return_inverse=True, return_counts=True)
    flat_counts = torch.bincount(tri_inv, minlength=len(tri_vals))
    # greedy generation from the bigram table, ties broken by argmax's first index
    cur = index["the"]
    generated = []
    for _ in range(6):
        cur = int(probs[cur].argmax())
        generated.append(vocab[cur])
    kn_cont = (table > 0).sum(0).float()
    kn = kn_cont / kn_cont.sum()
    uc, ui = torch.unique_consecutive(ids, return_inverse=True)
    return {"uni": plain(torch, uni), "n_bigrams": len(uniq), "inverse": inverse[:10].tolist(),
            "counts_max": int(counts.max()), "ppl": ppl.item(), "nll": plain(torch, nll[:6]),
            "tri": [len(tri_vals), tri_counts.max().item(), bool(torch.equal(flat_counts, tri_counts))],
            "generated": generated, "kn": plain(torch, kn), "consecutive": [uc.numel(), ui[-3:].tolist()],
            "dtypes": [str(inverse.dtype), str(counts.dtype), str(uni.dtype)],
            "errors": cases(torch, {"bincount_neg": lambda: torch.bincount(ids - 1),
                                    "bincount_2d": lambda: torch.bincount(bigrams),
                                    "bincount_float": lambda: torch.bincount(ids.float()),
                                    "weights_len": lambda: torch.bincount(ids, weights=torch.ones(3, device=device))})}


# ---- word2vec: skip-gram pairs by unfold, negatives from a unigram^0.75 table, logsigmoid loss, nearest neighbours ---
def word2vec_sgns(torch, device):
    nn = torch.nn
    F = nn.functional
    words, vocab, index = _vocab(_TEXT)
    V, D, window, k = len(vocab), 8, 2, 3
    ids = torch.tensor([index[w] for w in words], device=device)
    wins = F.pad(ids, (window, window), value=-1).unfold(0, 2 * window + 1, 1)
    centers = wins[:, window:window + 1].expand(-1, 2 * window)
    contexts = torch.cat([wins[:, :window], wins[:, window + 1:]], 1)
    valid = contexts >= 0
    pairs = torch.stack([centers[valid], contexts[valid]], 1)
    freq = torch.bincount(ids, minlength=V).float() ** 0.75
    noise = freq / freq.sum()
    neg = torch.tensor(np.random.default_rng(1970).choice(V, size=(len(pairs), k), p=noise.cpu().double().numpy()
                                                          / noise.cpu().double().sum().item()), device=device)
    drawn = torch.multinomial(noise, 50, replacement=True)
    drawn2 = torch.multinomial(noise.expand(3, V), 4, replacement=False)
    emb_in = _fill(torch, nn.Embedding(V, D), 1971, 0.5).to(device)
    emb_out = _fill(torch, nn.Embedding(V, D), 1972, 0.5).to(device)
    opt = torch.optim.Adam(list(emb_in.parameters()) + list(emb_out.parameters()), lr=0.02)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        c = emb_in(pairs[:, 0])
        pos = (c * emb_out(pairs[:, 1])).sum(-1)
        negs = torch.bmm(emb_out(neg), c.unsqueeze(2)).squeeze(2)
        loss = -(F.logsigmoid(pos) + F.logsigmoid(-negs).sum(1)).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        normed = F.normalize(emb_in.weight, dim=1)
        sims = normed @ normed.T
        sims.fill_diagonal_(-2)
        top = sims.topk(2, dim=1)
        cos = F.cosine_similarity(emb_in.weight[index["cat"]], emb_in.weight[index["dog"]], dim=0)
    return {"pairs": [list(pairs.shape), pairs[:6].tolist()], "losses": losses, "top": top.indices.tolist(),
            "cos": cos.item(), "drawn": [list(drawn.shape), str(drawn.dtype), bool((noise[drawn] > 0).all())],
            "drawn2": [list(drawn2.shape), all(len(set(r)) == 4 for r in drawn2.tolist())],
            "errors": cases(torch, {
                "too_many": lambda: sorted(torch.multinomial(torch.tensor([0.5, 0.5, 0.0]), 3).tolist()),
                "negative": lambda: torch.multinomial(torch.tensor([0.5, -0.1]), 1),
                "zero_sum": lambda: torch.multinomial(torch.zeros(3), 1),
                "three_d": lambda: torch.multinomial(torch.ones(2, 2, 2), 1),
                "int_probs": lambda: torch.multinomial(torch.ones(3, dtype=torch.long), 1),
            })}


# ---- a character CNN text classifier: padded char ids, Embedding(padding_idx), parallel Conv1d, max over time ------
def char_cnn_classifier(torch, device):
    nn = torch.nn
    F = nn.functional
    sentences = ["good movie", "bad plot", "great fun!", "awful acting", "loved it", "boring, slow", "superb", "meh"]
    labels = torch.tensor([1, 0, 1, 0, 1, 0, 1, 0], device=device)
    chars = sorted(set("".join(sentences)))
    cid = {c: i + 1 for i, c in enumerate(chars)}
    seqs = [torch.tensor([cid[c] for c in s]) for s in sentences]
    x = nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=0).to(device)
    lengths = torch.tensor([len(s) for s in sentences])

    class CharCNN(nn.Module):
        def __init__(self, n_chars):
            super().__init__()
            self.emb = nn.Embedding(n_chars + 1, 6, padding_idx=0)
            self.convs = nn.ModuleList(nn.Conv1d(6, 5, k, padding=k // 2) for k in (2, 3, 4))
            self.drop = nn.Dropout(0.3)
            self.fc = nn.Linear(15, 2)

        def forward(self, x):
            e = self.emb(x).transpose(1, 2)
            feats = [F.adaptive_max_pool1d(F.relu(c(e)), 1).squeeze(2) for c in self.convs]
            return self.fc(self.drop(torch.cat(feats, 1)))

    model = _fill(torch, CharCNN(len(chars)), 1980, 0.4).to(device)
    with torch.no_grad():
        model.emb.weight[0].zero_()
    opt = torch.optim.Adagrad(model.parameters(), lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)
    losses = []
    for _ in range(5):
        model.train()
        opt.zero_grad()
        model.drop.p = 0.0  # keep the comparison deterministic while exercising train mode
        loss = F.cross_entropy(model(x), labels, label_smoothing=0.1)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        logits = model(x)
    pad_grad = model.emb.weight.grad[0].abs().sum().item()
    return {"shape": list(x.shape), "lengths": lengths.tolist(), "losses": losses,
            "pred": logits.argmax(1).tolist(), "probs": plain(torch, F.softmax(logits, 1)[:, 1]), "pad_grad": pad_grad,
            "state": sorted(opt.state_dict()["state"][0].keys())}


# ---- perplexity of an LSTM language model: per-token losses with ignore_index, sliding windows with a stride --------
def lm_perplexity(torch, device):
    nn = torch.nn
    F = nn.functional
    words, vocab, index = _vocab(_TEXT)
    ids = torch.tensor([index[w] for w in words], device=device)
    V = len(vocab)

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, 8)
            self.rnn = nn.LSTM(8, 12, batch_first=True)
            self.out = nn.Linear(12, V)

        def forward(self, x, state=None):
            h, state = self.rnn(self.emb(x), state)
            return self.out(h), state

    model = _fill(torch, LM(), 1990, 0.3).to(device)
    model.eval()
    max_len, stride = 12, 6
    nll_sum, n_tokens, prev_end, windows = 0.0, 0, 0, []
    with torch.no_grad():
        for begin in range(0, ids.numel(), stride):
            end = min(begin + max_len, ids.numel())
            trg_len = end - prev_end
            inp = ids[begin:end].unsqueeze(0)
            target = inp.clone()
            target[:, :-trg_len] = -100
            logits, _ = model(inp)
            shift_logits = logits[:, :-1].reshape(-1, V)
            shift_t = target[:, 1:].reshape(-1)
            losses = F.cross_entropy(shift_logits, shift_t, ignore_index=-100, reduction="none")
            counted = (shift_t != -100).sum().item()
            nll_sum += losses.sum().item()
            n_tokens += counted
            windows.append([begin, end, counted])
            prev_end = end
            if end == ids.numel():
                break
        ppl = math.exp(nll_sum / n_tokens)
        # the whole sequence at once, and a batch of padded sequences with a mask
        logits, (h, c) = model(ids.unsqueeze(0))
        full = F.cross_entropy(logits[0, :-1], ids[1:])
        batch = nn.utils.rnn.pad_sequence([ids[:10], ids[10:16], ids[16:30]], batch_first=True, padding_value=-1)
        mask = batch != -1
        logits_b, _ = model(batch.clamp_min(0))
        tgt = batch[:, 1:].masked_fill(~mask[:, 1:], -100)
        per_seq = F.cross_entropy(logits_b[:, :-1].transpose(1, 2), tgt, ignore_index=-100, reduction="none")
        seq_ppl = torch.exp(per_seq.sum(1) / mask[:, 1:].sum(1))
        smoothed = F.cross_entropy(logits[0, :-1], ids[1:], label_smoothing=0.2)
        all_ignored = F.cross_entropy(logits[0, :3], torch.full((3,), -100, device=device))
    bits = full.item() / math.log(2)
    return {"windows": windows, "ppl": ppl, "full": full.item(), "bits": bits, "seq_ppl": plain(torch, seq_ppl),
            "smoothed": smoothed.item(), "all_ignored": plain(torch, all_ignored), "state": [list(h.shape),
                                                                                           list(c.shape)]}


# ---- TF-IDF over sparse COO document-term counts, cosine retrieval with topk -----------------------------------------
def tfidf_retrieval(torch, device):
    docs = ["the cat sat on the mat", "the dog sat on the log", "cats and dogs", "a log on a mat", "the the the"]
    counter = collections.Counter(w for d in docs for w in d.split())
    vocab = sorted(counter)
    index = {w: i for i, w in enumerate(vocab)}
    rows, cols = [], []
    for r, d in enumerate(docs):
        for w in d.split():
            rows.append(r)
            cols.append(index[w])
    counts = torch.sparse_coo_tensor(torch.tensor([rows, cols]), torch.ones(len(rows)), (len(docs), len(vocab)))
    counts = counts.coalesce().to(device)
    dense = counts.to_dense()
    tf = dense / dense.sum(1, keepdim=True)
    df = (dense > 0).sum(0)
    idf = torch.log((1 + len(docs)) / (1 + df.float())) + 1
    tfidf = torch.nn.functional.normalize(tf * idf, p=2, dim=1)
    query = torch.zeros(len(vocab), device=device)
    for w in "cat on mat".split():
        query[index[w]] += 1
    query = torch.nn.functional.normalize(query * idf, dim=0)
    scores = tfidf @ query
    top = torch.topk(scores, 3)
    sparse_scores = torch.sparse.mm(counts, (idf * query).unsqueeze(1)).squeeze(1)
    sim = tfidf @ tfidf.T
    vals = counts.values()
    return {"nnz": counts._nnz(), "df": df.tolist(), "idf": plain(torch, idf), "scores": plain(torch, scores),
            "top": top.indices.tolist(), "sparse_scores": plain(torch, sparse_scores), "sim": plain(torch, sim),
            "vals": [str(vals.dtype), int(vals.max())], "coalesced": counts.is_coalesced(),
            "row_sums": plain(torch, torch.sparse.sum(counts, dim=1).to_dense())}


PROGRAMS = [bpe_merges, ngram_models, word2vec_sgns, char_cnn_classifier, lm_perplexity, tfidf_retrieval]
NEEDS_CPP = {}


# ---- an LSTM language model with AdaptiveLogSoftmaxWithLoss: clustered vocabulary, log_prob, predict, perplexity ----
def adaptive_softmax_lm(torch, device):
    nn = torch.nn
    rng = np.random.default_rng(1995)
    V, D = 40, 12
    # a Zipf-like corpus so the head holds the frequent ids
    ids = torch.tensor(np.minimum(rng.zipf(1.3, 200) - 1, V - 1), device=device)

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, D)
            self.rnn = nn.LSTM(D, D, batch_first=True)
            self.out = nn.AdaptiveLogSoftmaxWithLoss(D, V, cutoffs=[5, 15], div_value=2.0, head_bias=True)

        def forward(self, x, y):
            h, _ = self.rnn(self.emb(x))
            return self.out(h.reshape(-1, D), y.reshape(-1)), h

    model = _fill(torch, LM(), 1996, 0.3).to(device)
    x = ids[:-1][:160].view(4, 40)
    y = ids[1:][:160].view(4, 40)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    losses = []
    for _ in range(4):
        opt.zero_grad()
        (out, loss), _ = model(x, y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        (out, loss), h = model(x, y)
        flat = h.reshape(-1, D)
        logp = model.out.log_prob(flat)
        pred = model.out.predict(flat)
        picked = logp.gather(1, y.reshape(-1, 1)).squeeze(1)
    asm = model.out
    return {"losses": losses, "out": plain(torch, out[:8]), "ppl": math.exp(loss.item()),
            "logp_sums": plain(torch, logp.exp().sum(1)[:5]), "pred": pred[:12].tolist(),
            "agree": bool(torch.allclose(picked, out, atol=1e-5)), "argmax": bool(torch.equal(pred, logp.argmax(1))),
            "structure": [asm.shortlist_size, asm.n_clusters, asm.head_size, asm.cutoffs,
                          [list(m[0].weight.shape) for m in asm.tail], list(asm.head.weight.shape),
                          asm.head.bias is not None],
            "names": sorted(n for n, _ in asm.named_parameters()),
            "errors": cases(torch, {
                "cutoffs_order": lambda: nn.AdaptiveLogSoftmaxWithLoss(D, V, cutoffs=[15, 5]),
                "cutoffs_big": lambda: nn.AdaptiveLogSoftmaxWithLoss(D, V, cutoffs=[5, 40]),
                "target_range": lambda: asm(flat[:2], torch.tensor([0, V], device=device)),
                "batch_mismatch": lambda: asm(flat[:2], torch.tensor([0], device=device)),
                "input_dim": lambda: asm.log_prob(flat[:, :3]),
            })}


PROGRAMS += [adaptive_softmax_lm]
