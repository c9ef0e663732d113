"""The seventh program sweep: whole programs on themes the earlier sweeps left out, each written once against a
module called `torch`, run with PyTorch and with tandem standing in for it, and their results compared. The
programs live in sweep7_models.py (mixture of experts, LoRA, sparsemax, quantisation-aware training, SIREN, learned
compression), sweep7_numerics.py (k-means/GMM, Kabsch, CP-ALS, RBM, beam search, Kalman filter, spectral
clustering), sweep7_attention.py (FlexAttention, causal biases, a Transformer forecaster), sweep7_geometry.py
(detection utilities, sparse graph attention, polynomial features), sweep7_pipelines.py (augmentations, rnn
utilities, word2vec, a distributions flow) and sweep7_training.py (TRPO, Unfold/Fold and MaxUnpool, ranking
losses, Newton's method with autograd.functional). The focused tests below cover what they found missing
(torch.fake_quantize_per_tensor_affine / _per_channel_affine, torch.nn.attention.flex_attention and
torch.nn.attention.bias) and the gradient differences the sweep found in the C++ core, fixed since (docs/compat.md,
"Program sweep 7")."""
import importlib
import math
import warnings

import numpy as np
import pytest

import sweep7_attention
import sweep7_geometry
import sweep7_models
import sweep7_numerics
import sweep7_pipelines
import sweep7_training
import tandem
from test_programs_sweeputil import program_test

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])
_MODULES = (sweep7_models, sweep7_numerics, sweep7_attention, sweep7_geometry, sweep7_pipelines, sweep7_training)

test_program_matches_pytorch = program_test(_MODULES, DEVICES)


def _pair(array, device, dtype="float32", requires_grad=False):
    """The same values as a tandem tensor on `device` and a PyTorch tensor on the CPU."""
    ours = tandem.tensor(array, dtype=getattr(tandem, dtype), device=device).requires_grad_(requires_grad)
    theirs = torch.tensor(array, dtype=getattr(torch, dtype)).requires_grad_(requires_grad)
    return ours, theirs


def _outcome(call):
    try:
        result = call()
    except Exception as exc:  # the error type and message are what is compared
        return type(exc).__name__, str(exc).split("\nhint:")[0]
    return "ok", result


# ---- fake quantisation ----------------------------------------------------------------------------------------
_EDGES = [-1.0, -0.04, 0.05, 0.15, 0.25, 0.35, 0.7, 2.0, -0.0, 0.45, float("nan"), float("inf"), -float("inf")]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("qparams", [(0.1, 0, -8, 7), (0.1, 3, -8, 7), (0.037, -2, -128, 127), (0.5, 0, 0, 255)])
def test_fake_quantize_per_tensor_matches_pytorch_bitwise(device, dtype, qparams):
    ours, theirs = _pair(_EDGES, device, dtype)
    got = tandem.fake_quantize_per_tensor_affine(ours, *qparams)
    want = torch.fake_quantize_per_tensor_affine(theirs, *qparams)
    assert got.dtype == ours.dtype and got.device == ours.device
    np.testing.assert_array_equal(got.float().cpu().numpy(), want.float().numpy())


@pytest.mark.parametrize("device", DEVICES)
def test_fake_quantize_per_tensor_gradient_is_straight_through_inside_the_range(device):
    values = np.linspace(-1.2, 1.2, 25)
    ours, theirs = _pair(values, device, requires_grad=True)
    weights = np.arange(25.0)
    (tandem.fake_quantize_per_tensor_affine(ours, 0.1, 1, -8, 7) * tandem.tensor(weights, device=device)).sum() \
        .backward()
    (torch.fake_quantize_per_tensor_affine(theirs, 0.1, 1, -8, 7) * torch.tensor(weights)).sum().backward()
    np.testing.assert_array_equal(ours.grad.cpu().numpy(), theirs.grad.numpy())


