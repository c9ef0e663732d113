"""Attention, transformer layers and EmbeddingBag against PyTorch: identical weights, float64, eval mode;
outputs, input and parameter gradients, state_dict keys and error messages."""
import copy

import numpy as np
import pytest
import torch

import tandem
import tandem.nn._functional_attention as attention_impl
import tandem.nn.functional as F
from tandem import nn

# PyTorch's advice about its nested-tensor fast path, which tandem does not have.
pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")


def T(x, device="cpu"):
    """A tandem copy of torch tensor ``x`` (same values, dtype and shape) on ``device``."""
    return None if x is None else tandem.from_numpy(x.detach().numpy().copy()).to(device)


def leaf(x, device="cpu"):
    """Matching leaves that require grad: (torch, tandem)."""
    return x.clone().requires_grad_(), T(x, device).requires_grad_()


def close(t, x, atol=1e-10):
    np.testing.assert_allclose(t.detach().cpu().numpy(), x.detach().numpy(), rtol=1e-9, atol=atol)


def load_from_torch(module, torch_module, device="cpu"):
    """``module`` (tandem) with ``torch_module``'s state_dict copied in and moved to ``device``."""
    assert list(module.state_dict()) == list(torch_module.state_dict())
    module.load_state_dict({k: T(v) for k, v in torch_module.state_dict().items()})
    return module.to(device).eval()


def backward_both(out, tout, seed=0):
    """Backpropagate the same random cotangent through the torch and the tandem output."""
    g = torch.randn(out.shape, dtype=out.dtype, generator=torch.Generator().manual_seed(seed))
    out.backward(g)
    tout.backward(T(g, tout.device))


def assert_param_grads(module, torch_module):
    torch_grads = dict(torch_module.named_parameters())
    for name, p in module.named_parameters():
        if torch_grads[name].grad is None:
            assert p.grad is None, name
        else:
            close(p.grad, torch_grads[name].grad)


def randn(*shape, seed=0):
    return torch.randn(*shape, dtype=torch.float64, generator=torch.Generator().manual_seed(seed))


# ---- scaled_dot_product_attention ----------------------------------------------------------------------------
def _row_mask(length, keys):
    mask = randn(length, keys, seed=7) > 0
    mask[1] = False  # one row attends nothing: zeros, not NaN
    return mask


SDPA_CASES = {
    "plain": ((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 7), {}),
    "causal_l_lt_s": ((2, 3, 4, 4), (2, 3, 6, 4), (2, 3, 6, 5), {"is_causal": True}),
    "causal_l_gt_s": ((1, 2, 6, 4), (1, 2, 4, 4), (1, 2, 4, 5), {"is_causal": True}),
    "scale": ((2, 5, 4), (2, 6, 4), (2, 6, 3), {"scale": 0.3}),
    "bool_mask_2d": ((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4), {"attn_mask": _row_mask(5, 6)}),
    "bool_mask_4d": ((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4), {"attn_mask": randn(2, 1, 5, 6) > 0}),
    "float_mask": ((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 4), {"attn_mask": randn(3, 5, 6)}),
    "float_mask_inf_row": ((1, 5, 4), (1, 6, 4), (1, 6, 4), {"attn_mask": torch.zeros(5, 6, dtype=torch.float64)
                                                             .masked_fill(~_row_mask(5, 6), float("-inf"))}),
    "float32_mask": ((2, 5, 4), (2, 6, 4), (2, 6, 4), {"attn_mask": randn(5, 6).float()}),
    "gqa": ((2, 6, 5, 4), (2, 2, 6, 4), (2, 2, 6, 3), {"enable_gqa": True}),
    "broadcast_batch": ((2, 3, 5, 4), (1, 3, 6, 4), (1, 3, 6, 4), {}),
    "unbatched": ((5, 4), (6, 4), (6, 4), {}),
}


