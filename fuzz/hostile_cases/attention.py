"""Attention: F.scaled_dot_product_attention with masks of the wrong dtype, shape or device, is_causal next to a mask,
scale, enable_gqa, dropout_p out of range, empty sequences and fully masked (NaN) rows; nn.MultiheadAttention with
key_padding_mask types, need_weights/average_attn_weights, batch_first, kdim/vdim and all-masked rows; and
flex_attention where present."""
from . import R, Case


def q(L, d, shape=(2, 3, 4, 8), dtype="float32"):
    return R(L, shape, d, dtype, 1.0)


def sdpa(L, *args, **kw):
    return L.nn.functional.scaled_dot_product_attention(*args, **kw)


def qkv(L, d, lq=4, lk=5, dtype="float32", heads=3, kv_heads=None, e=8, ev=8):
    kv_heads = kv_heads or heads
    return (R(L, (2, heads, lq, e), d, dtype, 1.0), R(L, (2, kv_heads, lk, e), d, dtype, 0.7) * 0.9,
            R(L, (2, kv_heads, lk, ev), d, dtype, 1.3) + 0.1)


def bool_mask(L, d, shape=(4, 5)):
    return R(L, shape, d, "float32") > -2.0


def mha(L, d, embed=8, heads=2, **kw):
    L.manual_seed(0)
    m = L.nn.MultiheadAttention(embed, heads, **kw)
    for i, p in enumerate(m.parameters()):  # the same weights in both libraries
        with L.no_grad():
            p.copy_(R(L, tuple(p.shape), "cpu", "float32", 0.3) + 0.01 * i)
    return m.to(d)


def seq(L, d, shape=(4, 2, 8), scale=1.0):
    return R(L, shape, d, "float32", scale)


def mha_call(L, d, *args, module_kw=None, **kw):
    m = mha(L, d, **(module_kw or {}))
    x = seq(L, d)
    return m(x, x, x, *args, **kw)


def kpm(L, d, values, dtype="bool"):
    return L.tensor(values, device=d, dtype=getattr(L, dtype))


def _nan_rows(L, d):
    mask = bool_mask(L, d).clone()
    mask[1] = False
    return sdpa(L, *qkv(L, d), attn_mask=mask)


