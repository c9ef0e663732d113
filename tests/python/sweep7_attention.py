"""Sweep 7 programs, attention as newer PyTorch code writes it: FlexAttention with score and mask modifiers and
block masks (torch.nn.attention.flex_attention), scaled_dot_product_attention with the causal-bias objects of
torch.nn.attention.bias, grouped-query attention and sdpa_kernel, and a Transformer-encoder forecaster with a
causal mask, key padding and sliding windows cut with unfold.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep7.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import importlib
import warnings

from test_programs_sweeputil import init_from_numpy, numpy_input


def _submodule(torch, name):
    """torch.<name> imported as `from torch.<name> import ...` would, but from the library passed in (the statement
    itself always binds the module called torch)."""
    return importlib.import_module(f"{torch.__name__}.{name}")


def _rounded(t, digits=5):
    return [round(v, digits) for v in t.flatten().tolist()]


# ---- FlexAttention: causal, sliding-window and document masks, an ALiBi score modifier, GQA, lse ----------------
def flex_attention_program(torch, device):
    flex = _submodule(torch, "nn.attention.flex_attention")
    and_masks, or_masks, noop_mask = flex.and_masks, flex.or_masks, flex.noop_mask
    create_block_mask, create_mask, flex_attention = flex.create_block_mask, flex.create_mask, flex.flex_attention
    F = torch.nn.functional
    q = numpy_input(torch, 81, 2, 4, 40, 8, device=device)
    k = numpy_input(torch, 82, 2, 4, 40, 8, device=device)
    v = numpy_input(torch, 83, 2, 4, 40, 8, device=device)
    documents = torch.tensor([0] * 15 + [1] * 25, device=device)

    def causal(b, h, q_idx, kv_idx):
        return q_idx >= kv_idx

    def sliding(b, h, q_idx, kv_idx):
        return q_idx - kv_idx <= 8

    def same_document(b, h, q_idx, kv_idx):
        return documents[q_idx] == documents[kv_idx]

    slopes = torch.exp2(-torch.arange(1, 5, device=device, dtype=torch.float32))

    def alibi(score, b, h, q_idx, kv_idx):
        return score - slopes[h] * (q_idx - kv_idx).abs()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the eager (unfused) implementation warns once
        block_mask = create_block_mask(and_masks(causal, sliding), None, None, 40, 40, device=device, BLOCK_SIZE=16)
        out_causal = flex_attention(q, k, v, block_mask=create_block_mask(causal, 1, 1, 40, 40, device=device))
        out_window = flex_attention(q, k, v, block_mask=block_mask)
        out_alibi, lse = flex_attention(q, k, v, score_mod=alibi, return_lse=True)
        doc_mask = create_block_mask(and_masks(causal, same_document), 2, None, 40, 40, device=device)
        out_doc = flex_attention(q, k, v, block_mask=doc_mask, scale=0.5)
        k_gqa, v_gqa = k[:, :2], v[:, :2]
        out_gqa = flex_attention(q, k_gqa, v_gqa, block_mask=block_mask, enable_gqa=True)
    reference = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    dense = create_mask(and_masks(causal, sliding), 1, 1, 40, 40, device=device)
    window_reference = F.scaled_dot_product_attention(q, k, v, attn_mask=dense)
    gqa_reference = F.scaled_dot_product_attention(q, k_gqa, v_gqa, attn_mask=dense, enable_gqa=True)
    either = create_mask(or_masks(causal, same_document), None, None, 6, 6, device=device)
    return {"causal_matches_sdpa": (out_causal - reference).abs().max().item() < 1e-5,
            "window_matches_sdpa": (out_window - window_reference).abs().max().item() < 1e-5,
            "gqa_matches_sdpa": (out_gqa - gqa_reference).abs().max().item() < 1e-5,
            "alibi": _rounded(out_alibi[0, :, :3, :2]), "lse": _rounded(lse[1, 2, :5]),
            "lse_dtype": str(lse.dtype), "doc": _rounded(out_doc[1, 0, 13:17, :2]),
            "block_mask_shape": list(block_mask.shape), "sparsity": round(block_mask.sparsity(), 4),
            "kv_num_blocks": block_mask.kv_num_blocks.flatten().tolist(),
            "full_kv_num_blocks": block_mask.full_kv_num_blocks.flatten().tolist(),
            "dense_blocks": block_mask.to_dense().flatten().tolist(), "block_size": list(block_mask.BLOCK_SIZE),
            "create_mask": [list(dense.shape), str(dense.dtype), int(dense.sum())],
            "either": either.int().flatten().tolist(), "noop": bool(noop_mask(*(torch.tensor(i, device=device) for i in (0, 0, 3, 1))))}


# ---- scaled_dot_product_attention with causal biases, key padding, GQA and an explicit math backend --------------
def sdpa_variants(torch, device):
    SDPBackend, sdpa_kernel = torch.nn.attention.SDPBackend, torch.nn.attention.sdpa_kernel
    bias = _submodule(torch, "nn.attention.bias")
    causal_lower_right, causal_upper_left, CausalBias = bias.causal_lower_right, bias.causal_upper_left, bias.CausalBias
    F = torch.nn.functional
    q = numpy_input(torch, 84, 2, 4, 5, 8, device=device)
    k = numpy_input(torch, 85, 2, 4, 7, 8, device=device)
    v = numpy_input(torch, 86, 2, 4, 7, 8, device=device)
    upper = causal_upper_left(5, 7)
    lower = causal_lower_right(5, 7)
    out_upper = F.scaled_dot_product_attention(q, k, v, attn_mask=upper)
    out_lower = F.scaled_dot_product_attention(q, k, v, attn_mask=lower)
    explicit_lower = torch.ones(5, 7, dtype=torch.bool, device=device).tril(diagonal=2)
    ref_lower = F.scaled_dot_product_attention(q, k, v, attn_mask=explicit_lower)
    out_causal = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    padding = torch.tensor([[True] * 7, [True] * 4 + [False] * 3], device=device)
    out_pad = F.scaled_dot_product_attention(q, k, v, attn_mask=padding[:, None, None, :], dropout_p=0.0,
                                             scale=0.3)
    with sdpa_kernel([SDPBackend.MATH]):
        out_math = F.scaled_dot_product_attention(q, k[:, :1], v[:, :1], enable_gqa=True)
    float_mask = torch.zeros(5, 7, device=device).masked_fill(~explicit_lower, float("-inf"))
    out_float = F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask)
    return {"upper_is_causal": (out_upper - out_causal).abs().max().item() < 1e-6,
            "lower_matches": (out_lower - ref_lower).abs().max().item() < 1e-6,
            "float_matches": (out_float - ref_lower).abs().max().item() < 1e-6,
            "lower_dense": lower._materialize(device).int().tolist(),
            "variant": str(lower.variant), "bias_type": isinstance(lower, CausalBias),
            "pad": _rounded(out_pad[1, 0, :2]), "math": _rounded(out_math[0, 1, :2])}


# ---- a Transformer-encoder forecaster: windows cut with unfold, causal mask, key padding, ReduceLROnPlateau -------
def transformer_forecaster(torch, device):
    nn = torch.nn
    t = torch.arange(0, 120, dtype=torch.float32, device=device)
    series = torch.sin(0.2 * t) + 0.5 * torch.cos(0.05 * t)
    windows = series.unfold(0, 17, 4)  # (n_windows, 17): 16 inputs and the next value
    inputs, targets = windows[:, :-1].unsqueeze(-1), windows[:, 1:]

    class Forecaster(nn.Module):
        def __init__(self, d_model=16):
            super().__init__()
            self.inp = nn.Linear(1, d_model)
            self.pos = nn.Parameter(torch.zeros(1, 16, d_model))
            layer = nn.TransformerEncoderLayer(d_model, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True,
                                               norm_first=True)
            self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
            self.out = nn.Linear(d_model, 1)

        def forward(self, x, padding=None):
            mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1], device=x.device)
            h = self.encoder(self.inp(x) + self.pos, mask=mask, src_key_padding_mask=padding, is_causal=True)
            return self.out(h).squeeze(-1)

    model = Forecaster().to(device)
    init_from_numpy(torch, model, 87)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=0, threshold=0.5)
    losses, lrs = [], []
    for _ in range(4):
        loss = nn.functional.mse_loss(model(inputs), targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        plateau.step(loss.item())
        losses.append(loss.item())
        lrs.append(opt.param_groups[0]["lr"])
    padding = torch.zeros(inputs.shape[0], 16, dtype=torch.bool, device=device)
    padding[:, 12:] = True
    with torch.no_grad():
        padded = model(inputs, padding)
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    return {"windows": list(windows.shape), "losses": losses, "lrs": lrs, "padded": _rounded(padded[0, :4]),
            "mask": mask.tolist(), "mask_dtype": str(mask.dtype)}


PROGRAMS = [flex_attention_program, sdpa_variants, transformer_forecaster]