@pytest.mark.parametrize("case", SDPA_CASES)
def test_sdpa_matches_torch_with_gradients(case, device):
    qs, ks, vs, kwargs = SDPA_CASES[case]
    (q, tq), (k, tk), (v, tv) = leaf(randn(*qs, seed=1), device), leaf(randn(*ks, seed=2), device), \
        leaf(randn(*vs, seed=3), device)
    tkwargs = {n: T(a, device) if isinstance(a, torch.Tensor) else a for n, a in kwargs.items()}
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs)
    tout = F.scaled_dot_product_attention(tq, tk, tv, **tkwargs)
    assert tout.device == tandem.device(device)
    close(tout, out)
    backward_both(out, tout)
    for t, x in ((tq, q), (tk, k), (tv, v)):
        close(t.grad, x.grad)


@pytest.mark.parametrize("case", ["causal_l_gt_s", "bool_mask_2d", "bool_mask_4d", "float_mask", "plain"])
def test_sdpa_query_blocks_give_the_same_values(case, monkeypatch):
    """With a tiny score budget every query row runs as its own block (masks and causal rows sliced per block)."""
    monkeypatch.setattr(attention_impl, "_SCORES_PER_BLOCK", 1)
    test_sdpa_matches_torch_with_gradients(case, "cpu")


def test_sdpa_dropout():
    q = tandem.ones(2, 4, 8, 3)
    zero = F.scaled_dot_product_attention(q, q, q, dropout_p=1.0)
    assert zero.abs().sum().item() == 0
    tandem.manual_seed(0)
    out = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    values = set(round(v, 4) for v in out.reshape(-1).tolist())  # uniform weights 1/8, kept ones scaled by 2
    assert values <= {i / 4 for i in range(9)} and len(values) > 2
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.scaled_dot_product_attention(q, q, q, dropout_p=1.5)


def test_sdpa_half_precision_matches_float32():
    q, k, v = randn(2, 5, 8, seed=1), randn(2, 6, 8, seed=2), randn(2, 6, 8, seed=3)
    want = torch.nn.functional.scaled_dot_product_attention(q, k, v).float()
    got = F.scaled_dot_product_attention(*(T(x.half()) for x in (q, k, v)))
    assert got.dtype == tandem.float16
    np.testing.assert_allclose(got.float().numpy(), want.numpy(), atol=1e-2)


def _error(fn):
    """(type, first line of the message), with PyTorch's and tandem's class names written alike."""
    with pytest.raises(Exception) as info:
        fn()
    message = str(info.value).split("\nhint:")[0].split("\n[ torch.")[0]
    return type(info.value), message.replace("torch.", "tandem.").replace("tandem._C.", "tandem.")


@pytest.mark.parametrize("case", ["mask_and_causal", "qkv_dtype", "mask_dtype", "mask_double", "dims", "gqa_heads"])
def test_sdpa_errors_match_torch(case):
    q, k, v = randn(2, 3, 4, 5), randn(2, 3, 6, 5), randn(2, 3, 6, 5)
    args = {
        "mask_and_causal": ((q, k, v), {"attn_mask": torch.ones(4, 6, dtype=torch.bool), "is_causal": True}),
        "qkv_dtype": ((q.float(), k, v.float()), {}),
        "mask_dtype": ((q, k, v), {"attn_mask": torch.ones(4, 6, dtype=torch.int64)}),
        "mask_double": ((q.float(), k.float(), v.float()), {"attn_mask": torch.ones(4, 6, dtype=torch.float64)}),
        "dims": ((randn(5), randn(5), randn(5)), {}),
        "gqa_heads": ((q, randn(2, 2, 6, 5), randn(2, 2, 6, 5)), {"enable_gqa": True}),
    }[case]
    targs = [T(a) for a in args[0]]
    tkwargs = {n: T(a) if isinstance(a, torch.Tensor) else a for n, a in args[1].items()}
    want = _error(lambda: torch.nn.functional.scaled_dot_product_attention(*args[0], **args[1]))
    assert _error(lambda: F.scaled_dot_product_attention(*targs, **tkwargs)) == want


