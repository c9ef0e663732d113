"""Sweep 20 programs, nn.Transformer and nn.MultiheadAttention as users configure them: a full encoder-decoder
translation step with every mask (square subsequent, key padding on source, target and memory, is_causal) and greedy
decoding, a pre-norm GPT-style TransformerEncoder with a callable activation, batch_first=False and a final norm,
enable_nested_tensor=False in eval; MultiheadAttention with kdim/vdim, add_bias_kv, add_zero_attn,
average_attn_weights=False, 3-D float masks per head and its errors; a TransformerDecoder-only stack with
memory_is_causal and a cross-attention over a padded memory, and what the modules refuse (merge_masks included).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep20.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
from sweep15_common import cases
from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


# ---- nn.Transformer: a translation step with every mask, then greedy decoding ------------------------------------------
def seq2seq_transformer_masks(torch, device):
    nn, F = torch.nn, torch.nn.functional
    V, d, PAD, BOS = 11, 16, 0, 1

    class Translator(nn.Module):
        def __init__(self):
            super().__init__()
            self.src_emb = nn.Embedding(V, d, padding_idx=PAD)
            self.tgt_emb = nn.Embedding(V, d, padding_idx=PAD)
            self.pos = nn.Parameter(torch.zeros(1, 12, d))
            self.core = nn.Transformer(d, nhead=4, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=32,
                                       dropout=0.0, batch_first=True, activation="gelu")
            self.out = nn.Linear(d, V)

        def forward(self, src, tgt):
            s = self.src_emb(src) + self.pos[:, :src.size(1)]
            t = self.tgt_emb(tgt) + self.pos[:, :tgt.size(1)]
            tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1), device=src.device)
            h = self.core(s, t, tgt_mask=tgt_mask, src_key_padding_mask=src == PAD,
                          tgt_key_padding_mask=tgt == PAD, memory_key_padding_mask=src == PAD, tgt_is_causal=True)
            return self.out(h)

    model = _fill(torch, Translator(), 2200, scale=0.3).to(device)
    src = torch.tensor([[5, 6, 7, 8, 2], [4, 3, 2, 0, 0]], device=device)
    tgt = torch.tensor([[1, 8, 7, 6, 5], [1, 2, 3, 4, 0]], device=device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    log = []
    for _ in range(4):
        logits = model(src, tgt[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, V), tgt[:, 1:].reshape(-1), ignore_index=PAD,
                               label_smoothing=0.1)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        log.append(_r(loss, 4))
    model.eval()
    with torch.no_grad():
        memory = model.core.encoder(model.src_emb(src) + model.pos[:, :5], src_key_padding_mask=src == PAD)
        ys = torch.full((2, 1), BOS, device=device)
        for _ in range(4):
            t = model.tgt_emb(ys) + model.pos[:, :ys.size(1)]
            mask = nn.Transformer.generate_square_subsequent_mask(ys.size(1), device=device)
            h = model.core.decoder(t, memory, tgt_mask=mask, memory_key_padding_mask=src == PAD)
            ys = torch.cat([ys, model.out(h[:, -1]).argmax(-1, keepdim=True)], 1)
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    return {"log": log, "ys_shape": list(ys.shape), "memory": _r(memory.sum(), 3),
            "mask": [str(mask.dtype), mask.tolist()], "n_params": sum(p.numel() for p in model.parameters()),
            "dec_norm": type(model.core.decoder.norm).__name__}


# ---- a pre-norm GPT-style encoder with a callable activation, sequence-first ----------------------------------------
def prenorm_encoder_callable_activation(torch, device):
    nn, F = torch.nn, torch.nn.functional

    def squared_relu(x):
        return F.relu(x) ** 2

    layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=24, dropout=0.0, activation=squared_relu,
                                       norm_first=True, bias=True, layer_norm_eps=1e-6)
    enc = nn.TransformerEncoder(layer, num_layers=3, norm=nn.LayerNorm(16), enable_nested_tensor=False)
    _fill(torch, enc, 2210, scale=0.3).to(device)
    x = _randn(torch, 2211, 6, 2, 16, device=device)  # (seq, batch, d)
    mask = nn.Transformer.generate_square_subsequent_mask(6, device=device)
    out = enc(x, mask=mask, is_causal=True)
    out.pow(2).mean().backward()
    g = enc.layers[0].self_attn.in_proj_weight.grad
    # causality: perturbing the last position does not change the first
    x2 = x.clone()
    x2[-1] += 1.0
    with torch.no_grad():
        diff = (enc(x2, mask=mask, is_causal=True) - out).abs().amax(dim=(1, 2))
    enc.eval()
    pad = torch.tensor([[False, False, False, False, True, True], [False] * 6], device=device)
    with torch.no_grad():
        ev = enc(x, src_key_padding_mask=pad)
    bool_mask = torch.triu(torch.ones(6, 6, dtype=torch.bool, device=device), 1)
    with torch.no_grad():
        same_masks = torch.allclose(enc(x, mask=bool_mask), enc(x, mask=mask), atol=1e-5)
    gelu_layer = nn.TransformerEncoderLayer(16, 2, 32, 0.0, activation="gelu", batch_first=True)
    return {"out": _r(out.sum(), 3), "grad": _r(g.norm(), 4), "causal": [v == 0.0 for v in diff.tolist()],
            "eval": [list(ev.shape), _r(ev[:4].sum(), 3), bool(ev.isfinite().all())], "same_masks": same_masks,
            "act": [layer.activation is squared_relu, type(gelu_layer.activation).__name__
                    if not callable(gelu_layer.activation) or isinstance(gelu_layer.activation, nn.Module)
                    else gelu_layer.activation.__name__],
            "layers_distinct": enc.layers[0] is not enc.layers[1]}


# ---- MultiheadAttention options -------------------------------------------------------------------------------------
def multihead_attention_variants(torch, device):
    nn = torch.nn
    q = _randn(torch, 2220, 2, 3, 8, device=device)
    kv = _randn(torch, 2221, 2, 5, 6, device=device)
    v = _randn(torch, 2222, 2, 5, 4, device=device)
    mha = _fill(torch, nn.MultiheadAttention(8, 2, kdim=6, vdim=4, batch_first=True, add_bias_kv=True,
                                             add_zero_attn=True), 2223).to(device)
    out, w = mha(q, kv, v, need_weights=True, average_attn_weights=False)
    kpm = torch.tensor([[False, False, False, True, True], [False] * 5], device=device)
    out2, w2 = mha(q, kv, v, key_padding_mask=kpm)
    head_mask = torch.zeros(2 * 2, 3, 5, device=device)
    head_mask[:, :, 0] = float("-inf")
    mha2 = _fill(torch, nn.MultiheadAttention(8, 2, batch_first=True, bias=False), 2224).to(device)
    out3, w3 = mha2(q, q, q, attn_mask=head_mask[:, :, :3], need_weights=True)
    out4, w4 = mha2(q, q, q, need_weights=False)
    out4.sum().backward()
    names = sorted(n for n, _ in mha.named_parameters())
    errs = cases(torch, {
        "bad_embed": lambda: nn.MultiheadAttention(10, 3),
        "bad_mask_shape": lambda: mha2(q, q, q, attn_mask=torch.zeros(4, 4, device=device)),
        "bad_3d_mask": lambda: mha2(q, q, q, attn_mask=torch.zeros(3, 3, 3, device=device)),
        "int_mask": lambda: mha2(q, q, q, attn_mask=torch.zeros(3, 3, dtype=torch.int64, device=device)),
    })
    return {"w": [list(w.shape), _r(w.sum(-1), 5)], "out": _r(out.sum(), 4), "w2": _r(w2[0, :, 3:], 5),
            "out2": _r(out2.sum(), 4), "w3": _r(w3[..., 0], 5), "out3": _r(out3.sum(), 4), "w4": w4,
            "names": names, "grad": _r(mha2.in_proj_weight.grad.norm(), 4), "bias_k": list(mha.bias_k.shape),
            "qkv_same": [mha._qkv_same_embed_dim, mha2._qkv_same_embed_dim], "errs": errs}


# ---- a decoder-only stack with cross-attention over a padded memory ---------------------------------------------------
def decoder_stack_cross_attention(torch, device):
    nn = torch.nn
    layer = nn.TransformerDecoderLayer(12, 3, dim_feedforward=20, dropout=0.0, batch_first=True, norm_first=True,
                                       activation=nn.SiLU())
    dec = nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(12))
    _fill(torch, dec, 2230, scale=0.3).to(device)
    tgt = _randn(torch, 2231, 2, 4, 12, device=device).requires_grad_()
    mem = _randn(torch, 2232, 2, 6, 12, device=device)
    mpad = torch.tensor([[False] * 4 + [True] * 2, [False] * 6], device=device)
    causal = nn.Transformer.generate_square_subsequent_mask(4, device=device)
    out = dec(tgt, mem, tgt_mask=causal, memory_key_padding_mask=mpad, tgt_is_causal=True)
    out.sum().backward()
    # padded memory positions get no gradient
    mem2 = mem.clone().requires_grad_()
    dec(tgt.detach(), mem2, tgt_mask=causal, memory_key_padding_mask=mpad).sum().backward()
    pad_grad = mem2.grad[0, 4:].abs().max().item()
    # float masks and bool masks of the same meaning agree
    fmask = torch.zeros(2, 6, device=device).masked_fill(mpad, float("-inf"))
    with torch.no_grad():
        a = dec(tgt, mem, tgt_mask=causal, memory_key_padding_mask=fmask)
        b = dec(tgt, mem, tgt_mask=causal, memory_key_padding_mask=mpad)
    errs = cases(torch, {
        "mixed_mask_types": lambda: list(dec(tgt, mem, tgt_mask=causal.bool(),
                                             memory_key_padding_mask=fmask).shape),
        "bad_memory_width": lambda: dec(tgt, torch.zeros(2, 6, 8, device=device)),
        "bad_tgt_mask": lambda: dec(tgt, mem, tgt_mask=torch.zeros(5, 5, device=device)),
    })
    return {"out": _r(out.sum(), 3), "tgt_grad": _r(tgt.grad.norm(), 4), "pad_grad": pad_grad,
            "float_vs_bool": torch.allclose(a, b, atol=1e-6), "act": [dec.layers[0].activation is torch.nn.functional.relu, type(layer.activation).__name__,
                    sorted(dec.layers[0]._modules)[0]],
            "errs": errs}


PROGRAMS = [seq2seq_transformer_masks, prenorm_encoder_callable_activation, multihead_attention_variants,
            decoder_stack_cross_attention]
NEEDS_CPP = {}


# ---- what the transformer modules refuse and warn about ---------------------------------------------------------------
def transformer_refusals(torch, device):
    import warnings
    nn = torch.nn
    model = _fill(torch, nn.Transformer(8, 2, 1, 1, 16, 0.0, batch_first=True), 2240).to(device)
    mha = _fill(torch, nn.MultiheadAttention(8, 2), 2241).to(device)
    src = _randn(torch, 2242, 2, 5, 8, device=device)
    tgt = _randn(torch, 2243, 2, 3, 8, device=device)
    q = _randn(torch, 2244, 3, 2, 8, device=device)  # (L, N, E)

    def warned(call):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            result = call()
        return [[type(m.message).__name__, str(m.message)] for m in w], list(result.shape) if hasattr(
            result, "shape") else result

    table = {
        "d_model": lambda: model(src[..., :6], tgt[..., :6]),
        "batch": lambda: model(src, tgt[:1]),
        "unbatched_ok": lambda: list(model(src[0], tgt[0]).shape),
        "unbatched_mha": lambda: [list(o.shape) for o in mha(q[:, 0], q[:, 0], q[:, 0])],
        "nhead": lambda: nn.Transformer(10, 3),
        "causal_no_mask": lambda: mha(q, q, q, is_causal=True),
        "causal_with_weights": lambda: list(mha(q, q, q, is_causal=True, need_weights=True,
                                                attn_mask=nn.Transformer.generate_square_subsequent_mask(
                                                    3, device=device))[0].shape),
        "kpm_shape": lambda: mha(q, q, q, key_padding_mask=torch.zeros(2, 4, dtype=torch.bool, device=device)),
        "kpm_int": lambda: mha(q, q, q, key_padding_mask=torch.zeros(2, 3, dtype=torch.long, device=device)),
        "mask_kind_mismatch": lambda: warned(lambda: mha(
            q, q, q, key_padding_mask=torch.zeros(2, 3, dtype=torch.bool, device=device),
            attn_mask=torch.zeros(3, 3, device=device))[0]),
        "key_value_len": lambda: mha(q, q, q[:2]),
        "query_dim": lambda: mha(q[..., :4], q, q),
        "key_dim_3d_2d": lambda: mha(q, q[:, 0], q[:, 0]),
        "decoder_no_memory": lambda: nn.TransformerDecoderLayer(8, 2)(q),
        "activation_str": lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"),
        "nested_warning": lambda: warned(lambda: nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, norm_first=True, batch_first=True), 1).num_layers),
        "square_mask_dtype": lambda: str(nn.Transformer.generate_square_subsequent_mask(2, dtype=torch.float64)
                                         .dtype),
        "tgt_is_causal_no_mask": lambda: list(model(src, tgt, tgt_is_causal=True).shape),
        "generate_mask_zero": lambda: list(nn.Transformer.generate_square_subsequent_mask(0).shape),
        "merge_masks": lambda: [[list(m.shape), str(m.dtype), t] for m, t in [mha.merge_masks(
            nn.Transformer.generate_square_subsequent_mask(3, device=device),
            torch.tensor([[False, False, True], [False] * 3], device=device), q.transpose(0, 1))]],
    }
    return cases(torch, table)


PROGRAMS.append(transformer_refusals)