@pytest.mark.parametrize("device", DEVICES)
def test_fake_quantize_per_tensor_with_tensor_qparams(device):
    ours, theirs = _pair(_EDGES[:10], device)
    for zero_point in (1, 1.6):  # a fractional zero point is truncated, as PyTorch's kernel reads it
        got = tandem.fake_quantize_per_tensor_affine(ours, tandem.tensor(0.1, device=device),
                                                     tandem.tensor(zero_point, device=device), -8, 7)
        want = torch.fake_quantize_per_tensor_affine(theirs, torch.tensor(0.1), torch.tensor(zero_point), -8, 7)
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("zero_dtype", ["int32", "float32"])
def test_fake_quantize_per_channel_matches_pytorch(device, axis, zero_dtype):
    values = np.linspace(-1, 1, 20).reshape(4, 5)
    if axis != 0:
        values = values.T.copy()
    ours, theirs = _pair(values, device, requires_grad=True)
    scales, zeros = [0.05, 0.1, 0.2, 0.4], ([0, 1, -1, 0] if zero_dtype == "int32" else [0.4, 1.0, -0.5, 0.0])
    dim = axis if axis != -1 else 1
    if axis == -1:
        ours, theirs = (ours.detach().t().contiguous().t().requires_grad_(),
                        theirs.detach().t().contiguous().t().requires_grad_())
    got = tandem.fake_quantize_per_channel_affine(ours, tandem.tensor(scales, device=device),
                                                  tandem.tensor(zeros, dtype=getattr(tandem, zero_dtype),
                                                                device=device), axis if axis != -1 else dim, -8, 7)
    want = torch.fake_quantize_per_channel_affine(theirs, torch.tensor(scales),
                                                  torch.tensor(zeros, dtype=getattr(torch, zero_dtype)),
                                                  axis if axis != -1 else dim, -8, 7)
    np.testing.assert_array_equal(got.detach().cpu().numpy(), want.detach().numpy())
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_array_equal(ours.grad.cpu().numpy(), theirs.grad.numpy())


def _fake_quantize_calls(lib):
    x = lib.linspace(-1, 1, 20).reshape(4, 5)
    s, z = lib.tensor([0.1] * 4), lib.tensor([0] * 4, dtype=lib.int32)
    per_channel = lib.fake_quantize_per_channel_affine
    per_tensor = lib.fake_quantize_per_tensor_affine
    return [
        lambda: per_tensor(x, 0.1, 0, 7, -8),
        lambda: per_tensor(x, 0.1, 9, -8, 7),
        lambda: per_tensor(x.int(), 0.1, 0, -8, 7),
        lambda: per_tensor(x, lib.tensor(0.1, requires_grad=True), lib.tensor(0), -8, 7),
        lambda: per_channel(x, s, z, 1, -8, 7),
        lambda: per_channel(x, s, z, 0, 7, -8),
        lambda: per_channel(x, s, z + 10, 0, -8, 7),
        lambda: per_channel(x, s.double(), z, 0, -8, 7),
        lambda: per_channel(x, s, z.long(), 0, -8, 7),
        lambda: per_channel(x, s[None], z, 0, -8, 7),
        lambda: per_channel(x, s, z[None], 0, -8, 7),
        lambda: per_channel(x, s, z[:3], 0, -8, 7),
        lambda: per_channel(x, s, z, 2, -8, 7),
        lambda: per_channel(x.int(), s, z, 0, -8, 7),
        lambda: per_channel(x, s.requires_grad_(), z, 0, -8, 7),
        lambda: per_channel(x, 0.1, z, 0, -8, 7),
        lambda: per_channel(lib.tensor(0.5), s[:1], z[:1], 0, -8, 7),
    ]


@pytest.mark.parametrize("index", range(len(_fake_quantize_calls(tandem))))
def test_fake_quantize_refusals_match_pytorch(index):
    got = _outcome(_fake_quantize_calls(tandem)[index])
    want = _outcome(_fake_quantize_calls(torch)[index])
    assert got == want