# ---- MultiheadAttention --------------------------------------------------------------------------------------
MHA_CASES = {
    "self": ({}, {}),
    "self_no_weights": ({}, {"need_weights": False}),
    "per_head_weights": ({}, {"average_attn_weights": False}),
    "batch_first": ({"batch_first": True}, {}),
    "batch_first_no_weights": ({"batch_first": True}, {"need_weights": False}),
    "bool_masks": ({}, {"attn_mask": "bool2d", "key_padding_mask": "bool"}),
    "bool_masks_no_weights": ({"batch_first": True}, {"attn_mask": "bool2d", "key_padding_mask": "bool",
                                                      "need_weights": False}),
    "float_masks": ({}, {"attn_mask": "float3d", "key_padding_mask": "float"}),
    "float_masks_no_weights": ({}, {"attn_mask": "float3d", "key_padding_mask": "float", "need_weights": False}),
    "causal_hint": ({}, {"attn_mask": "causal", "is_causal": True, "need_weights": False}),
    "cross_kdim_vdim": ({"kdim": 6, "vdim": 5}, {"cross": True}),
    "cross_kdim_vdim_no_weights": ({"kdim": 6, "vdim": 5, "batch_first": True}, {"cross": True, "need_weights": False}),
    "cross_shared_kv": ({}, {"cross": "shared"}),
    "bias_kv_zero_attn": ({"add_bias_kv": True, "add_zero_attn": True}, {"attn_mask": "bool2d",
                                                                       "key_padding_mask": "bool"}),
    "bias_kv_no_weights": ({"add_bias_kv": True, "add_zero_attn": True},
                           {"attn_mask": "float3d", "key_padding_mask": "bool", "need_weights": False}),
    "no_bias": ({"bias": False}, {}),
    "unbatched": ({}, {"unbatched": True, "attn_mask": "bool2d", "key_padding_mask": "bool"}),
    "unbatched_no_weights": ({"batch_first": True}, {"unbatched": True, "need_weights": False}),
}
E, HEADS, L, S, N = 8, 2, 4, 5, 3


def _mha_masks(spec, tgt_len, src_len):
    """Torch masks named by the case table (a padded key per batch row, some masked pairs)."""
    kpm = torch.zeros(N, src_len, dtype=torch.bool)
    kpm[0, -1] = kpm[2, 0] = True
    attn = randn(tgt_len, src_len, seed=9) > 0.8
    masks = {"bool": kpm, "float": torch.zeros(N, src_len, dtype=torch.float64).masked_fill(kpm, float("-inf")),
             "bool2d": attn, "float3d": randn(N * HEADS, tgt_len, src_len, seed=4),
             "causal": torch.nn.Transformer.generate_square_subsequent_mask(tgt_len, dtype=torch.float64)}
    return masks.get(spec)


@pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask")  # bias_kv_no_weights, in both
@pytest.mark.parametrize("case", MHA_CASES)
def test_multihead_attention_matches_torch(case, device):
    init, call = MHA_CASES[case]
    call = dict(call)
    unbatched, cross = call.pop("unbatched", False), call.pop("cross", False)
    torch.manual_seed(0)
    ref = torch.nn.MultiheadAttention(E, HEADS, dtype=torch.float64, **init).eval()
    if init.get("bias", True):  # PyTorch starts the biases at zero; make them count
        with torch.no_grad():
            ref.in_proj_bias.normal_()
            ref.out_proj.bias.normal_()
    mod = load_from_torch(nn.MultiheadAttention(E, HEADS, dtype=tandem.float64, **init), ref, device)
    tgt_len, src_len = (L, S) if cross else (L, L)
    if init.get("batch_first"):
        shapes = [(N, tgt_len, E), (N, src_len, init.get("kdim", E)), (N, src_len, init.get("vdim", E))]
    else:
        shapes = [(tgt_len, N, E), (src_len, N, init.get("kdim", E)), (src_len, N, init.get("vdim", E))]
    if unbatched:
        shapes = [(s[1], s[2]) if init.get("batch_first") else (s[0], s[2]) for s in shapes]
    q, tq = leaf(randn(*shapes[0], seed=1), device)
    if cross == "shared":
        (k, tk) = leaf(randn(*shapes[1], seed=2), device)
        v, tv = k, tk
    elif cross:
        (k, tk), (v, tv) = leaf(randn(*shapes[1], seed=2), device), leaf(randn(*shapes[2], seed=3), device)
    else:
        k, tk, v, tv = q, tq, q, tq
    for name in ("attn_mask", "key_padding_mask"):
        if name in call:
            call[name] = _mha_masks(call[name], tgt_len, src_len)
            if unbatched and name == "key_padding_mask":
                call[name] = call[name][0]
    tcall = {n: T(a, device) if isinstance(a, torch.Tensor) else a for n, a in call.items()}
    out, weights = ref(q, k, v, **call)
    tout, tweights = mod(tq, tk, tv, **tcall)
    close(tout, out)
    if weights is None:
        assert tweights is None
    else:
        close(tweights, weights)
    backward_both(out, tout)
    for t, x in ((tq, q), (tk, k), (tv, v)):
        close(t.grad, x.grad)
    assert_param_grads(mod, ref)