CASES = {
    # ---- scaled_dot_product_attention: plain and its arguments
    "sdpa/plain": lambda L, d: sdpa(L, *qkv(L, d)),
    "sdpa/float64": lambda L, d: sdpa(L, *qkv(L, d, dtype="float64")),
    "sdpa/3d_inputs": lambda L, d: sdpa(L, *[t[0] for t in qkv(L, d)]),
    "sdpa/2d_inputs": lambda L, d: sdpa(L, *[t[0, 0] for t in qkv(L, d)]),
    "sdpa/1d_inputs": lambda L, d: sdpa(L, *[t[0, 0, 0] for t in qkv(L, d)]),
    "sdpa/5d_inputs": lambda L, d: sdpa(L, *[t.unsqueeze(0) for t in qkv(L, d)]),
    "sdpa/value_dim_differs": lambda L, d: sdpa(L, *qkv(L, d, ev=6)),
    "sdpa/key_dim_differs": lambda L, d: sdpa(L, q(L, d), q(L, d, (2, 3, 5, 6)), q(L, d, (2, 3, 5, 8))),
    "sdpa/key_value_len_differ": lambda L, d: sdpa(L, q(L, d), q(L, d, (2, 3, 5, 8)), q(L, d, (2, 3, 6, 8))),
    "sdpa/batch_broadcast": lambda L, d: sdpa(L, q(L, d), q(L, d, (1, 3, 5, 8)), q(L, d, (1, 3, 5, 8))),
    "sdpa/batch_mismatch": lambda L, d: sdpa(L, q(L, d), q(L, d, (3, 3, 5, 8)), q(L, d, (3, 3, 5, 8))),
    "sdpa/dtype_mismatch": lambda L, d: sdpa(L, q(L, d), q(L, d, dtype="float64"), q(L, d)),
    "sdpa/int_inputs": lambda L, d: sdpa(L, *[t.to(L.int64) for t in qkv(L, d)]),
    "sdpa/half_inputs": lambda L, d: sdpa(L, *qkv(L, d, dtype="float16")),
    "sdpa/bfloat16_inputs": lambda L, d: sdpa(L, *qkv(L, d, dtype="bfloat16")),
    "sdpa/scale_zero": lambda L, d: sdpa(L, *qkv(L, d), scale=0.0),
    "sdpa/scale_negative": lambda L, d: sdpa(L, *qkv(L, d), scale=-2.0),
    "sdpa/scale_inf": lambda L, d: sdpa(L, *qkv(L, d), scale=float("inf")),
    "sdpa/scale_nan": lambda L, d: sdpa(L, *qkv(L, d), scale=float("nan")),
    "sdpa/scale_int": lambda L, d: sdpa(L, *qkv(L, d), scale=2),
    "sdpa/scale_tensor": lambda L, d: sdpa(L, *qkv(L, d), scale=L.tensor(0.5)),
    "sdpa/scale_bool": lambda L, d: sdpa(L, *qkv(L, d), scale=True),
    "sdpa/dropout_bool_false": lambda L, d: sdpa(L, *qkv(L, d), dropout_p=False),
    "sdpa/dropout_int_zero": lambda L, d: sdpa(L, *qkv(L, d), dropout_p=0),
    "sdpa/query_list": lambda L, d: sdpa(L, [1.0], *qkv(L, d)[1:]),
    "sdpa/value_none": lambda L, d: sdpa(L, *qkv(L, d)[:2], None),
    "sdpa/gqa_none": lambda L, d: sdpa(L, *qkv(L, d), enable_gqa=None),
    "sdpa/int32_inputs": lambda L, d: sdpa(L, *[t.to(L.int32) for t in qkv(L, d)]),
    "sdpa/bool_inputs": lambda L, d: sdpa(L, *[t > 0 for t in qkv(L, d)]),
    "sdpa/complex_inputs": lambda L, d: sdpa(L, *[t.to(L.complex64) for t in qkv(L, d)]),
    "mask/1d": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=bool_mask(L, d, (5,))),
    "mask/float0dim": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=L.tensor(0.0, device=d)),
    "sdpa/scale_string": lambda L, d: sdpa(L, *qkv(L, d), scale="0.5"),
    "sdpa/dropout_negative": Case(lambda L, d: sdpa(L, *qkv(L, d), dropout_p=-0.1), "shape"),
    "sdpa/dropout_one": Case(lambda L, d: sdpa(L, *qkv(L, d), dropout_p=1.0), "shape"),
    "sdpa/dropout_above_one": Case(lambda L, d: sdpa(L, *qkv(L, d), dropout_p=1.5), "shape"),
    "sdpa/dropout_string": lambda L, d: sdpa(L, *qkv(L, d), dropout_p="0.1"),
    "sdpa/dropout_half": Case(lambda L, d: sdpa(L, *qkv(L, d), dropout_p=0.5), "shape"),
    "sdpa/positional_mask_dropout_causal": lambda L, d: sdpa(L, *qkv(L, d), None, 0.0, True),
    # ---- masks
    "mask/bool": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=bool_mask(L, d)),
    "mask/float": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=R(L, (4, 5), d, "float32")),
    "mask/float64_with_float32": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=R(L, (4, 5), d, "float64")),
    "mask/int": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=bool_mask(L, d).to(L.int64)),
    "mask/uint8": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=bool_mask(L, d).to(L.uint8)),
    "mask/half_with_float32": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=R(L, (4, 5), d, "float16")),
    "mask/wrong_shape": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=bool_mask(L, d, (4, 4))),
    "mask/broadcast_heads": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=bool_mask(L, d, (2, 1, 4, 5))),
    "mask/broadcast_row": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=bool_mask(L, d, (1, 5))),
    "mask/too_many_dims": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=bool_mask(L, d, (1, 2, 3, 4, 5))),
    "mask/0dim": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=L.tensor(True, device=d)),
    "mask/all_false_row_nan": lambda L, d: _nan_rows(L, d),
    "mask/all_false": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=bool_mask(L, d) & False),
    "mask/float_all_neg_inf": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=L.full((4, 5), float("-inf"), device=d)),
    "mask/float_nan": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=L.full((4, 5), float("nan"), device=d)),
    "mask/list": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=[[True] * 5] * 4),
    "mask/with_causal": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=bool_mask(L, d), is_causal=True),
    "mask/requires_grad": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=R(L, (4, 5), d, "float32").requires_grad_()),
    "causal/square": lambda L, d: sdpa(L, *qkv(L, d, 5, 5), is_causal=True),
    "causal/more_queries": lambda L, d: sdpa(L, *qkv(L, d, 6, 3), is_causal=True),
    "causal/fewer_queries": lambda L, d: sdpa(L, *qkv(L, d, 2, 5), is_causal=True),
    "causal/int_flag": lambda L, d: sdpa(L, *qkv(L, d, 5, 5), is_causal=1),
    "causal/numpy_bool": lambda L, d: sdpa(L, *qkv(L, d, 5, 5), is_causal=__import__("numpy").bool_(True)),
    "causal/none_flag": lambda L, d: sdpa(L, *qkv(L, d, 5, 5), is_causal=None),
    # ---- empty and odd sequences
    "empty/queries": lambda L, d: sdpa(L, *qkv(L, d, 0, 5)),
    "empty/keys": lambda L, d: sdpa(L, *qkv(L, d, 4, 0)),
    "empty/keys_causal": lambda L, d: sdpa(L, *qkv(L, d, 4, 0), is_causal=True),
    "empty/batch": lambda L, d: sdpa(L, *[t[:0] for t in qkv(L, d)]),
    "empty/head_dim": lambda L, d: sdpa(L, *qkv(L, d, e=0)),
    "empty/value_dim": lambda L, d: sdpa(L, *qkv(L, d, ev=0)),
    "nan/query": lambda L, d: sdpa(L, q(L, d) * float("nan"), *qkv(L, d)[1:]),
    "inf/keys": lambda L, d: sdpa(L, qkv(L, d)[0], qkv(L, d)[1] * float("inf"), qkv(L, d)[2]),
    "huge/values": lambda L, d: sdpa(L, *qkv(L, d)[:2], qkv(L, d)[2] * 1e38),
    "noncontiguous/transposed": lambda L, d: sdpa(L, *[t.transpose(1, 2).contiguous().transpose(1, 2)
                                                      for t in qkv(L, d)]),
    "noncontiguous/expanded_kv": lambda L, d: sdpa(L, q(L, d), q(L, d, (1, 3, 5, 8)).expand(2, 3, 5, 8),
                                                   q(L, d, (1, 1, 5, 8)).expand(2, 3, 5, 8)),
    "grad/backward": lambda L, d: _sdpa_grad(L, d),
    # ---- grouped-query attention
    "gqa/ok": lambda L, d: sdpa(L, *qkv(L, d, heads=4, kv_heads=2), enable_gqa=True),
    "gqa/off_mismatch": lambda L, d: sdpa(L, *qkv(L, d, heads=4, kv_heads=2)),
    "gqa/not_divisible": lambda L, d: sdpa(L, *qkv(L, d, heads=3, kv_heads=2), enable_gqa=True),
    "gqa/kv_more_heads": lambda L, d: sdpa(L, *qkv(L, d, heads=2, kv_heads=4), enable_gqa=True),
    "gqa/3d": lambda L, d: sdpa(L, *[t[0] for t in qkv(L, d, heads=4, kv_heads=2)], enable_gqa=True),
    "gqa/with_mask": lambda L, d: sdpa(L, *qkv(L, d, heads=4, kv_heads=1), attn_mask=bool_mask(L, d),
                                       enable_gqa=True),
    # ---- devices
    "device/mask_on_cpu": lambda L, d: sdpa(L, *qkv(L, d), attn_mask=bool_mask(L, "cpu")),
    "device/key_on_cpu": lambda L, d: sdpa(L, q(L, d), q(L, "cpu", (2, 3, 5, 8)), q(L, d, (2, 3, 5, 8))),
    # ---- MultiheadAttention
    "mha/plain": lambda L, d: mha_call(L, d),
    "mha/no_weights": lambda L, d: mha_call(L, d, need_weights=False),
    "mha/per_head_weights": lambda L, d: mha_call(L, d, average_attn_weights=False),
    "mha/batch_first": lambda L, d: mha_call(L, d, module_kw={"batch_first": True}),
    "mha/kdim_vdim": lambda L, d: _mha_kv(L, d, 5, 6),
    "mha/kdim_wrong_key": lambda L, d: _mha_kv(L, d, 5, 6, key_dim=4),
    "mha/vdim_wrong_value": lambda L, d: _mha_kv(L, d, 5, 6, value_dim=5),
    "mha/embed_not_divisible": lambda L, d: mha(L, d, embed=7, heads=2),
    "mha/zero_heads": lambda L, d: mha(L, d, embed=8, heads=0),
    "mha/negative_dropout": lambda L, d: mha(L, d, dropout=-0.5).dropout,
    "mha/dropout_above_one": lambda L, d: mha(L, d, dropout=1.5).dropout,
    "mha/negative_dropout_forward": Case(lambda L, d: mha_call(L, d, module_kw={"dropout": -0.5}), "shape"),
    "mha/bias_false": lambda L, d: mha_call(L, d, module_kw={"bias": False}),
    "mha/add_bias_kv": lambda L, d: mha_call(L, d, module_kw={"add_bias_kv": True}),
    "mha/add_zero_attn": lambda L, d: mha_call(L, d, module_kw={"add_zero_attn": True}),
    "mha/kpm_bool": lambda L, d: mha_call(L, d, key_padding_mask=kpm(L, d, [[0, 0, 1, 1], [0, 0, 0, 1]])),
    "mha/kpm_float": lambda L, d: mha_call(L, d, key_padding_mask=kpm(L, d, [[0, 0, -1e9, 0], [0, 0, 0, 0]],
                                                                      "float32")),
    "mha/kpm_int": lambda L, d: mha_call(L, d, key_padding_mask=kpm(L, d, [[0, 0, 1, 1], [0, 0, 0, 1]], "int64")),
    "mha/kpm_uint8": lambda L, d: mha_call(L, d, key_padding_mask=kpm(L, d, [[0, 0, 1, 1], [0, 0, 0, 1]], "uint8")),
    "mha/kpm_all_masked_row": lambda L, d: mha_call(L, d, key_padding_mask=kpm(L, d, [[1, 1, 1, 1], [0, 0, 0, 1]])),
    "mha/kpm_wrong_shape": lambda L, d: mha_call(L, d, key_padding_mask=kpm(L, d, [[0, 0, 1], [0, 0, 0]])),
    "mha/kpm_transposed": lambda L, d: mha_call(L, d, key_padding_mask=kpm(L, d, [[0, 0], [0, 1], [1, 0], [0, 0]])),
    "mha/kpm_and_attn_mask_types": lambda L, d: mha_call(L, d, key_padding_mask=kpm(L, d, [[0, 0, 1, 1],
                                                                                       [0, 0, 0, 1]]),
                                                         attn_mask=L.zeros(4, 4, device=d)),
    "mha/attn_mask_bool": lambda L, d: mha_call(L, d, attn_mask=bool_mask(L, d, (4, 4))),
    "mha/attn_mask_3d": lambda L, d: mha_call(L, d, attn_mask=L.zeros(4, 4, 4, device=d)),
    "mha/attn_mask_3d_wrong_batch": lambda L, d: mha_call(L, d, attn_mask=L.zeros(3, 4, 4, device=d)),
    "mha/attn_mask_wrong_2d": lambda L, d: mha_call(L, d, attn_mask=L.zeros(4, 3, device=d)),
    "mha/attn_mask_int": lambda L, d: mha_call(L, d, attn_mask=L.zeros(4, 4, dtype=L.int64, device=d)),
    "mha/attn_mask_1d": lambda L, d: mha_call(L, d, attn_mask=L.zeros(4, device=d)),
    "mha/attn_mask_all_masked": lambda L, d: mha_call(L, d, attn_mask=L.ones(4, 4, dtype=L.bool, device=d)),
    "mha/is_causal_without_mask": lambda L, d: mha_call(L, d, is_causal=True),
    "mha/is_causal_with_mask": lambda L, d: mha_call(L, d, attn_mask=L.ones(4, 4, device=d).triu(1) * -1e9,
                                                     is_causal=True),
    "mha/unbatched": lambda L, d: _mha_unbatched(L, d),
    "mha/wrong_embed": lambda L, d: mha(L, d)(seq(L, d, (4, 2, 6)), seq(L, d, (4, 2, 6)), seq(L, d, (4, 2, 6))),
    "mha/key_value_len_differ": lambda L, d: mha(L, d)(seq(L, d), seq(L, d, (5, 2, 8)), seq(L, d, (4, 2, 8))),
    "mha/query_2d_key_3d": lambda L, d: mha(L, d)(seq(L, d, (4, 8)), seq(L, d), seq(L, d)),
    "mha/dtype_double_input": lambda L, d: mha(L, d)(seq(L, d).double(), seq(L, d).double(), seq(L, d).double()),
    "mha/empty_sequence": lambda L, d: mha(L, d)(seq(L, d, (0, 2, 8)), seq(L, d, (0, 2, 8)), seq(L, d, (0, 2, 8))),
    "mha/empty_keys": lambda L, d: mha(L, d)(seq(L, d), seq(L, d, (0, 2, 8)), seq(L, d, (0, 2, 8))),
    "mha/eval_kpm_fast_path": lambda L, d: _mha_eval(L, d),
    "mha/int_input": lambda L, d: mha(L, d)(*[seq(L, d).to(L.int64)] * 3),
    # ---- flex attention
    "flex/plain": lambda L, d: L.nn.attention.flex_attention.flex_attention(*qkv(L, d, e=8)),
    "flex/score_mod": lambda L, d: L.nn.attention.flex_attention.flex_attention(
        *qkv(L, d), score_mod=lambda s, b, h, qi, ki: s + (qi - ki)),
    "flex/block_mask_from_fn": lambda L, d: _flex_block_mask(L, d),
    "flex/score_mod_wrong_arity": lambda L, d: L.nn.attention.flex_attention.flex_attention(
        *qkv(L, d), score_mod=lambda s: s),
    "flex/value_dim_differs": lambda L, d: L.nn.attention.flex_attention.flex_attention(*qkv(L, d, ev=16)),
    "flex/batch_mismatch": lambda L, d: L.nn.attention.flex_attention.flex_attention(
        q(L, d), q(L, d, (3, 3, 5, 8)), q(L, d, (3, 3, 5, 8))),
    "flex/3d": lambda L, d: L.nn.attention.flex_attention.flex_attention(*[t[0] for t in qkv(L, d)]),
    "flex/gqa_off": lambda L, d: L.nn.attention.flex_attention.flex_attention(*qkv(L, d, heads=4, kv_heads=2)),
    "flex/gqa_on": lambda L, d: L.nn.attention.flex_attention.flex_attention(*qkv(L, d, heads=4, kv_heads=2),
                                                                             enable_gqa=True),
    "flex/scale": lambda L, d: L.nn.attention.flex_attention.flex_attention(*qkv(L, d), scale=0.25),
    "flex/dtype_mismatch": lambda L, d: L.nn.attention.flex_attention.flex_attention(
        q(L, d), q(L, d, (2, 3, 5, 8), "float64"), q(L, d, (2, 3, 5, 8))),
    "sdpa_kernel/context": lambda L, d: _sdpa_kernel(L, d),
    "sdpa_kernel/bad_backend": lambda L, d: L.nn.attention.sdpa_kernel("flash").__enter__(),
}


