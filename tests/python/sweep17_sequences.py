"""Sweep 17 programs, sequence models and speech: a GRU seq2seq with teacher forcing and greedy decoding, packed
bidirectional LSTMs over unsorted batches, CTC training with greedy decoding, beam search over an LSTMCell language
model, nn.Transformer with every mask, nn.MultiheadAttention's weight options, and manually unrolled recurrent
cells."""
import numpy as np

from sweep15_common import cases
from test_programs_sweeputil import uniform_fill as _fill, seeded_randn as _randn


def _ids(torch, seed, shape, high, device, low=0):
    return torch.tensor(np.random.default_rng(seed).integers(low, high, shape), device=device)


# ---- a GRU encoder-decoder trained with teacher forcing (a fixed coin sequence), greedy decoding afterwards -------
def seq2seq_teacher_forcing(torch, device):
    nn = torch.nn
    V, H, SOS, EOS = 9, 12, 0, 1

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, H)
            self.rnn = nn.GRU(H, H, batch_first=True)

        def forward(self, src):
            return self.rnn(self.emb(src))

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, H)
            self.rnn = nn.GRU(2 * H, H, batch_first=True)
            self.out = nn.Linear(H, V)

        def forward(self, tok, hidden, enc_out):
            q = hidden[-1].unsqueeze(1)  # (B, 1, H): dot-product attention over the encoder states
            w = torch.softmax(q @ enc_out.transpose(1, 2), dim=-1)
            ctx = w @ enc_out
            o, hidden = self.rnn(torch.cat([self.emb(tok), ctx], -1), hidden)
            return nn.functional.log_softmax(self.out(o.squeeze(1)), -1), hidden, w.squeeze(1)

    enc = _fill(torch, Encoder(), 2000).to(device)
    dec = _fill(torch, Decoder(), 2001).to(device)
    src = _ids(torch, 2002, (4, 5), V, device, low=2)
    tgt = torch.flip(src, [1])  # learn to reverse
    opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=0.02)
    coins = np.random.default_rng(2003).random((6, 5)) < 0.5
    losses = []
    for epoch in range(6):
        opt.zero_grad()
        enc_out, hidden = enc(src)
        tok = torch.full((4, 1), SOS, dtype=torch.long, device=device)
        loss = 0.0
        for t in range(tgt.shape[1]):
            logp, hidden, _ = dec(tok, hidden, enc_out)
            loss = loss + nn.functional.nll_loss(logp, tgt[:, t])
            tok = tgt[:, t:t + 1] if coins[epoch, t] else logp.argmax(-1, keepdim=True).detach()
        (loss / tgt.shape[1]).backward()
        nn.utils.clip_grad_norm_(list(enc.parameters()) + list(dec.parameters()), 1.0)
        opt.step()
        losses.append(loss.item() / tgt.shape[1])
    with torch.no_grad():
        enc_out, hidden = enc(src)
        tok = torch.full((4, 1), SOS, dtype=torch.long, device=device)
        decoded, attn = [], []
        for _ in range(5):
            logp, hidden, w = dec(tok, hidden, enc_out)
            tok = logp.argmax(-1, keepdim=True)
            decoded.append(tok)
            attn.append(w)
        decoded = torch.cat(decoded, 1)
        finished = (decoded == EOS).cumsum(1) > 0
    return {"losses": losses, "decoded": decoded.tolist(), "finished": finished.tolist(),
            "attn": torch.stack(attn, 1).sum(-1).flatten().tolist()[:5], "hidden": list(hidden.shape)}