@pytest.mark.parametrize("init", [{}, {"kdim": 3, "vdim": 5}, {"add_bias_kv": True, "bias": False}])
def test_multihead_attention_parameters_match_torch(init):
    ref = torch.nn.MultiheadAttention(E, HEADS, **init)
    mod = nn.MultiheadAttention(E, HEADS, **init)
    assert {n: tuple(p.shape) for n, p in mod.state_dict().items()} == \
        {n: tuple(p.shape) for n, p in ref.state_dict().items()}
    assert [n for n, _ in mod.named_parameters()] == [n for n, _ in ref.named_parameters()]
    assert repr(mod) == repr(ref)
    if "bias" not in init:
        assert mod.in_proj_bias.abs().sum().item() == 0 and mod.out_proj.bias.abs().sum().item() == 0


def test_multihead_attention_errors_match_torch():
    for args in [(10, 3), (0, 2)]:
        assert _error(lambda: nn.MultiheadAttention(*args)) == _error(lambda: torch.nn.MultiheadAttention(*args))
    ref, mod = torch.nn.MultiheadAttention(E, HEADS), nn.MultiheadAttention(E, HEADS)
    x = torch.randn(L, N, E)
    cases = [
        ((x, x, x), {"is_causal": True}),  # is_causal needs attn_mask
        ((x, x, x), {"attn_mask": torch.ones(L, L + 1, dtype=torch.bool)}),
        ((x, x, x), {"attn_mask": torch.ones(N, L, L, dtype=torch.bool)}),
        ((x, x, x), {"key_padding_mask": torch.ones(N + 1, L, dtype=torch.bool)}),
        ((x, x, x), {"key_padding_mask": torch.ones(N, L, dtype=torch.int64)}),
        ((x, x[:, :, :4], x), {}),
        ((x, x, x[0]), {}),
        ((x[0, 0], x[0, 0], x[0, 0]), {}),
        ((torch.randn(L, N, E + 2),) * 3, {}),
    ]
    for args, kwargs in cases:
        targs = [T(a) for a in args]
        tkwargs = {n: T(a) for n, a in kwargs.items() if isinstance(a, torch.Tensor)}
        tkwargs.update({n: a for n, a in kwargs.items() if not isinstance(a, torch.Tensor)})
        assert _error(lambda: mod(*targs, **tkwargs)) == _error(lambda: ref(*args, **kwargs)), kwargs


def test_mismatched_mask_types_warn_as_torch():
    mod = nn.MultiheadAttention(E, HEADS)
    x = tandem.randn(L, N, E)
    with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
        mod(x, x, x, key_padding_mask=tandem.zeros(N, L, dtype=tandem.bool), attn_mask=tandem.zeros(L, L))


def test_multi_head_attention_forward_functional():
    torch.manual_seed(0)
    ref = torch.nn.MultiheadAttention(E, HEADS, dtype=torch.float64)
    x = randn(L, N, E)
    params = [ref.in_proj_weight, ref.in_proj_bias, None, None, False, 0.0, ref.out_proj.weight, ref.out_proj.bias]
    out, weights = torch.nn.functional.multi_head_attention_forward(x, x, x, E, HEADS, *params, training=False)
    tout, tweights = F.multi_head_attention_forward(T(x), T(x), T(x), E, HEADS, *[
        T(p) if isinstance(p, torch.Tensor) else p for p in params], training=False)
    close(tout, out)
    close(tweights, weights)