def _sdpa_grad(L, d):
    qs, k, v = [t.requires_grad_() for t in qkv(L, d, dtype="float64")]
    sdpa(L, qs, k, v, attn_mask=bool_mask(L, d), scale=0.7).pow(2).sum().backward()
    return qs.grad, k.grad, v.grad


def _mha_kv(L, d, kdim, vdim, key_dim=None, value_dim=None):
    m = mha(L, d, kdim=kdim, vdim=vdim)
    return m(seq(L, d), seq(L, d, (5, 2, key_dim or kdim)), seq(L, d, (5, 2, value_dim or vdim)))


def _mha_unbatched(L, d):
    x = seq(L, d, (4, 8))
    return mha(L, d)(x, x, x)


def _mha_eval(L, d):
    m = mha(L, d, batch_first=True).eval()
    x = seq(L, d, (2, 4, 8))
    with L.no_grad():
        out, w = m(x, x, x, key_padding_mask=kpm(L, d, [[0, 0, 1, 1], [0, 0, 0, 0]]), need_weights=False)
    return out, w


def _flex_block_mask(L, d):
    fa = L.nn.attention.flex_attention
    bm = fa.create_block_mask(lambda b, h, qi, ki: qi >= ki, None, None, 4, 5, device=d)
    return fa.flex_attention(*qkv(L, d), block_mask=bm)