# ---- packed sequences: unsorted batches, a 2-layer bidirectional LSTM, total_length, sorted/unsorted indices -------
def packed_bilstm(torch, device):
    nn = torch.nn
    rnn_utils = nn.utils.rnn
    lengths = [3, 6, 1, 4]
    seqs = [_randn(torch, 2010 + i, n, 3, device=device) for i, n in enumerate(lengths)]
    padded = rnn_utils.pad_sequence(seqs, batch_first=True, padding_value=0.0)
    lstm = _fill(torch, nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True), 2015).to(device)
    packed = rnn_utils.pack_padded_sequence(padded, torch.tensor(lengths), batch_first=True, enforce_sorted=False)
    out_p, (h, c) = lstm(packed)
    out, out_len = rnn_utils.pad_packed_sequence(out_p, batch_first=True, total_length=7, padding_value=-1.0)
    # the last valid step of the forward direction and the first step of the backward one
    idx = (torch.tensor(lengths, device=device) - 1).view(-1, 1, 1).expand(-1, 1, 4)
    last_fwd = out[:, :, :4].gather(1, idx).squeeze(1)
    first_bwd = out[:, 0, 4:]
    packed_seq = rnn_utils.pack_sequence(seqs, enforce_sorted=False)
    out2, _ = lstm(packed_seq)
    sorted_pack = rnn_utils.pack_sequence(sorted(seqs, key=len, reverse=True))
    loss = out[out > -1.0].pow(2).mean() + h.sum() * 0.1
    loss.backward()
    unpadded = rnn_utils.unpad_sequence(out, out_len, batch_first=True)
    return {"batch_sizes": packed.batch_sizes.tolist(), "sorted": packed.sorted_indices.tolist(),
            "unsorted": packed.unsorted_indices.tolist(), "data_shape": list(packed.data.shape),
            "out_shape": list(out.shape), "out_len": out_len.tolist(), "pad": out[2, 1:, 0].tolist(),
            "h_matches": [bool(torch.allclose(h[-2], last_fwd, atol=1e-6)),
                          bool(torch.allclose(h[-1], first_bwd, atol=1e-6))],
            "c": c.flatten().tolist()[:8], "same_data": bool(torch.allclose(out2.data, out_p.data)),
            "sorted_pack": [sorted_pack.sorted_indices is None, sorted_pack.batch_sizes.tolist()],
            "grad": lstm.weight_hh_l1_reverse.grad.abs().sum().item(),
            "unpadded": [list(u.shape) for u in unpadded], "device": packed.data.device == padded.device,
            "lengths_device": str(out_len.device),
            "errors": cases(torch, {
                "sorted_required": lambda: rnn_utils.pack_padded_sequence(padded, torch.tensor(lengths),
                                                                          batch_first=True),
                "zero_length": lambda: rnn_utils.pack_padded_sequence(padded, torch.tensor([3, 0, 1, 2]),
                                                                      batch_first=True, enforce_sorted=False),
                "short_total": lambda: rnn_utils.pad_packed_sequence(out_p, batch_first=True, total_length=3),
            })}