# ---- Transformer layers and stacks ---------------------------------------------------------------------------
D_MODEL, FF = 8, 12
LAYER_CASES = {
    "post_norm": {},
    "norm_first": {"norm_first": True},
    "batch_first_gelu": {"batch_first": True, "activation": "gelu"},
    "callable_activation_no_bias": {"activation": "sigmoid", "bias": False, "layer_norm_eps": 1e-3},
}


def _layer_kwargs(case, framework):
    kwargs = dict(LAYER_CASES[case])
    if kwargs.get("activation") == "sigmoid":
        kwargs["activation"] = framework.sigmoid
    return kwargs


def _sequence(batch_first, length, seed):
    return randn(*((N, length, D_MODEL) if batch_first else (length, N, D_MODEL)), seed=seed)


class _no_fastpath:
    """PyTorch's fused inference path differs in the last bits; compare with its ordinary forward."""

    def __enter__(self):
        self.before = torch.backends.mha.get_fastpath_enabled()
        torch.backends.mha.set_fastpath_enabled(False)

    def __exit__(self, *exc):
        torch.backends.mha.set_fastpath_enabled(self.before)


@pytest.mark.parametrize("masks", ["none", "bool", "float_causal"])
@pytest.mark.parametrize("case", LAYER_CASES)
def test_encoder_layer_matches_torch(case, masks):
    torch.manual_seed(0)
    ref = torch.nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, dropout=0.0, dtype=torch.float64,
                                           **_layer_kwargs(case, torch)).eval()
    mod = load_from_torch(nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, dropout=0.0, dtype=tandem.float64,
                                                     **_layer_kwargs(case, tandem)), ref)
    batch_first = LAYER_CASES[case].get("batch_first", False)
    src, tsrc = leaf(_sequence(batch_first, L, 1))
    kwargs = {}
    if masks == "bool":
        kwargs = {"src_mask": _mha_masks("bool2d", L, L), "src_key_padding_mask": _mha_masks("bool", L, L)}
    elif masks == "float_causal":
        kwargs = {"src_mask": _mha_masks("causal", L, L), "is_causal": True}
    with _no_fastpath():
        out = ref(src, **kwargs)
    tout = mod(tsrc, **{n: T(a) if isinstance(a, torch.Tensor) else a for n, a in kwargs.items()})
    close(tout, out)
    backward_both(out, tout)
    close(tsrc.grad, src.grad)
    assert_param_grads(mod, ref)