def test_fake_quantize_wrong_overload_is_a_type_error():
    with pytest.raises(TypeError, match="fake_quantize_per_tensor_affine"):
        tandem.fake_quantize_per_tensor_affine(tandem.ones(3), 0.1, 1.5, -8, 7)
    with pytest.raises(TypeError, match="fake_quantize_per_tensor_affine"):
        tandem.fake_quantize_per_tensor_affine(tandem.ones(3), tandem.tensor(0.1), 0, -8, 7)


# ---- torch.nn.attention.flex_attention ------------------------------------------------------------------------
def _flex(lib):
    return importlib.import_module(f"{lib.__name__}.nn.attention.flex_attention")


def _block_mask_fields(lib, mask_mod, *args, **kwargs):
    block_mask = _flex(lib).create_block_mask(mask_mod, *args, device="cpu", **kwargs)
    fields = {name: None if getattr(block_mask, name) is None else
              (str(getattr(block_mask, name).dtype).split(".")[1], getattr(block_mask, name).tolist())
              for name in ("kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices", "q_num_blocks",
                           "q_indices", "full_q_num_blocks", "full_q_indices")}
    fields.update(shape=block_mask.shape, sparsity=block_mask.sparsity(), dense=block_mask.to_dense().tolist(),
                  text=str(block_mask), numel=block_mask.numel(), BLOCK_SIZE=block_mask.BLOCK_SIZE,
                  as_tuple=[x if isinstance(x, int) else type(x).__name__ for x in block_mask.as_tuple()][:-1])
    return fields


@pytest.mark.parametrize("case", [
    (lambda b, h, q, k: q >= k, None, None, 300, 300, {}),  # a ragged last block: its padding is masked
    (lambda b, h, q, k: (q - k).abs() < 40, 2, 3, 100, 70, {"BLOCK_SIZE": (32, 16)}),
    (lambda b, h, q, k: (b + h + q + k) % 3 == 0, 2, 1, 40, 40, {"BLOCK_SIZE": 8, "separate_full_blocks": False}),
])
def test_create_block_mask_fields_match_pytorch(case):
    mask_mod, *args, kwargs = case
    assert _block_mask_fields(tandem, mask_mod, *args, **kwargs) == _block_mask_fields(torch, mask_mod, *args,
                                                                                       **kwargs)


def test_block_mask_prints_as_pytorch_with_a_limit():
    def draw(lib):
        return _flex(lib).create_block_mask(lambda b, h, q, k: q >= k, 3, 2, 64, 64, device="cpu",
                                            BLOCK_SIZE=16).to_string(limit=4)
    assert draw(tandem) == draw(torch)


def _attention_inputs(device, shape=(2, 4, 24, 8), kv_heads=None, seed=0):
    rng = np.random.default_rng(seed)
    kv_shape = (shape[0], kv_heads or shape[1], shape[2], shape[3])
    arrays = [rng.standard_normal(shape), rng.standard_normal(kv_shape), rng.standard_normal(kv_shape)]
    return [_pair(a, device) for a in arrays]


@pytest.mark.parametrize("device", DEVICES)
def test_flex_attention_with_modifiers_and_aux_matches_pytorch(device):
    (q, tq), (k, tk), (v, tv) = _attention_inputs(device, kv_heads=2)

    def mask_mod(b, h, q_idx, kv_idx):
        return (q_idx >= kv_idx) & (q_idx != 5) & (b + kv_idx != 3)  # row 5 allows nothing

    def make_score_mod(lib, device):
        bias = lib.linspace(-1, 1, 4 * 24, device=device).view(4, 24)
        return lambda score, b, h, q_idx, kv_idx: score + bias[h, q_idx] - 0.1 * (q_idx - kv_idx)

    results = []
    for lib, tensors, dev in ((tandem, (q, k, v), device), (torch, (tq, tk, tv), "cpu")):
        flex = _flex(lib)
        block_mask = flex.create_block_mask(mask_mod, 2, None, 24, 24, device=dev, BLOCK_SIZE=8)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out, aux = flex.flex_attention(*tensors, score_mod=make_score_mod(lib, dev), block_mask=block_mask,
                                           enable_gqa=True, scale=0.4, return_aux=flex.AuxRequest(lse=True))
        results.append((out.cpu().numpy(), aux.lse.cpu().numpy(), aux.max_scores, str(aux.lse.dtype)))
    (out, lse, max_scores, lse_dtype), (want_out, want_lse, want_max, want_dtype) = results
    np.testing.assert_allclose(out, want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lse, want_lse, rtol=1e-5, atol=1e-6)
    assert (out[:, :, 5] == 0).all() and np.isneginf(lse[:, :, 5]).all()
    assert max_scores is want_max is None and lse_dtype.split(".")[1] == want_dtype.split(".")[1]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float64", "float16"])