# ---- CTC: a conv + GRU acoustic model trained with F.ctc_loss, greedy decoding by unique_consecutive -------------
def ctc_training(torch, device):
    nn = torch.nn
    F = nn.functional
    C, T, N = 6, 16, 3  # classes with the blank at 0

    class Acoustic(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(5, 8, 3, padding=1)
            self.rnn = nn.GRU(8, 8, bidirectional=True)
            self.head = nn.Linear(16, C)

        def forward(self, feats):  # (N, 5, T)
            h = torch.relu(self.conv(feats)).permute(2, 0, 1)  # (T, N, 8)
            o, _ = self.rnn(h)
            return F.log_softmax(self.head(o), -1)  # (T, N, C)

    model = _fill(torch, Acoustic(), 2020).to(device)
    feats = _randn(torch, 2021, N, 5, T, device=device)
    targets = torch.tensor([1, 2, 2, 3, 4, 1, 5, 3, 3], device=device)
    target_lengths = torch.tensor([4, 2, 3])
    input_lengths = torch.tensor([16, 12, 14])
    opt = torch.optim.Adam(model.parameters(), lr=0.03)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        logp = model(feats)
        loss = F.ctc_loss(logp, targets, input_lengths, target_lengths, blank=0, reduction="mean")
        loss.backward()
        opt.step()
        losses.append(loss.item())
    logp = model(feats).detach()
    padded_targets = torch.zeros(N, 4, dtype=torch.long, device=device)
    start = 0
    for i, n in enumerate(target_lengths.tolist()):
        padded_targets[i, :n] = targets[start:start + n]
        start += n
    red = {r: F.ctc_loss(logp, padded_targets, input_lengths, target_lengths, reduction=r) for r in
           ("none", "sum", "mean")}
    best = logp.argmax(-1).T  # (N, T)
    decoded = []
    for i in range(N):
        seq, _ = torch.unique_consecutive(best[i, :input_lengths[i]], return_counts=True)
        decoded.append(seq[seq != 0].tolist())
    module = nn.CTCLoss(blank=C - 1, zero_infinity=True)
    short = module(logp[:2], targets[:3].clamp(max=C - 2).view(1, 3).expand(N, 3), torch.full((N,), 2),
                   torch.full((N,), 3))
    unbatched = F.ctc_loss(logp[:, 0], padded_targets[0], input_lengths[:1].squeeze(), target_lengths[0])
    return {"losses": losses, "none": red["none"].tolist(), "sum": red["sum"].item(), "mean": red["mean"].item(),
            "decoded": decoded, "zero_inf": short.item(), "unbatched": unbatched.item(),
            "tensor_lengths": F.ctc_loss(logp, padded_targets, input_lengths.to(device),
                                         target_lengths.to(device)).item()}


# ---- beam search over an LSTMCell language model (topk over flattened scores, reordering states by index_select) ---
def beam_search(torch, device):
    nn = torch.nn
    V, H, K, EOS = 7, 10, 3, 1
    emb = _fill(torch, nn.Embedding(V, H), 2030, 1.0).to(device)
    cell = _fill(torch, nn.LSTMCell(H, H), 2031).to(device)
    proj = _fill(torch, nn.Linear(H, V), 2032, 1.0).to(device)
    with torch.no_grad():
        h = torch.zeros(1, H, device=device)
        c = torch.zeros(1, H, device=device)
        tokens = torch.zeros(1, 1, dtype=torch.long, device=device)
        scores = torch.zeros(1, device=device)
        done = []
        for step in range(6):
            h, c = cell(emb(tokens[:, -1]), (h, c))
            logp = torch.log_softmax(proj(h), -1)
            total = (scores.unsqueeze(1) + logp).flatten()
            top, flat = total.topk(K)
            beam = torch.div(flat, V, rounding_mode="floor")
            word = flat % V
            tokens = torch.cat([tokens.index_select(0, beam), word.unsqueeze(1)], 1)
            h, c, scores = h.index_select(0, beam), c.index_select(0, beam), top
            ended = word == EOS
            for i in ended.nonzero().flatten().tolist():
                done.append((tokens[i].tolist(), scores[i].item() / (tokens.shape[1] ** 0.7)))
            scores = scores.masked_fill(ended, float("-inf"))
        greedy = torch.zeros(1, dtype=torch.long, device=device)
        hg, cg = torch.zeros(1, H, device=device), torch.zeros(1, H, device=device)
        path = []
        for _ in range(6):
            hg, cg = cell(emb(greedy), (hg, cg))
            greedy = proj(hg).argmax(-1)
            path.append(greedy.item())
        sampled_shape = list(torch.multinomial(torch.softmax(proj(hg), -1), 4, replacement=True).shape)
    return {"beams": tokens.tolist(), "scores": [s if s != float("-inf") else "-inf" for s in scores.tolist()],
            "done": done, "greedy": path, "sampled": sampled_shape}


# ---- nn.Transformer with every mask: causal tgt_mask, key padding on both sides, memory masks, is_causal ----------
def transformer_masks(torch, device):
    nn = torch.nn
    d, V = 8, 11
    model = nn.Transformer(d_model=d, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16,
                           dropout=0.0, batch_first=True, norm_first=True)
    _fill(torch, model, 2040, 0.3)
    model = model.to(device)
    emb = _fill(torch, nn.Embedding(V, d, padding_idx=0), 2041).to(device)
    src = torch.tensor([[3, 4, 5, 0, 0], [6, 7, 8, 9, 2]], device=device)
    tgt = torch.tensor([[1, 2, 3, 0], [4, 5, 6, 7]], device=device)
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(4, device=device)
    out = model(emb(src), emb(tgt), tgt_mask=tgt_mask, src_key_padding_mask=src == 0,
                tgt_key_padding_mask=tgt == 0, memory_key_padding_mask=src == 0, tgt_is_causal=True)
    # the causal mask really is causal: changing a later target token leaves earlier outputs alone
    tgt2 = tgt.clone()
    tgt2[:, 3] = 9
    out2 = model(emb(src), emb(tgt2), tgt_mask=tgt_mask, src_key_padding_mask=src == 0,
                 memory_key_padding_mask=src == 0)
    out1 = model(emb(src), emb(tgt), tgt_mask=tgt_mask, src_key_padding_mask=src == 0,
                 memory_key_padding_mask=src == 0)
    prefix_same = bool(torch.allclose(out1[:, :3], out2[:, :3], atol=1e-6))
    enc_layer = nn.TransformerEncoderLayer(d, 2, 16, dropout=0.0, activation="gelu", batch_first=True)
    encoder = _fill(torch, nn.TransformerEncoder(enc_layer, 2, norm=nn.LayerNorm(d), enable_nested_tensor=False),
                    2042, 0.3).to(device)
    mem = encoder(emb(src), mask=nn.Transformer.generate_square_subsequent_mask(5, device=device), is_causal=True)
    encoder.eval()
    with torch.no_grad():
        mem_eval = encoder(emb(src), src_key_padding_mask=src == 0)
    float_mask = torch.zeros(5, 5, device=device).masked_fill(torch.ones(5, 5, dtype=torch.bool,
                                                                           device=device).triu(1), float("-inf"))
    bool_mask = torch.ones(5, 5, dtype=torch.bool, device=device).triu(1)
    same_masks = bool(torch.allclose(encoder(emb(src), mask=float_mask), encoder(emb(src), mask=bool_mask),
                                     atol=1e-6))
    out.sum().backward()
    return {"out": out[1].flatten().tolist()[:8], "prefix_same": prefix_same, "mask": tgt_mask.tolist(),
            "mem": mem.sum(-1).flatten().tolist(), "mem_eval": mem_eval[1].sum(-1).tolist(),
            "mem_eval_valid": mem_eval[0, :3].sum(-1).tolist(), "same_masks": same_masks,
            "grad": model.encoder.layers[0].self_attn.in_proj_weight.grad.abs().sum().item(),
            "emb_pad_grad": emb.weight.grad is None,
            "mask_dtype": str(nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64).dtype),
            "errors": cases(torch, {
                "bad_mask": lambda: model(emb(src), emb(tgt), tgt_mask=torch.zeros(3, 3, device=device)),
                "batch_mismatch": lambda: model(emb(src), emb(tgt[:1])),
            })}


