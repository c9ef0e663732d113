"""Transformers and F.multi_head_attention_forward with hostile arguments, beyond attention.py and nn_modules.py:
multi_head_attention_forward called directly (embed_dim_to_check against the input, projection weights of the wrong
size, separate projection weights, static_k/static_v, bias_k/bias_v, add_zero_attn with masks, dropout in eval,
out_proj missing), per-head 3-d masks, float/bool/int masks mixed with key_padding_mask, need_weights with
average_attn_weights, is_causal with and without masks, zero-length sequences and fully masked rows; and
nn.TransformerEncoderLayer/DecoderLayer/Encoder/Decoder/Transformer with d_model not divisible by nhead, masks of
the wrong shape or dtype, src/tgt batch or feature mismatches, batch_first mismatches, norm_first, activation
callables and strings, and generate_square_subsequent_mask with odd sizes. Modules run in training mode with
dropout 0 (PyTorch's fast path needs eval and no grad), their weights set deterministically by parameter name."""
from . import R


def F(L):
    return L.nn.functional


def seq(L, d, shape=(4, 2, 8), scale=1.0, dtype="float32"):
    return R(L, shape, d, dtype, scale)


def fixed(L, m, d):
    """The module's parameters set to the same values in both libraries (by name, in name order)."""
    for i, (name, p) in enumerate(sorted(m.named_parameters())):
        with L.no_grad():
            p.copy_(R(L, tuple(p.shape), "cpu", "float32", 0.3) + 0.01 * i)
    return m.to(d)


def weights(L, d, e=8, kdim=None, vdim=None, bias=True):
    """(in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias) of embedding size e."""
    return (R(L, (3 * e, e), d, "float32", 0.3), R(L, (3 * e,), d, "float32", 0.1) if bias else None,
            R(L, (e, e), d, "float32", 0.25), R(L, (e,), d, "float32", 0.05) if bias else None)


def mhaf(L, d, q=None, k=None, v=None, e=8, heads=2, w=None, **kw):
    """F.multi_head_attention_forward with default (packed) weights; kw overrides any argument."""
    q = seq(L, d) if q is None else q
    k = q if k is None else k
    v = k if v is None else v
    in_w, in_b, out_w, out_b = w or weights(L, d, e)
    args = dict(embed_dim_to_check=e, num_heads=heads, in_proj_weight=in_w, in_proj_bias=in_b, bias_k=None,
                bias_v=None, add_zero_attn=False, dropout_p=0.0, out_proj_weight=out_w, out_proj_bias=out_b,
                training=True)
    args.update(kw)
    return F(L).multi_head_attention_forward(q, k, v, **args)


def mask(L, d, shape, dtype="bool", fill=None):
    if dtype == "bool":
        return R(L, shape, d, "float32") > 3.0 if fill is None else L.full(shape, fill, dtype=L.bool, device=d)
    m = R(L, shape, d, "float32") > 3.0
    return (m.to(getattr(L, dtype)) * (-1e4 if dtype.startswith("float") else 1)) if fill is None else \
        L.full(shape, fill, dtype=getattr(L, dtype), device=d)


def mha(L, d, e=8, heads=2, **kw):
    return fixed(L, L.nn.MultiheadAttention(e, heads, **kw), d)


def enc_layer(L, d, e=8, heads=2, **kw):
    kw.setdefault("dim_feedforward", 16)
    kw.setdefault("dropout", 0.0)
    return fixed(L, L.nn.TransformerEncoderLayer(e, heads, **kw), d)


def dec_layer(L, d, e=8, heads=2, **kw):
    kw.setdefault("dim_feedforward", 16)
    kw.setdefault("dropout", 0.0)
    return fixed(L, L.nn.TransformerDecoderLayer(e, heads, **kw), d)


def transformer(L, d, e=8, heads=2, **kw):
    kw.setdefault("dim_feedforward", 16)
    kw.setdefault("dropout", 0.0)
    kw.setdefault("num_encoder_layers", 1)
    kw.setdefault("num_decoder_layers", 1)
    return fixed(L, L.nn.Transformer(e, heads, **kw), d)


def encoder(L, d, layers=2, norm=False, **kw):
    layer = L.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **kw)
    return fixed(L, L.nn.TransformerEncoder(layer, layers, norm=L.nn.LayerNorm(8) if norm else None,
                                            enable_nested_tensor=False), d)


def decoder(L, d, layers=2, **kw):
    layer = L.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **kw)
    return fixed(L, L.nn.TransformerDecoder(layer, layers), d)


def sep(L, d, e=8, kdim=5, vdim=6):
    """multi_head_attention_forward with separate projection weights (kdim/vdim)."""
    return dict(use_separate_proj_weight=True, in_proj_weight=None,
                q_proj_weight=R(L, (e, e), d, "float32", 0.3), k_proj_weight=R(L, (e, kdim), d, "float32", 0.2),
                v_proj_weight=R(L, (e, vdim), d, "float32", 0.25))