@pytest.mark.parametrize("case", LAYER_CASES)
def test_decoder_layer_matches_torch(case):
    torch.manual_seed(0)
    ref = torch.nn.TransformerDecoderLayer(D_MODEL, HEADS, FF, dropout=0.0, dtype=torch.float64,
                                           **_layer_kwargs(case, torch)).eval()
    mod = load_from_torch(nn.TransformerDecoderLayer(D_MODEL, HEADS, FF, dropout=0.0, dtype=tandem.float64,
                                                     **_layer_kwargs(case, tandem)), ref)
    batch_first = LAYER_CASES[case].get("batch_first", False)
    (tgt, ttgt), (mem, tmem) = leaf(_sequence(batch_first, L, 1)), leaf(_sequence(batch_first, S, 2))
    kwargs = {"tgt_mask": _mha_masks("causal", L, L), "tgt_is_causal": True,
              "memory_key_padding_mask": _mha_masks("bool", L, S), "tgt_key_padding_mask": _mha_masks("float", L, L)}
    out = ref(tgt, mem, **kwargs)
    tout = mod(ttgt, tmem, **{n: T(a) if isinstance(a, torch.Tensor) else a for n, a in kwargs.items()})
    close(tout, out)
    backward_both(out, tout)
    close(ttgt.grad, tgt.grad)
    close(tmem.grad, mem.grad)
    assert_param_grads(mod, ref)


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_matches_torch(batch_first, device):
    torch.manual_seed(0)
    ref = torch.nn.Transformer(D_MODEL, HEADS, 2, 2, FF, dropout=0.0, batch_first=batch_first,
                               dtype=torch.float64).eval()
    mod = load_from_torch(nn.Transformer(D_MODEL, HEADS, 2, 2, FF, dropout=0.0, batch_first=batch_first,
                                         dtype=tandem.float64), ref, device)
    (src, tsrc), (tgt, ttgt) = leaf(_sequence(batch_first, S, 1), device), leaf(_sequence(batch_first, L, 2), device)
    tgt_mask = torch.nn.Transformer.generate_square_subsequent_mask(L, dtype=torch.float64)
    kpm = _mha_masks("bool", L, S)
    with _no_fastpath():
        out = ref(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=kpm, memory_key_padding_mask=kpm)
    tout = mod(tsrc, ttgt, tgt_mask=T(tgt_mask, device), src_key_padding_mask=T(kpm, device),
               memory_key_padding_mask=T(kpm, device))
    close(tout, out)
    backward_both(out, tout)
    close(tsrc.grad, src.grad)
    close(ttgt.grad, tgt.grad)
    assert_param_grads(mod, ref)


def test_encoder_stack_causal_flag_and_unbatched():
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, dropout=0.0, dtype=torch.float64)
    ref = torch.nn.TransformerEncoder(layer, 2, norm=torch.nn.LayerNorm(D_MODEL, dtype=torch.float64),
                                      enable_nested_tensor=False).eval()
    tlayer = nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, dropout=0.0, dtype=tandem.float64)
    mod = load_from_torch(nn.TransformerEncoder(tlayer, 2, norm=nn.LayerNorm(D_MODEL, dtype=tandem.float64)), ref)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(L, dtype=torch.float64)
    for src in (randn(L, N, D_MODEL), randn(L, D_MODEL)):
        for is_causal in (None, True):
            with _no_fastpath():
                out = ref(src, mask=mask, is_causal=is_causal)
            close(mod(T(src), mask=T(mask), is_causal=is_causal), out)


def test_transformer_structure_and_helpers():
    ref = torch.nn.Transformer(D_MODEL, HEADS, 2, 1, FF)
    mod = nn.Transformer(D_MODEL, HEADS, 2, 1, FF)
    assert {n: tuple(p.shape) for n, p in mod.state_dict().items()} == \
        {n: tuple(p.shape) for n, p in ref.state_dict().items()}
    assert list(mod.state_dict()) == list(ref.state_dict())
    assert mod.encoder.layers[0].linear1.weight is not mod.encoder.layers[1].linear1.weight  # deep copies
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    close(mask, torch.nn.Transformer.generate_square_subsequent_mask(4))
    assert mask.dtype == tandem.float32
    x = tandem.randn(L, N, D_MODEL)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        mod(x, tandem.randn(L, N + 1, D_MODEL))
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        mod(x, tandem.randn(L, N, D_MODEL + 1))
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(D_MODEL, HEADS, activation="tanh")
    layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, dropout=0.5)
    assert copy.deepcopy(layer).self_attn.dropout == 0.5
    assert layer.training and not layer.eval().dropout1.training


# ---- EmbeddingBag --------------------------------------------------------------------------------------------
BAG_INPUTS = {
    "2d": (torch.tensor([[1, 2, 4, 5], [4, 3, 2, 9], [0, 0, 0, 0]]), None, {}),
    "offsets": (torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 7]), torch.tensor([0, 2, 2, 5]), {}),
    "last_offset": (torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 7]), torch.tensor([0, 3, 3, 9]),
                    {"include_last_offset": True}),
    "padding": (torch.tensor([1, 2, 4, 2, 2, 3, 2, 9, 7]), torch.tensor([0, 3, 5, 6]), {"padding_idx": 2}),
    "padding_2d": (torch.tensor([[1, 2, 4], [2, 2, 2], [0, 2, 9]]), None, {"padding_idx": -8}),
    "int32": (torch.tensor([1, 2, 4, 5, 4, 3], dtype=torch.int32), torch.tensor([0, 4], dtype=torch.int32), {}),
}


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("case", BAG_INPUTS)
def test_embedding_bag_matches_torch(case, mode, device):
    input, offsets, kwargs = BAG_INPUTS[case]
    weight, tweight = leaf(randn(10, 3), device)
    out = torch.nn.functional.embedding_bag(input, weight, offsets, mode=mode, **kwargs)
    tout = F.embedding_bag(T(input, device), tweight, T(offsets, device), mode=mode, **kwargs)
    close(tout, out)
    backward_both(out, tout)
    close(tweight.grad, weight.grad)