# ---- nn.MultiheadAttention: need_weights, average_attn_weights, kdim/vdim, bias_kv, zero_attn, 3-D masks ----------
def mha_weights(torch, device):
    nn = torch.nn
    E, S, L, B = 8, 5, 3, 2
    q = _randn(torch, 2050, L, B, E, device=device)
    k = _randn(torch, 2051, S, B, 6, device=device)
    v = _randn(torch, 2052, S, B, 4, device=device)
    mha = _fill(torch, nn.MultiheadAttention(E, 2, kdim=6, vdim=4), 2053).to(device)
    out, w = mha(q, k, v)
    out_h, w_h = mha(q, k, v, average_attn_weights=False)
    out_n, w_n = mha(q, k, v, need_weights=False)
    kpm = torch.tensor([[False, False, False, True, True], [False] * 5], device=device)
    out_k, w_k = mha(q, k, v, key_padding_mask=kpm)
    mask3 = torch.zeros(B * 2, L, S, device=device)
    mask3[0, :, 0] = float("-inf")
    _, w_3 = mha(q, k, v, attn_mask=mask3, average_attn_weights=False)
    extra = _fill(torch, nn.MultiheadAttention(E, 4, add_bias_kv=True, add_zero_attn=True, batch_first=True), 2054)
    extra = extra.to(device)
    qb = q.transpose(0, 1)
    out_e, w_e = extra(qb, qb, qb)
    single = _fill(torch, nn.MultiheadAttention(E, 2, bias=False), 2055).to(device)
    out_u, w_u = single(q[:, 0], q[:, 0], q[:, 0])  # unbatched input
    out_c, _ = single(q, q, q, attn_mask=nn.Transformer.generate_square_subsequent_mask(L, device=device),
                      is_causal=True, need_weights=False)
    (out.sum() + out_e.sum()).backward()
    return {"w_shape": list(w.shape), "w_rows": w.sum(-1).flatten().tolist(), "w_h_shape": list(w_h.shape),
            "avg": bool(torch.allclose(w_h.mean(1), w, atol=1e-6)), "none": w_n is None,
            "same_out": bool(torch.allclose(out, out_n, atol=1e-6)), "masked": w_k[0, :, 3:].abs().sum().item(),
            "w3": w_3[0, 0].tolist(), "w3_other_head": w_3[0, 1, :, 0].tolist(), "extra_w": list(w_e.shape),
            "extra_out": out_e.flatten().tolist()[:6], "unbatched": [list(out_u.shape), list(w_u.shape)],
            "causal": out_c[0].flatten().tolist()[:6], "bias_k": list(extra.bias_k.shape),
            "grads": [mha.q_proj_weight.grad.abs().sum().item(), mha.in_proj_weight is None,
                      extra.bias_v.grad.abs().sum().item()],
            "errors": cases(torch, {
                "bad_embed": lambda: nn.MultiheadAttention(7, 2),
                "bad_mask": lambda: mha(q, k, v, attn_mask=torch.zeros(2, 2, device=device)),
            })}