CASES = {
    # ---- multi_head_attention_forward: shapes and weights
    "mhaf/plain": lambda L, d: mhaf(L, d),
    "mhaf/weights_only": lambda L, d: mhaf(L, d)[1],
    "mhaf/need_weights_false": lambda L, d: mhaf(L, d, need_weights=False),
    "mhaf/per_head_weights": lambda L, d: mhaf(L, d, average_attn_weights=False),
    "mhaf/embed_check_wrong": lambda L, d: mhaf(L, d, embed_dim_to_check=6),
    "mhaf/heads_not_dividing": lambda L, d: mhaf(L, d, heads=3),
    "mhaf/heads_zero": lambda L, d: mhaf(L, d, heads=0),
    "mhaf/heads_negative": lambda L, d: mhaf(L, d, heads=-2),
    "mhaf/heads_equal_embed": lambda L, d: mhaf(L, d, heads=8),
    "mhaf/in_proj_weight_short": lambda L, d: mhaf(L, d, in_proj_weight=R(L, (16, 8), d, "float32", 0.3)),
    "mhaf/in_proj_weight_none_packed": lambda L, d: mhaf(L, d, in_proj_weight=None),
    "mhaf/in_proj_bias_short": lambda L, d: mhaf(L, d, in_proj_bias=R(L, (20,), d, "float32", 0.1)),
    "mhaf/in_proj_bias_none": lambda L, d: mhaf(L, d, in_proj_bias=None),
    "mhaf/out_proj_bias_none": lambda L, d: mhaf(L, d, out_proj_bias=None),
    "mhaf/out_proj_weight_wrong": lambda L, d: mhaf(L, d, out_proj_weight=R(L, (8, 6), d, "float32", 0.3)),
    "mhaf/query_embed_wrong": lambda L, d: mhaf(L, d, q=seq(L, d, (4, 2, 6))),
    "mhaf/key_value_shapes_differ": lambda L, d: mhaf(L, d, k=seq(L, d, (5, 2, 8)), v=seq(L, d, (4, 2, 8))),
    "mhaf/key_batch_differs": lambda L, d: mhaf(L, d, k=seq(L, d, (4, 3, 8))),
    "mhaf/key_longer": lambda L, d: mhaf(L, d, k=seq(L, d, (6, 2, 8))),
    "mhaf/unbatched": lambda L, d: mhaf(L, d, q=seq(L, d, (4, 8))),
    "mhaf/unbatched_key_3d": lambda L, d: mhaf(L, d, q=seq(L, d, (4, 8)), k=seq(L, d)),
    "mhaf/query_4d": lambda L, d: mhaf(L, d, q=seq(L, d, (1, 4, 2, 8))),
    "mhaf/query_1d": lambda L, d: mhaf(L, d, q=seq(L, d, (8,))),
    "mhaf/float64_input": lambda L, d: mhaf(L, d, q=seq(L, d, dtype="float64")),
    "mhaf/empty_query": lambda L, d: mhaf(L, d, q=seq(L, d, (0, 2, 8)), k=seq(L, d)),
    "mhaf/empty_keys": lambda L, d: mhaf(L, d, k=seq(L, d, (0, 2, 8))),
    "mhaf/empty_batch": lambda L, d: mhaf(L, d, q=seq(L, d, (4, 0, 8))),
    "mhaf/dropout_eval": lambda L, d: mhaf(L, d, dropout_p=0.9, training=False),
    "mhaf/dropout_1_train": lambda L, d: mhaf(L, d, dropout_p=1.0),
    "mhaf/dropout_negative_eval": lambda L, d: mhaf(L, d, dropout_p=-0.5, training=False),
    # ---- separate projection weights
    "mhaf/separate": lambda L, d: mhaf(L, d, k=seq(L, d, (5, 2, 5)), v=seq(L, d, (5, 2, 6)), **sep(L, d)),
    "mhaf/separate_q_missing": lambda L, d: mhaf(L, d, k=seq(L, d, (5, 2, 5)), v=seq(L, d, (5, 2, 6)),
                                                 **dict(sep(L, d), q_proj_weight=None)),
    "mhaf/separate_k_missing": lambda L, d: mhaf(L, d, k=seq(L, d, (5, 2, 5)), v=seq(L, d, (5, 2, 6)),
                                                 **dict(sep(L, d), k_proj_weight=None)),
    "mhaf/separate_k_wrong": lambda L, d: mhaf(L, d, k=seq(L, d, (5, 2, 4)), v=seq(L, d, (5, 2, 6)), **sep(L, d)),
    "mhaf/separate_kv_len_differ": lambda L, d: mhaf(L, d, k=seq(L, d, (5, 2, 5)), v=seq(L, d, (6, 2, 6)),
                                                     **sep(L, d)),
    "mhaf/separate_batch_differ": lambda L, d: mhaf(L, d, k=seq(L, d, (5, 3, 5)), v=seq(L, d, (5, 3, 6)),
                                                    **sep(L, d)),
    "mhaf/separate_no_bias": lambda L, d: mhaf(L, d, k=seq(L, d, (5, 2, 5)), v=seq(L, d, (5, 2, 6)),
                                               **dict(sep(L, d), in_proj_bias=None)),
    "mhaf/packed_kdim_mismatch": lambda L, d: mhaf(L, d, k=seq(L, d, (5, 2, 5)), v=seq(L, d, (5, 2, 5))),
    # ---- bias_k / bias_v / add_zero_attn
    "mhaf/bias_kv": lambda L, d: mhaf(L, d, bias_k=R(L, (1, 1, 8), d, "float32", 0.2),
                                      bias_v=R(L, (1, 1, 8), d, "float32", 0.3)),
    "mhaf/bias_k_only": lambda L, d: mhaf(L, d, bias_k=R(L, (1, 1, 8), d, "float32", 0.2)),
    "mhaf/bias_kv_with_masks": lambda L, d: mhaf(L, d, bias_k=R(L, (1, 1, 8), d, "float32", 0.2),
                                                 bias_v=R(L, (1, 1, 8), d, "float32", 0.3),
                                                 attn_mask=mask(L, d, (4, 4)), key_padding_mask=mask(L, d, (2, 4))),
    "mhaf/bias_kv_wrong_shape": lambda L, d: mhaf(L, d, bias_k=R(L, (1, 1, 6), d, "float32", 0.2),
                                                  bias_v=R(L, (1, 1, 6), d, "float32", 0.3)),
    "mhaf/add_zero_attn": lambda L, d: mhaf(L, d, add_zero_attn=True),
    "mhaf/add_zero_attn_masks": lambda L, d: mhaf(L, d, add_zero_attn=True, attn_mask=mask(L, d, (4, 4)),
                                                  key_padding_mask=mask(L, d, (2, 4))),
    "mhaf/add_zero_attn_all_masked": lambda L, d: mhaf(L, d, add_zero_attn=True,
                                                       key_padding_mask=mask(L, d, (2, 4), fill=True)),
    # ---- static_k / static_v
    "mhaf/static_kv": lambda L, d: mhaf(L, d, static_k=R(L, (4, 5, 4), d, "float32", 0.5),
                                        static_v=R(L, (4, 5, 4), d, "float32", 0.4)),
    "mhaf/static_k_wrong_heads": lambda L, d: mhaf(L, d, static_k=R(L, (2, 4, 4), d, "float32", 0.5)),
    "mhaf/static_k_wrong_head_dim": lambda L, d: mhaf(L, d, static_k=R(L, (4, 4, 3), d, "float32", 0.5)),
    "mhaf/static_v_wrong_heads": lambda L, d: mhaf(L, d, static_v=R(L, (3, 4, 4), d, "float32", 0.5)),
    "mhaf/static_k_with_bias_k": lambda L, d: mhaf(L, d, static_k=R(L, (4, 4, 4), d, "float32", 0.5),
                                                   bias_k=R(L, (1, 1, 8), d, "float32", 0.2),
                                                   bias_v=R(L, (1, 1, 8), d, "float32", 0.3)),
    # ---- masks
    "mhaf/attn_mask_bool": lambda L, d: mhaf(L, d, attn_mask=mask(L, d, (4, 4))),
    "mhaf/attn_mask_float": lambda L, d: mhaf(L, d, attn_mask=mask(L, d, (4, 4), "float32")),
    "mhaf/attn_mask_float64": lambda L, d: mhaf(L, d, attn_mask=mask(L, d, (4, 4), "float64")),
    "mhaf/attn_mask_int": lambda L, d: mhaf(L, d, attn_mask=mask(L, d, (4, 4), "int64")),
    "mhaf/attn_mask_uint8": lambda L, d: mhaf(L, d, attn_mask=mask(L, d, (4, 4), "uint8")),
    "mhaf/attn_mask_half": lambda L, d: mhaf(L, d, attn_mask=mask(L, d, (4, 4), "float16")),
    "mhaf/attn_mask_per_head": lambda L, d: mhaf(L, d, attn_mask=mask(L, d, (4, 4, 4))),
    "mhaf/attn_mask_per_head_wrong": lambda L, d: mhaf(L, d, attn_mask=mask(L, d, (2, 4, 4))),
    "mhaf/attn_mask_4d": lambda L, d: mhaf(L, d, attn_mask=mask(L, d, (2, 2, 4, 4))),
    "mhaf/attn_mask_1d": lambda L, d: mhaf(L, d, attn_mask=mask(L, d, (4,))),
    "mhaf/attn_mask_wrong_2d": lambda L, d: mhaf(L, d, attn_mask=mask(L, d, (4, 5))),
    "mhaf/attn_mask_longer_keys": lambda L, d: mhaf(L, d, k=seq(L, d, (6, 2, 8)), attn_mask=mask(L, d, (4, 6))),
    "mhaf/attn_mask_all_true": lambda L, d: mhaf(L, d, attn_mask=mask(L, d, (4, 4), fill=True)),
    "mhaf/attn_mask_all_neg_inf": lambda L, d: mhaf(L, d, attn_mask=L.full((4, 4), float("-inf"), device=d)),
    "mhaf/attn_mask_nan": lambda L, d: mhaf(L, d, attn_mask=L.full((4, 4), float("nan"), device=d)),
    "mhaf/kpm_bool": lambda L, d: mhaf(L, d, key_padding_mask=mask(L, d, (2, 4))),
    "mhaf/kpm_float": lambda L, d: mhaf(L, d, key_padding_mask=mask(L, d, (2, 4), "float32")),
    "mhaf/kpm_int": lambda L, d: mhaf(L, d, key_padding_mask=mask(L, d, (2, 4), "int32")),
    "mhaf/kpm_wrong_batch": lambda L, d: mhaf(L, d, key_padding_mask=mask(L, d, (3, 4))),
    "mhaf/kpm_wrong_len": lambda L, d: mhaf(L, d, key_padding_mask=mask(L, d, (2, 5))),
    "mhaf/kpm_3d": lambda L, d: mhaf(L, d, key_padding_mask=mask(L, d, (2, 1, 4))),
    "mhaf/kpm_unbatched_1d": lambda L, d: mhaf(L, d, q=seq(L, d, (4, 8)), key_padding_mask=mask(L, d, (4,))),
    "mhaf/kpm_unbatched_2d": lambda L, d: mhaf(L, d, q=seq(L, d, (4, 8)), key_padding_mask=mask(L, d, (1, 4))),
    "mhaf/unbatched_attn_3d": lambda L, d: mhaf(L, d, q=seq(L, d, (4, 8)), attn_mask=mask(L, d, (2, 4, 4))),
    "mhaf/unbatched_attn_3d_wrong": lambda L, d: mhaf(L, d, q=seq(L, d, (4, 8)), attn_mask=mask(L, d, (3, 4, 4))),
    "mhaf/kpm_all_masked": lambda L, d: mhaf(L, d, key_padding_mask=mask(L, d, (2, 4), fill=True)),
    "mhaf/kpm_all_masked_no_weights": lambda L, d: mhaf(L, d, key_padding_mask=mask(L, d, (2, 4), fill=True),
                                                        need_weights=False),
    "mhaf/kpm_bool_attn_float": lambda L, d: mhaf(L, d, key_padding_mask=mask(L, d, (2, 4)),
                                                  attn_mask=mask(L, d, (4, 4), "float32")),
    "mhaf/kpm_float_attn_bool": lambda L, d: mhaf(L, d, key_padding_mask=mask(L, d, (2, 4), "float32"),
                                                  attn_mask=mask(L, d, (4, 4))),
    "mhaf/kpm_float64_attn_float32": lambda L, d: mhaf(L, d, key_padding_mask=mask(L, d, (2, 4), "float64"),
                                                       attn_mask=mask(L, d, (4, 4), "float32")),
    "mhaf/kpm_int_attn_int": lambda L, d: mhaf(L, d, key_padding_mask=mask(L, d, (2, 4), "int64"),
                                               attn_mask=mask(L, d, (4, 4), "int64")),
    "mhaf/is_causal_no_mask": lambda L, d: mhaf(L, d, is_causal=True),
    "mhaf/is_causal_no_mask_no_weights": lambda L, d: mhaf(L, d, is_causal=True, need_weights=False),
    "mhaf/is_causal_with_mask": lambda L, d: mhaf(L, d, is_causal=True,
                                                  attn_mask=L.ones(4, 4, dtype=L.bool, device=d).triu(1)),
    "mhaf/is_causal_with_mask_no_weights": lambda L, d: mhaf(L, d, is_causal=True, need_weights=False,
                                                             attn_mask=L.ones(4, 4, dtype=L.bool,
                                                                              device=d).triu(1)),
    "mhaf/is_causal_with_kpm": lambda L, d: mhaf(L, d, is_causal=True, need_weights=False,
                                                 key_padding_mask=mask(L, d, (2, 4))),
    "mhaf/grad": lambda L, d: _grad(L, d),
    # ---- MultiheadAttention module: beyond attention.py
    "mha/per_head_mask_module": lambda L, d: mha(L, d)(*[seq(L, d)] * 3, attn_mask=mask(L, d, (4, 4, 4))),
    "mha/batch_first_kpm": lambda L, d: mha(L, d, batch_first=True)(*[seq(L, d, (2, 4, 8))] * 3,
                                                                    key_padding_mask=mask(L, d, (2, 4))),
    "mha/batch_first_wrong_layout": lambda L, d: mha(L, d, batch_first=True)(*[seq(L, d, (4, 2, 8))] * 3,
                                                                             key_padding_mask=mask(L, d, (2, 4))),
    "mha/kdim_vdim_batch_first": lambda L, d: mha(L, d, kdim=5, vdim=6, batch_first=True)(
        seq(L, d, (2, 4, 8)), seq(L, d, (2, 3, 5)), seq(L, d, (2, 3, 6))),
    "mha/kdim_only": lambda L, d: mha(L, d, kdim=5)(seq(L, d), seq(L, d, (3, 2, 5)), seq(L, d, (3, 2, 8))),
    "mha/kdim_equals_embed": lambda L, d: mha(L, d, kdim=8, vdim=8)(*[seq(L, d)] * 3),
    "mha/add_bias_kv_kpm": lambda L, d: mha(L, d, add_bias_kv=True)(*[seq(L, d)] * 3,
                                                                    key_padding_mask=mask(L, d, (2, 4))),
    "mha/add_zero_attn_kpm": lambda L, d: mha(L, d, add_zero_attn=True)(*[seq(L, d)] * 3,
                                                                        key_padding_mask=mask(L, d, (2, 4))),
    "mha/embed_zero": lambda L, d: L.nn.MultiheadAttention(0, 1),
    "mha/embed_negative": lambda L, d: L.nn.MultiheadAttention(-4, 2),
    "mha/heads_float": lambda L, d: L.nn.MultiheadAttention(8, 2.0).head_dim,
    "mha/embed_float": lambda L, d: L.nn.MultiheadAttention(8.0, 2),
    "mha/need_weights_false_per_head": lambda L, d: mha(L, d)(*[seq(L, d)] * 3, need_weights=False,
                                                              average_attn_weights=False),
    "mha/double_module_float_input": lambda L, d: mha(L, d).double()(*[seq(L, d)] * 3),
    "mha/state_dict_keys": lambda L, d: sorted(mha(L, d, kdim=5, vdim=6, add_bias_kv=True).state_dict()),
    # ---- generate_square_subsequent_mask
    "square_mask/4": lambda L, d: L.nn.Transformer.generate_square_subsequent_mask(4, device=d),
    "square_mask/0": lambda L, d: L.nn.Transformer.generate_square_subsequent_mask(0, device=d),
    "square_mask/1": lambda L, d: L.nn.Transformer.generate_square_subsequent_mask(1, device=d),
    "square_mask/negative": lambda L, d: L.nn.Transformer.generate_square_subsequent_mask(-2, device=d),
    "square_mask/float64": lambda L, d: L.nn.Transformer.generate_square_subsequent_mask(3, device=d,
                                                                                         dtype=L.float64),
    "square_mask/float_size": lambda L, d: L.nn.Transformer.generate_square_subsequent_mask(3.0, device=d),
    # ---- TransformerEncoderLayer
    "enc_layer/plain": lambda L, d: enc_layer(L, d)(seq(L, d)),
    "enc_layer/batch_first": lambda L, d: enc_layer(L, d, batch_first=True)(seq(L, d, (2, 4, 8))),
    "enc_layer/norm_first": lambda L, d: enc_layer(L, d, norm_first=True)(seq(L, d)),
    "enc_layer/gelu": lambda L, d: enc_layer(L, d, activation="gelu")(seq(L, d)),
    "enc_layer/callable_activation": lambda L, d: enc_layer(L, d, activation=L.tanh)(seq(L, d)),
    "enc_layer/module_activation": lambda L, d: enc_layer(L, d, activation=L.nn.GELU())(seq(L, d)),
    "enc_layer/activation_none": lambda L, d: enc_layer(L, d, activation=None)(seq(L, d)),
    "enc_layer/bias_false": lambda L, d: enc_layer(L, d, bias=False)(seq(L, d)),
    "enc_layer/eps_zero": lambda L, d: enc_layer(L, d, layer_norm_eps=0.0)(seq(L, d)),
    "enc_layer/wrong_features": lambda L, d: enc_layer(L, d)(seq(L, d, (4, 2, 6))),
    "enc_layer/unbatched": lambda L, d: enc_layer(L, d)(seq(L, d, (4, 8))),
    "enc_layer/4d_input": lambda L, d: enc_layer(L, d)(seq(L, d, (1, 4, 2, 8))),
    "enc_layer/empty_seq": lambda L, d: enc_layer(L, d)(seq(L, d, (0, 2, 8))),
    "enc_layer/mask_bool": lambda L, d: enc_layer(L, d)(seq(L, d), src_mask=mask(L, d, (4, 4))),
    "enc_layer/mask_float": lambda L, d: enc_layer(L, d)(seq(L, d), src_mask=mask(L, d, (4, 4), "float32")),
    "enc_layer/mask_int": lambda L, d: enc_layer(L, d)(seq(L, d), src_mask=mask(L, d, (4, 4), "int64")),
    "enc_layer/mask_wrong_shape": lambda L, d: enc_layer(L, d)(seq(L, d), src_mask=mask(L, d, (4, 3))),
    "enc_layer/mask_per_head": lambda L, d: enc_layer(L, d)(seq(L, d), src_mask=mask(L, d, (4, 4, 4))),
    "enc_layer/kpm": lambda L, d: enc_layer(L, d)(seq(L, d), src_key_padding_mask=mask(L, d, (2, 4))),
    "enc_layer/kpm_float_mask_bool": lambda L, d: enc_layer(L, d)(
        seq(L, d), src_mask=mask(L, d, (4, 4)), src_key_padding_mask=mask(L, d, (2, 4), "float32")),
    "enc_layer/kpm_wrong_shape": lambda L, d: enc_layer(L, d)(seq(L, d), src_key_padding_mask=mask(L, d, (4, 2))),
    "enc_layer/kpm_all_masked": lambda L, d: enc_layer(L, d)(seq(L, d), src_key_padding_mask=mask(L, d, (2, 4),
                                                                                                  fill=True)),
    "enc_layer/is_causal_no_mask": lambda L, d: enc_layer(L, d)(seq(L, d), is_causal=True),
    "enc_layer/is_causal_with_mask": lambda L, d: enc_layer(L, d)(
        seq(L, d), src_mask=L.nn.Transformer.generate_square_subsequent_mask(4, device=d), is_causal=True),
    "enc_layer/float64_input": lambda L, d: enc_layer(L, d)(seq(L, d, dtype="float64")),
    "enc_layer/heads_not_dividing": lambda L, d: L.nn.TransformerEncoderLayer(8, 3),
    "enc_layer/ff_zero": lambda L, d: enc_layer(L, d, dim_feedforward=0)(seq(L, d)),
    "enc_layer/dropout_negative": lambda L, d: L.nn.TransformerEncoderLayer(8, 2, dropout=-0.1),
    # ---- TransformerDecoderLayer
    "dec_layer/plain": lambda L, d: dec_layer(L, d)(seq(L, d), seq(L, d, (5, 2, 8), 0.7)),
    "dec_layer/norm_first": lambda L, d: dec_layer(L, d, norm_first=True)(seq(L, d), seq(L, d, (5, 2, 8), 0.7)),
    "dec_layer/memory_features_wrong": lambda L, d: dec_layer(L, d)(seq(L, d), seq(L, d, (5, 2, 6))),
    "dec_layer/memory_batch_wrong": lambda L, d: dec_layer(L, d)(seq(L, d), seq(L, d, (5, 3, 8))),
    "dec_layer/memory_unbatched_tgt_batched": lambda L, d: dec_layer(L, d)(seq(L, d), seq(L, d, (5, 8))),
    "dec_layer/unbatched": lambda L, d: dec_layer(L, d)(seq(L, d, (4, 8)), seq(L, d, (5, 8))),
    "dec_layer/tgt_mask_causal": lambda L, d: dec_layer(L, d)(
        seq(L, d), seq(L, d, (5, 2, 8)), tgt_mask=L.nn.Transformer.generate_square_subsequent_mask(4, device=d)),
    "dec_layer/tgt_is_causal_no_mask": lambda L, d: dec_layer(L, d)(seq(L, d), seq(L, d, (5, 2, 8)),
                                                                    tgt_is_causal=True),
    "dec_layer/memory_mask": lambda L, d: dec_layer(L, d)(seq(L, d), seq(L, d, (5, 2, 8)),
                                                          memory_mask=mask(L, d, (4, 5))),
    "dec_layer/memory_mask_wrong": lambda L, d: dec_layer(L, d)(seq(L, d), seq(L, d, (5, 2, 8)),
                                                                memory_mask=mask(L, d, (5, 4))),
    "dec_layer/memory_kpm": lambda L, d: dec_layer(L, d)(seq(L, d), seq(L, d, (5, 2, 8)),
                                                         memory_key_padding_mask=mask(L, d, (2, 5))),
    "dec_layer/memory_kpm_wrong": lambda L, d: dec_layer(L, d)(seq(L, d), seq(L, d, (5, 2, 8)),
                                                               memory_key_padding_mask=mask(L, d, (2, 4))),
    "dec_layer/tgt_kpm_float": lambda L, d: dec_layer(L, d)(seq(L, d), seq(L, d, (5, 2, 8)),
                                                            tgt_key_padding_mask=mask(L, d, (2, 4), "float32")),
    "dec_layer/memory_is_causal_square": lambda L, d: dec_layer(L, d)(seq(L, d), seq(L, d),
                                                                      memory_is_causal=True),
    "dec_layer/empty_memory": lambda L, d: dec_layer(L, d)(seq(L, d), seq(L, d, (0, 2, 8))),
    "dec_layer/batch_first": lambda L, d: dec_layer(L, d, batch_first=True)(seq(L, d, (2, 4, 8)),
                                                                            seq(L, d, (2, 5, 8))),
    # ---- TransformerEncoder / TransformerDecoder stacks
    "encoder/plain": lambda L, d: encoder(L, d)(seq(L, d)),
    "encoder/norm": lambda L, d: encoder(L, d, norm=True)(seq(L, d)),
    "encoder/zero_layers": lambda L, d: encoder(L, d, layers=0)(seq(L, d)),
    "encoder/negative_layers": lambda L, d: len(encoder(L, d, layers=-1).layers),
    "encoder/mask_and_kpm": lambda L, d: encoder(L, d)(seq(L, d), mask=mask(L, d, (4, 4)),
                                                       src_key_padding_mask=mask(L, d, (2, 4))),
    "encoder/kpm_float_mask_bool": lambda L, d: encoder(L, d)(seq(L, d), mask=mask(L, d, (4, 4)),
                                                              src_key_padding_mask=mask(L, d, (2, 4), "float32")),
    "encoder/kpm_int": lambda L, d: encoder(L, d)(seq(L, d), src_key_padding_mask=mask(L, d, (2, 4), "int64")),
    "encoder/is_causal_no_mask": lambda L, d: encoder(L, d)(seq(L, d), is_causal=True),
    "encoder/is_causal_mask": lambda L, d: encoder(L, d)(
        seq(L, d), mask=L.nn.Transformer.generate_square_subsequent_mask(4, device=d), is_causal=True),
    "encoder/wrong_features": lambda L, d: encoder(L, d)(seq(L, d, (4, 2, 5))),
    "decoder/plain": lambda L, d: decoder(L, d)(seq(L, d), seq(L, d, (5, 2, 8), 0.7)),
    "decoder/tgt_is_causal_mask": lambda L, d: decoder(L, d)(
        seq(L, d), seq(L, d, (5, 2, 8)), tgt_mask=L.nn.Transformer.generate_square_subsequent_mask(4, device=d),
        tgt_is_causal=True),
    "decoder/zero_layers": lambda L, d: decoder(L, d, layers=0)(seq(L, d), seq(L, d, (5, 2, 8))),
    # ---- Transformer
    "transformer/plain": lambda L, d: transformer(L, d)(seq(L, d, (5, 2, 8)), seq(L, d)),
    "transformer/batch_first": lambda L, d: transformer(L, d, batch_first=True)(seq(L, d, (2, 5, 8)),
                                                                                seq(L, d, (2, 4, 8))),
    "transformer/batch_mismatch": lambda L, d: transformer(L, d)(seq(L, d, (5, 3, 8)), seq(L, d)),
    "transformer/batch_first_mismatch": lambda L, d: transformer(L, d, batch_first=True)(seq(L, d, (3, 5, 8)),
                                                                                         seq(L, d, (2, 4, 8))),
    "transformer/feature_mismatch": lambda L, d: transformer(L, d)(seq(L, d, (5, 2, 6)), seq(L, d, (4, 2, 6))),
    "transformer/src_tgt_features_differ": lambda L, d: transformer(L, d)(seq(L, d, (5, 2, 8)),
                                                                          seq(L, d, (4, 2, 6))),
    "transformer/unbatched": lambda L, d: transformer(L, d)(seq(L, d, (5, 8)), seq(L, d, (4, 8))),
    "transformer/unbatched_mixed": lambda L, d: transformer(L, d)(seq(L, d, (5, 8)), seq(L, d)),
    "transformer/tgt_mask": lambda L, d: transformer(L, d)(
        seq(L, d, (5, 2, 8)), seq(L, d), tgt_mask=L.nn.Transformer.generate_square_subsequent_mask(4, device=d)),
    "transformer/tgt_mask_wrong": lambda L, d: transformer(L, d)(seq(L, d, (5, 2, 8)), seq(L, d),
                                                                 tgt_mask=mask(L, d, (5, 5))),
    "transformer/src_mask_wrong": lambda L, d: transformer(L, d)(seq(L, d, (5, 2, 8)), seq(L, d),
                                                                 src_mask=mask(L, d, (4, 4))),
    "transformer/memory_mask": lambda L, d: transformer(L, d)(seq(L, d, (5, 2, 8)), seq(L, d),
                                                              memory_mask=mask(L, d, (4, 5))),
    "transformer/kpms": lambda L, d: transformer(L, d)(seq(L, d, (5, 2, 8)), seq(L, d),
                                                       src_key_padding_mask=mask(L, d, (2, 5)),
                                                       tgt_key_padding_mask=mask(L, d, (2, 4)),
                                                       memory_key_padding_mask=mask(L, d, (2, 5))),
    "transformer/src_kpm_wrong": lambda L, d: transformer(L, d)(seq(L, d, (5, 2, 8)), seq(L, d),
                                                                src_key_padding_mask=mask(L, d, (2, 4))),
    "transformer/tgt_is_causal_no_mask": lambda L, d: transformer(L, d)(seq(L, d, (5, 2, 8)), seq(L, d),
                                                                        tgt_is_causal=True),
    "transformer/heads_not_dividing": lambda L, d: L.nn.Transformer(8, 3, 1, 1, 16),
    "transformer/custom_encoder": lambda L, d: transformer(L, d, custom_encoder=L.nn.Identity())(
        seq(L, d, (5, 2, 8)), seq(L, d)),
    "transformer/zero_layers": lambda L, d: transformer(L, d, num_encoder_layers=0, num_decoder_layers=0)(
        seq(L, d, (5, 2, 8)), seq(L, d)),
    "transformer/float64": lambda L, d: transformer(L, d).double()(seq(L, d, (5, 2, 8), dtype="float64"),
                                                                   seq(L, d, dtype="float64")),
    "transformer/param_count": lambda L, d: sum(p.numel() for p in transformer(L, d).parameters()),
}