def test_flex_attention_keeps_the_inputs_dtype(device, dtype):
    (q, tq), (k, tk), (v, tv) = _attention_inputs(device, shape=(1, 2, 6, 4))
    q, k, v = (t.to(getattr(tandem, dtype)) for t in (q, k, v))
    tq, tk, tv = (t.to(getattr(torch, dtype)) for t in (tq, tk, tv))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, got_lse = _flex(tandem).flex_attention(q, k, v, return_lse=True)
        want, want_lse = _flex(torch).flex_attention(tq, tk, tv, return_lse=True)
    assert got.dtype == q.dtype and str(got_lse.dtype).split(".")[1] == str(want_lse.dtype).split(".")[1]
    np.testing.assert_allclose(got.float().cpu().numpy(), want.float().numpy(), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("device", DEVICES)
def test_flex_attention_gradients_match_sdpa_with_the_dense_mask(device):
    # PyTorch's FlexAttention has no CPU backward, so the oracle is its sdpa with the same mask
    (q, tq), (k, tk), (v, tv) = _attention_inputs(device, shape=(1, 2, 10, 4))
    for t in (q, k, v, tq, tk, tv):
        t.requires_grad_()

    def window(b, h, q_idx, kv_idx):
        return (q_idx >= kv_idx) & (q_idx - kv_idx < 4)

    block_mask = _flex(tandem).create_block_mask(window, None, None, 10, 10, device=device, BLOCK_SIZE=4)
    _flex(tandem).flex_attention(q, k, v, block_mask=block_mask).pow(2).sum().backward()
    dense = _flex(torch).create_mask(window, None, None, 10, 10, device="cpu")
    torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=dense).pow(2).sum().backward()
    for ours, theirs in ((q, tq), (k, tk), (v, tv)):
        np.testing.assert_allclose(ours.grad.cpu().numpy(), theirs.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_flex_attention_gradient_of_a_fully_masked_row_is_zero_not_nan():
    q = tandem.randn(1, 1, 4, 4, requires_grad=True)
    flex = _flex(tandem)
    block_mask = flex.create_block_mask(lambda b, h, qi, ki: qi != 0, None, None, 4, 4, device="cpu")
    flex.flex_attention(q, q, q, block_mask=block_mask).sum().backward()
    assert tandem.isfinite(q.grad).all()


def _flex_calls(lib):
    flex = _flex(lib)
    q = lib.ones(1, 2, 6, 4)
    causal = flex.create_block_mask(lambda b, h, qi, ki: qi >= ki, 1, 1, 8, 8, device="cpu")
    return [
        lambda: flex.flex_attention(q, q[:, :1], q[:, :1]),
        lambda: flex.flex_attention(q, q[:, :1], q[:, :1], enable_gqa=True).shape,
        lambda: flex.flex_attention(lib.ones(1, 3, 6, 4), q, q, enable_gqa=True),
        lambda: flex.flex_attention(q[..., :3], q, q),
        lambda: flex.flex_attention(q, q, q, block_mask=causal),
        lambda: flex.flex_attention(lib.ones(1, 2, 9, 4), lib.ones(1, 2, 9, 4), lib.ones(1, 2, 9, 4),
                                    block_mask=causal),
        lambda: flex.flex_attention(q[0], q[0], q[0]),
        lambda: flex.flex_attention(q, q, q, return_lse=True, return_aux=flex.AuxRequest()),
        lambda: flex.flex_attention(lib.ones(2, 2, 6, 4), q, q),
        lambda: flex.create_block_mask(lambda b, h: b, 1, 1, 4, 4, device="cpu"),
        lambda: flex.create_block_mask(lambda b, h, qi, ki: qi >= ki, 1, 1, 4, 4, device="cpu", dq_kv_order=None),
        lambda: flex.and_masks(1),
        lambda: flex.or_masks(len, 2),
        lambda: flex.BlockMask.from_kv_blocks(lib.ones(2, dtype=lib.int32), lib.zeros(2, dtype=lib.int32)),
    ]


@pytest.mark.parametrize("index", range(len(_flex_calls(tandem))))
def test_flex_attention_refusals_match_pytorch(index):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _outcome(_flex_calls(tandem)[index])
        want = _outcome(_flex_calls(torch)[index])
    assert got[0] == want[0] and got[1] == want[1] if got[0] != "ok" else str(got[1]) == str(want[1]).replace(
        "torch.", "tandem.")


def test_create_block_mask_refuses_a_score_mod_and_warns_for_compile():
    flex = _flex(tandem)
    with pytest.raises(AssertionError, match="create-block_mask requires a mask_mod function"):
        flex.create_block_mask(lambda s, b, h, qi, ki: s, 1, 1, 4, 4, device="cpu")
    with pytest.warns(DeprecationWarning, match="_compile flag on create_block_mask"):
        flex.create_block_mask(lambda b, h, qi, ki: qi >= ki, 1, 1, 4, 4, device="cpu", _compile=True)


def test_create_mask_of_a_score_mod_marks_its_finite_scores():
    def score_mod(lib):
        return lambda s, b, h, qi, ki: lib.where(qi >= ki, s, -math.inf)
    got = _flex(tandem).create_mask(score_mod(tandem), None, 2, 3, 3, "cpu")
    want = _flex(torch).create_mask(score_mod(torch), None, 2, 3, 3, "cpu")
    assert got.tolist() == want.tolist() and got.dtype == tandem.bool


def test_return_lse_warns_once_with_pytorchs_future_warning(monkeypatch):
    flex = _flex(tandem)
    monkeypatch.setattr(flex, "_WARNINGS_SHOWN", set())
    q = tandem.ones(1, 1, 2, 2)
    with pytest.warns(FutureWarning, match="return_lse is deprecated"):
        flex.flex_attention(q, q, q, return_lse=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        flex.flex_attention(q, q, q, return_lse=True)


@pytest.mark.parametrize("device", DEVICES)
def test_block_mask_moves_between_devices(device):
    block_mask = _flex(tandem).create_block_mask(lambda b, h, qi, ki: qi >= ki, 1, 1, 8, 8, device="cpu",
                                                 BLOCK_SIZE=4)
    moved = block_mask.to(device)
    assert moved.kv_indices.device.type == device and moved.mask_mod is block_mask.mask_mod
    assert moved.to_dense().cpu().tolist() == block_mask.to_dense().tolist()


# ---- torch.nn.attention.bias ----------------------------------------------------------------------------------
def _bias(lib):
    return importlib.import_module(f"{lib.__name__}.nn.attention.bias")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("lengths", [(5, 7), (6, 6), (7, 4)])
@pytest.mark.parametrize("variant", ["causal_upper_left", "causal_lower_right"])
def test_causal_bias_attention_matches_pytorch(device, lengths, variant):
    rng = np.random.default_rng(1)
    L, S = lengths
    pairs = [_pair(rng.standard_normal(shape), device) for shape in ((2, 3, L, 8), (2, 3, S, 8), (2, 3, S, 8))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lower right with L > S warns of NaNs, in both libraries
        got_bias, want_bias = getattr(_bias(tandem), variant)(L, S), getattr(_bias(torch), variant)(L, S)
    got = tandem.nn.functional.scaled_dot_product_attention(*[p[0] for p in pairs], attn_mask=got_bias)
    want = torch.nn.functional.scaled_dot_product_attention(*[p[1] for p in pairs], attn_mask=want_bias)
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    assert got_bias._materialize(device).tolist() == want_bias._materialize().tolist()
    assert got_bias._materialize(device).device.type == device
    assert repr(got_bias) == repr(want_bias)


def test_causal_bias_is_a_tensor_and_keeps_pytorchs_checks():
    bias = _bias(tandem)
    lower = bias.causal_lower_right(3, 5)
    assert isinstance(lower, tandem.Tensor) and isinstance(lower, bias.CausalBias)
    assert lower.variant is bias.CausalVariant.LOWER_RIGHT and (lower.seq_len_q, lower.seq_len_kv) == (3, 5)
    assert [int(v) for v in bias.CausalVariant] == [int(v) for v in _bias(torch).CausalVariant]
    with pytest.raises(AssertionError, match="variant must be a CausalVariant, got int"):
        bias.CausalBias(1, 2, 3)
    with pytest.raises(AssertionError, match="causal_upper_left only supports 2D tensors"):
        bias.causal_upper_left(3)
    with pytest.warns(UserWarning, match="Lower right causal bias will produce NaNs"):
        bias.causal_lower_right(5, 3)
    q = tandem.ones(1, 1, 3, 4)
    with pytest.raises(ValueError, match="CausalBias should not be used with causal=True"):
        tandem.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=bias.causal_upper_left(3, 3),
                                                          is_causal=True)


# ---- gradients at kinks and of non-finite incoming gradients: the C++ formulas, as PyTorch's ---------------------
def _gradient(lib, fn, values, incoming=None):
    x = lib.tensor(values, requires_grad=True)
    y = fn(lib, x)
    y.backward(lib.ones_like(y) if incoming is None else lib.tensor(incoming))
    return x.grad.tolist()


@pytest.mark.parametrize("form", ["relu", "relu_", "functional"])
def test_relu_backward_selects_zero_where_the_output_is_zero(form):
    def fn(lib, x):
        if form == "relu":
            return lib.relu(x)
        if form == "relu_":
            return x.clone().relu_()
        return lib.nn.functional.relu(x)
    values, incoming = [0.0, -1.0, 2.0, -3.0], [float("nan"), float("inf"), 1.0, -float("inf")]
    assert _gradient(tandem, fn, values, incoming) == _gradient(torch, fn, values, incoming) == [0.0, 0.0, 1.0, 0.0]


@pytest.mark.parametrize("form", ["both", "min", "max", "clip", "hinge_embedding", "margin_ranking"])
def test_clamp_with_number_bounds_passes_no_gradient_at_a_bound(form):
    def fn(lib, x):
        F = lib.nn.functional
        return {"both": lambda: x.clamp(0, 1), "min": lambda: x.clamp(min=0), "max": lambda: x.clamp(max=1),
                "clip": lambda: x.clip(0, 1),
                "hinge_embedding": lambda: F.hinge_embedding_loss(x, -lib.ones(3), margin=1.0, reduction="none"),
                "margin_ranking": lambda: F.margin_ranking_loss(x, lib.zeros(3), lib.ones(3), reduction="none"),
                }[form]()
    values = [0.0, 1.0, 0.5]
    assert _gradient(tandem, fn, values) == _gradient(torch, fn, values)


def test_hardswish_gradient_at_its_kinks():
    def fn(lib, x):
        return lib.nn.functional.hardswish(x)
    values = [-3.0, 3.0, -4.0, 4.0, 0.0]
    assert _gradient(tandem, fn, values) == _gradient(torch, fn, values)


def test_atan2_gradient_at_the_origin_is_zero():
    grads = []
    for lib in (tandem, torch):
        y = lib.tensor([0.0, 0.0], requires_grad=True)
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        lib.atan2(y, x).sum().backward()
        grads.append((y.grad.tolist(), x.grad.tolist()))
    assert grads[0] == grads[1]