# ---- recurrent cells unrolled by hand against the fused modules (RNN relu, GRUCell, LSTM proj_size) ---------------
def unrolled_cells(torch, device):
    nn = torch.nn
    x = _randn(torch, 2060, 5, 2, 3, device=device)
    rnn = _fill(torch, nn.RNN(3, 4, nonlinearity="relu", num_layers=1), 2061).to(device)
    cell = nn.RNNCell(3, 4, nonlinearity="relu").to(device)
    with torch.no_grad():
        cell.weight_ih.copy_(rnn.weight_ih_l0)
        cell.weight_hh.copy_(rnn.weight_hh_l0)
        cell.bias_ih.copy_(rnn.bias_ih_l0)
        cell.bias_hh.copy_(rnn.bias_hh_l0)
    h = torch.zeros(2, 4, device=device)
    steps = []
    for t in range(5):
        h = cell(x[t], h)
        steps.append(h)
    out, hn = rnn(x)
    gru = _fill(torch, nn.GRU(3, 4), 2062).to(device)
    gcell = nn.GRUCell(3, 4).to(device)
    gcell.load_state_dict({k[:-3]: v for k, v in gru.state_dict().items()})
    hg = torch.zeros(2, 4, device=device)
    for t in range(5):
        hg = gcell(x[t], hg)
    gout, ghn = gru(x)
    lstm = _fill(torch, nn.LSTM(3, 6, proj_size=2, num_layers=2), 2063).to(device)
    lout, (lh, lc) = lstm(x)
    h0 = _randn(torch, 2064, 2, 2, 2, device=device)
    c0 = _randn(torch, 2065, 2, 2, 6, device=device)
    lout2, _ = lstm(x, (h0, c0))
    lstm_cell = _fill(torch, nn.LSTMCell(3, 4, bias=False), 2066).to(device)
    hc = lstm_cell(x[0])
    unbatched, _ = gru(x[:, 0])
    return {"rnn_same": bool(torch.allclose(torch.stack(steps), out, atol=1e-6)), "rnn_hn": hn.flatten().tolist(),
            "gru_same": bool(torch.allclose(hg, ghn[0], atol=1e-6)), "gru": gout[-1].flatten().tolist(),
            "proj": [list(lout.shape), list(lh.shape), list(lc.shape)], "proj_out": lout[-1].flatten().tolist(),
            "with_state": lout2[0].flatten().tolist(), "cell": [t.flatten().tolist() for t in hc],
            "unbatched": list(unbatched.shape), "weights": [n for n, _ in lstm.named_parameters()][:5],
            "errors": cases(torch, {
                "bad_input": lambda: gru(_randn(torch, 1, 5, 2, 4, device=device)),
                "bad_hidden": lambda: gru(x, torch.zeros(1, 3, 4, device=device)),
                "proj_too_big": lambda: nn.LSTM(3, 4, proj_size=4),
            })}


PROGRAMS = [seq2seq_teacher_forcing, packed_bilstm, ctc_training, beam_search, transformer_masks, mha_weights,
            unrolled_cells]
NEEDS_CPP = {}