def fast(L, d, module, *args, **kw):
    """The module in eval mode under no_grad with batch_first inputs: PyTorch's fused fast path where its
    conditions hold (tandem matches its results, including the zeroed padded rows of the nested path)."""
    module.eval()
    with L.no_grad():
        return module(*args, **kw)


CASES.update({
    "fast/mha_self": lambda L, d: fast(L, d, mha(L, d, batch_first=True), *[seq(L, d, (2, 4, 8))] * 3),
    "fast/mha_self_kpm": lambda L, d: fast(L, d, mha(L, d, batch_first=True), *[seq(L, d, (2, 4, 8))] * 3,
                                           key_padding_mask=mask(L, d, (2, 4))),
    "fast/mha_self_kpm_all_masked": lambda L, d: fast(L, d, mha(L, d, batch_first=True),
                                                      *[seq(L, d, (2, 4, 8))] * 3,
                                                      key_padding_mask=mask(L, d, (2, 4), fill=True)),
    "fast/mha_self_kpm_float": lambda L, d: fast(L, d, mha(L, d, batch_first=True), *[seq(L, d, (2, 4, 8))] * 3,
                                                 key_padding_mask=mask(L, d, (2, 4), "float32")),
    "fast/mha_self_attn_mask": lambda L, d: fast(L, d, mha(L, d, batch_first=True), *[seq(L, d, (2, 4, 8))] * 3,
                                                 attn_mask=mask(L, d, (4, 4))),
    "fast/mha_self_both_masks": lambda L, d: fast(L, d, mha(L, d, batch_first=True), *[seq(L, d, (2, 4, 8))] * 3,
                                                  attn_mask=mask(L, d, (4, 4)), key_padding_mask=mask(L, d, (2, 4))),
    "fast/mha_no_weights": lambda L, d: fast(L, d, mha(L, d, batch_first=True), *[seq(L, d, (2, 4, 8))] * 3,
                                             need_weights=False),
    "fast/mha_cross": lambda L, d: fast(L, d, mha(L, d, batch_first=True), seq(L, d, (2, 4, 8)),
                                        seq(L, d, (2, 5, 8)), seq(L, d, (2, 5, 8))),
    "fast/mha_wrong_embed": lambda L, d: fast(L, d, mha(L, d, batch_first=True), *[seq(L, d, (2, 4, 6))] * 3),
    "fast/mha_unbatched": lambda L, d: fast(L, d, mha(L, d, batch_first=True), *[seq(L, d, (4, 8))] * 3),
    "fast/mha_empty_batch": lambda L, d: fast(L, d, mha(L, d, batch_first=True), *[seq(L, d, (0, 4, 8))] * 3),
    "fast/enc_layer": lambda L, d: fast(L, d, enc_layer(L, d, batch_first=True), seq(L, d, (2, 4, 8))),
    "fast/enc_layer_kpm": lambda L, d: fast(L, d, enc_layer(L, d, batch_first=True), seq(L, d, (2, 4, 8)),
                                            src_key_padding_mask=mask(L, d, (2, 4))),
    "fast/enc_layer_kpm_all_masked": lambda L, d: fast(L, d, enc_layer(L, d, batch_first=True), seq(L, d, (2, 4, 8)),
                                                       src_key_padding_mask=mask(L, d, (2, 4), fill=True)),
    "fast/enc_layer_mask": lambda L, d: fast(L, d, enc_layer(L, d, batch_first=True), seq(L, d, (2, 4, 8)),
                                             src_mask=mask(L, d, (4, 4))),
    "fast/enc_layer_gelu_norm_first": lambda L, d: fast(L, d, enc_layer(L, d, batch_first=True, norm_first=True,
                                                                        activation="gelu"), seq(L, d, (2, 4, 8))),
    "fast/enc_layer_kpm_float": lambda L, d: fast(L, d, enc_layer(L, d, batch_first=True), seq(L, d, (2, 4, 8)),
                                                  src_key_padding_mask=mask(L, d, (2, 4), "float32")),
    "fast/enc_layer_wrong_features": lambda L, d: fast(L, d, enc_layer(L, d, batch_first=True),
                                                       seq(L, d, (2, 4, 6))),
    "fast/encoder_nested_kpm": lambda L, d: fast(L, d, _encoder_nested(L, d), seq(L, d, (2, 4, 8)),
                                                 src_key_padding_mask=T_kpm(L, d)),
    "fast/encoder_nested_kpm_all_masked_row": lambda L, d: fast(L, d, _encoder_nested(L, d), seq(L, d, (2, 4, 8)),
                                                                src_key_padding_mask=T_kpm(L, d, [[0, 0, 1, 1],
                                                                                                  [1, 1, 1, 1]])),
    "fast/encoder_nested_kpm_wrong": lambda L, d: fast(L, d, _encoder_nested(L, d), seq(L, d, (2, 4, 8)),
                                                       src_key_padding_mask=T_kpm(L, d, [[0, 0, 1], [0, 1, 1]])),
    "fast/encoder_nested_mask_and_kpm": lambda L, d: fast(L, d, _encoder_nested(L, d), seq(L, d, (2, 4, 8)),
                                                          mask=mask(L, d, (4, 4)), src_key_padding_mask=T_kpm(L, d)),
})


def T_kpm(L, d, values=((0, 0, 1, 1), (0, 0, 0, 1))):
    return L.tensor([list(r) for r in values], dtype=L.bool, device=d)


def _encoder_nested(L, d):
    layer = L.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
    return fixed(L, L.nn.TransformerEncoder(layer, 2, enable_nested_tensor=True), d)


def _grad(L, d):
    q = seq(L, d).requires_grad_()
    out, _ = mhaf(L, d, q=q)
    out.sum().backward()
    return q.grad


KNOWN = {}