@pytest.mark.parametrize("case", ["2d", "offsets", "padding"])
def test_embedding_bag_per_sample_weights(case):
    input, offsets, kwargs = BAG_INPUTS[case]
    (weight, tweight), (psw, tpsw) = leaf(randn(10, 3)), leaf(randn(*input.shape, seed=5))
    out = torch.nn.functional.embedding_bag(input, weight, offsets, mode="sum", per_sample_weights=psw, **kwargs)
    tout = F.embedding_bag(T(input), tweight, T(offsets), mode="sum", per_sample_weights=tpsw, **kwargs)
    close(tout, out)
    backward_both(out, tout)
    close(tweight.grad, weight.grad)
    close(tpsw.grad, psw.grad)


# A recommender feeding NumPy's float64 per-sample weights into a float32 table (program sweep 'sweepgen'): PyTorch
# refuses the pair (no promotion to a float64 output), and an integer table.
@pytest.mark.parametrize("table, weights", [("float32", "float64"), ("float64", "float32"), ("bfloat16", "float32"),
                                            ("float32", "bool"), ("float32", "int64"), ("int64", None)])
def test_embedding_bag_refuses_weights_of_another_dtype(device, table, weights):
    input, offsets = torch.tensor([0, 2, 1, 3]), torch.tensor([0, 2])
    weight = torch.ones(4, 3, dtype=getattr(torch, table))
    psw = None if weights is None else torch.ones(4, dtype=getattr(torch, weights))
    want = _error(lambda: torch.nn.functional.embedding_bag(input, weight, offsets, mode="sum",
                                                            per_sample_weights=psw))
    tweight = tandem.ones(4, 3, dtype=getattr(tandem, table), device=device)  # (NumPy has no bfloat16 for T)
    tpsw = None if weights is None else tandem.ones(4, dtype=getattr(tandem, weights), device=device)
    with pytest.raises(RuntimeError) as got:
        F.embedding_bag(T(input, device), tweight, T(offsets, device), mode="sum", per_sample_weights=tpsw)
    first = str(got.value).splitlines()[0]
    if "cuda" in device:  # PyTorch names a CUDA tensor's type torch.cuda.FloatTensor / CUDABFloat16Type
        first = first.replace("tandem.cuda.", "tandem.").replace("CUDA", "CPU")
    assert (type(got.value), first) == want
    if weights is not None:
        assert str(got.value).splitlines()[1] == f"hint: give the weights the table's dtype, e.g. " \
                                                 f"per_sample_weights.to(tandem.{table})"
    # The module form, and the mode check that PyTorch makes first.
    bag = nn.EmbeddingBag(4, 3, mode="sum", dtype=getattr(tandem, table) if table != "int64" else None, device=device)
    if weights is not None:
        with pytest.raises(RuntimeError, match="to have the same type as tensor for argument #1 'per_sample_weights'"):
            bag(T(input, device), T(offsets, device), per_sample_weights=tpsw)
    with pytest.raises(NotImplementedError, match="per_sample_weights is only supported for mode='sum'"):
        F.embedding_bag(T(input, device), tweight, T(offsets, device), mode="mean",
                        per_sample_weights=T(torch.ones(4, dtype=torch.float64), device))