def _sdpa_kernel(L, d):
    with L.nn.attention.sdpa_kernel(L.nn.attention.SDPBackend.MATH):
        return sdpa(L, *qkv(L, d))


_FUSED_KERNEL = ("PyTorch's CPU picks its fused (flash) kernel, whose online softmax turns non-finite scores into 0 "
                 "(and rescales huge values differently); its math backend (sdpa_kernel(SDPBackend.MATH)) gives "
                 "tandem's result")
_ORACLE_ON_CPU = ("the oracle runs every tensor on the CPU; PyTorch on a GPU refuses a CPU tensor as tandem does on "
                  "cuda:0")
KNOWN = {
    "nan/query": _FUSED_KERNEL,
    "sdpa/scale_nan": _FUSED_KERNEL,
    "inf/keys": _FUSED_KERNEL,
    "huge/values": _FUSED_KERNEL,
    "sdpa/key_value_len_differ": "PyTorch's CPU fused kernel does not check that key and value have the same "
                                 "length and reads past the key's rows; tandem refuses with its math backend's error",
    "sdpa/complex_inputs": "wording: PyTorch names its softmax kernel; tandem's C++ op says complex inputs are not "
                           "supported (both refuse)",
    "device/mask_on_cpu": _ORACLE_ON_CPU,
    "device/key_on_cpu": _ORACLE_ON_CPU,
}