@pytest.mark.parametrize("dtype", ["float64", "float16"])
def test_embedding_bag_weights_of_the_tables_dtype_still_work(device, dtype):
    input, offsets = torch.tensor([0, 2, 1, 3, 3]), torch.tensor([0, 2])
    weight = torch.arange(12.0).reshape(4, 3).to(getattr(torch, dtype))
    psw = torch.tensor([0.5, 1.0, 2.0, 1.5, 1.0]).to(getattr(torch, dtype))
    want = torch.nn.functional.embedding_bag(input, weight, offsets, mode="sum", per_sample_weights=psw)
    got = F.embedding_bag(T(input, device), T(weight, device), T(offsets, device), mode="sum",
                          per_sample_weights=T(psw, device))
    assert got.dtype == getattr(tandem, dtype) and got.device == tandem.device(device)
    close(got.float(), want.float())


def test_embedding_bag_module_and_max_norm():
    torch.manual_seed(0)
    ref = torch.nn.EmbeddingBag(10, 3, max_norm=1.0, mode="sum", padding_idx=-1, dtype=torch.float64)
    mod = load_from_torch(nn.EmbeddingBag(10, 3, max_norm=1.0, mode="sum", padding_idx=-1, dtype=tandem.float64),
                          ref)
    assert repr(mod) == repr(ref) and mod.padding_idx == 9
    input, offsets = torch.tensor([1, 2, 9, 1, 7]), torch.tensor([0, 2])
    close(mod(T(input), T(offsets)), ref(input, offsets))
    close(mod.weight, ref.weight)  # the picked rows were renormalised in place
    fresh = nn.EmbeddingBag(6, 4, padding_idx=2)
    assert fresh.weight.select(0, 2).abs().sum().item() == 0 and repr(fresh) == repr(
        torch.nn.EmbeddingBag(6, 4, padding_idx=2))
    frozen = nn.EmbeddingBag.from_pretrained(T(randn(4, 2)), mode="max")
    assert not frozen.weight.requires_grad and frozen.mode == "max"


def test_embedding_bag_empty_bags_and_errors():
    weight = randn(6, 2)
    input = torch.tensor([1, 2, 3, 4, 5, 0])
    close(F.embedding_bag(T(input), T(weight), T(torch.tensor([0, 6, 6])), mode="max"),
          torch.nn.functional.embedding_bag(input, weight, torch.tensor([0, 6, 6]), mode="max"))
    # No bags at all (PyTorch 2.x crashes here for float64 weights, so the expected shape is written out).
    for offsets, kwargs in [(tandem.tensor([], dtype=tandem.int64), {}),
                            (tandem.tensor([0]), {"include_last_offset": True})]:
        assert tuple(F.embedding_bag(T(input), T(weight), offsets, **kwargs).shape) == (0, 2)
    cases = [
        ((input, weight, torch.tensor([1, 3])), {}),
        ((input, weight, torch.tensor([0, 7])), {}),
        ((input, weight, torch.tensor([0, 3])), {"padding_idx": 7}),
        ((input, weight, torch.tensor([0, 3])), {"per_sample_weights": torch.ones(6), "mode": "mean"}),
        ((input, weight, torch.tensor([0, 3])), {"per_sample_weights": torch.ones(5)}),
        ((input, weight, torch.tensor([0, 3])), {"mode": "foo"}),
        ((input, weight, torch.tensor([0, 3])), {"mode": "max", "scale_grad_by_freq": True}),
        ((input.float(), weight, torch.tensor([0, 3])), {}),
        ((input.reshape(2, 3), weight, torch.tensor([0, 3])), {}),
        ((input, weight, None), {}),
        ((input, weight[0], torch.tensor([0, 3])), {}),
    ]
    for args, kwargs in cases:
        targs = [T(a) for a in args]
        tkwargs = {n: T(a) if isinstance(a, torch.Tensor) else a for n, a in kwargs.items()}
        want = _error(lambda: torch.nn.functional.embedding_bag(*args, **kwargs))
        got = _error(lambda: F.embedding_bag(*targs, **tkwargs))
        assert got == want, kwargs
    with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
        nn.EmbeddingBag(6, 2, padding_idx=6)
