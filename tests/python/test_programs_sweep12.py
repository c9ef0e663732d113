"""The twelfth program sweep: reinforcement learning, NLP written from scratch and scientific computing with the math
namespaces, each program written once against a module called `torch`, run with PyTorch and with tandem standing in
for it, and their results compared. The programs live in sweep12_rl.py (PPO with GAE, A2C, SAC with a tanh-squashed
Normal, REINFORCE with a baseline, TD3, C51, prioritized replay, a dueling n-step DQN), sweep12_nlp.py (a BPE
tokenizer, an nn.Transformer copy task, MultiheadAttention's options, BERT masking, T5 buckets, sampling filters,
RoPE with complex numbers, the Annotated Transformer's label smoothing, an adaptive softmax LM, a sentence encoder
run for inference) and sweep12_science.py (batched linalg, FFT spectral methods, torch.special, Newton solvers with
torch.autograd.functional, MCMC, statistics, einsum networks, quadrature, complex signals). The focused tests below
cover what they found (docs/compat.md, "Program sweep 12")."""
import warnings

import numpy as np
import pytest

import sweep12_nlp
import sweep12_rl
import sweep12_science
import tandem
from test_programs_sweeputil import program_test
from test_programs_sweeputil import same_outcome  # noqa: E402

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])
_MODULES = (sweep12_rl, sweep12_nlp, sweep12_science)

test_program_matches_pytorch = program_test(_MODULES, DEVICES)


_same = same_outcome


def _seeded(lib, module, seed=0):
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for p in module.parameters():
            p.copy_(lib.tensor(rng.uniform(-0.4, 0.4, tuple(p.shape)), dtype=p.dtype))
    return module


_X = np.random.default_rng(12).standard_normal((3, 5, 8)).astype(np.float32)
_LEFT_ALIGNED = [[False] * 5, [False, False, True, True, True], [False, False, False, False, True]]
_NOT_ALIGNED = [[False] * 5, [False, True, False, True, True], [True, False, False, False, False]]
_ALL_PADDED = [[True] * 5, [False, False, True, True, True], [False] * 5]
_PADDING_NAMES = {id(_LEFT_ALIGNED): "left_aligned", id(_NOT_ALIGNED): "not_aligned", id(_ALL_PADDED): "all_padded"}


# ---- TransformerEncoder: PyTorch's nested-tensor inference path returns zeros at padded positions ------------
def _encoder(lib, device, norm=True, **kwargs):
    layer = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=kwargs.pop("batch_first", True),
                                           **{k: kwargs.pop(k) for k in list(kwargs) if k in ("norm_first",)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        encoder = lib.nn.TransformerEncoder(layer, 2, norm=lib.nn.LayerNorm(8) if norm else None, **kwargs)
    _seeded(lib, encoder)
    return encoder.to(device)


def _run_encoder(lib, device, padding, *, train=False, grad=False, mask=None, float_mask=False, fastpath=True,
                 **kwargs):
    encoder = _encoder(lib, device, **kwargs).train(train)
    pad = lib.tensor(padding, device=device)
    if float_mask:
        pad = lib.zeros(pad.shape, device=device).masked_fill(pad, float("-inf"))
    x = lib.tensor(_X, device=device)
    lib.backends.mha.set_fastpath_enabled(fastpath)
    try:
        with lib.set_grad_enabled(grad):
            return [encoder(x, src_key_padding_mask=pad, mask=mask), encoder.use_nested_tensor]
    finally:
        lib.backends.mha.set_fastpath_enabled(True)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", [
    dict(padding=_LEFT_ALIGNED),
    dict(padding=_LEFT_ALIGNED, norm=False),
    dict(padding=_LEFT_ALIGNED, float_mask=True),
    dict(padding=_ALL_PADDED, norm=False),  # a fully padded sequence comes out as zeros, not NaN
    dict(padding=_NOT_ALIGNED),  # mask_check: padding not at the end keeps the padded batch
    dict(padding=_NOT_ALIGNED, mask_check=False, norm=False),  # unchecked: each sequence's first `length` tokens
    dict(padding=_LEFT_ALIGNED, train=True),
    dict(padding=_LEFT_ALIGNED, grad=True),
    dict(padding=_LEFT_ALIGNED, fastpath=False),
    dict(padding=_LEFT_ALIGNED, enable_nested_tensor=False),
    dict(padding=_LEFT_ALIGNED, norm_first=True),
    dict(padding=_LEFT_ALIGNED, batch_first=False),
], ids=lambda c: "-".join(f"{k}={v if k != 'padding' else _PADDING_NAMES[id(v)]}" for k, v in c.items()))
def test_transformer_encoder_inference_with_padding_matches_pytorch(case, device):
    _same(lambda lib, dev: _run_encoder(lib, dev, **case), device)


@pytest.mark.parametrize("device", DEVICES)
def test_transformer_encoder_with_an_attention_mask_keeps_the_padded_batch(device):
    _same(lambda lib, dev: _run_encoder(lib, dev, _LEFT_ALIGNED, mask=lib.nn.Transformer.generate_square_subsequent_mask(
        5, device=dev)), device)


def test_transformer_encoder_nested_path_keeps_real_positions_exact():
    """Positions that are not padding are the padded-batch forward's values; only the padding becomes zero."""
    encoder = _encoder(tandem, "cpu", norm=False).eval()
    x, pad = tandem.tensor(_X), tandem.tensor(_LEFT_ALIGNED)
    with tandem.no_grad():
        nested = encoder(x, src_key_padding_mask=pad)
    padded = encoder(x, src_key_padding_mask=pad).detach()  # grad enabled: PyTorch's padded path
    assert tandem.equal(nested[~pad], padded[~pad])
    assert (nested[pad] == 0).all() and (padded[pad] != 0).any()


# ---- MultiheadAttention / TransformerEncoderLayer: what PyTorch's fused inference kernels give --------------------
_FM = [[0.0, 0.5, -1.0], [0.3, 0.0, 0.0], [0.0, 0.0, -2.0]]  # an additive bias, not a mask
_KP = [[0.0, -0.5, 0.0], [0.0, 0.0, -3.0]]
_KPB = [[True, True, True], [False, True, True]]  # the first sequence has no key at all
_Q = np.random.default_rng(121).standard_normal((2, 3, 4)).astype(np.float32)


def _layer_outcome(lib, device, train, grad, **kwargs):
    layer_args = {k: kwargs.pop(k) for k in list(kwargs) if k in ("norm_first", "batch_first", "activation")}
    layer = _seeded(lib, lib.nn.TransformerEncoderLayer(4, 2, 8, 0.0, **{"batch_first": True, **layer_args}))
    layer = layer.to(device).train(train)
    masks = {k: lib.tensor(v, device=device) if isinstance(v, list) else v for k, v in kwargs.items()}
    with lib.set_grad_enabled(grad):
        return layer(lib.tensor(_Q, device=device), **masks)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", ["eval-no_grad", "eval-grad", "train-no_grad"])
@pytest.mark.parametrize("masks", [
    dict(src_mask=_FM),  # the fused layer masks where the bias is nonzero
    dict(src_key_padding_mask=_KP),
    dict(src_mask=_FM, src_key_padding_mask=_KP),  # ... where their sum is nonzero (0.5 - 0.5 attends)
    dict(src_key_padding_mask=_KPB),  # a query with no key: NaN in the fused layer, zero weights otherwise
    dict(src_key_padding_mask=_KPB, norm_first=True),
    dict(src_key_padding_mask=_KPB, batch_first=False),  # not fused
    dict(src_key_padding_mask=_KPB, activation="tanh"),  # not fused (a callable other than relu/gelu below)
    {},
], ids=["bias", "float_padding", "bias_and_padding", "no_key", "no_key_norm_first", "not_batch_first",
        "other_activation", "no_masks"])
def test_encoder_layer_inference_matches_pytorchs_fused_kernel(masks, mode, device):
    masks = dict(masks)
    if masks.get("activation") == "tanh":
        masks["activation"] = None  # filled per library below

    def run(lib, dev):
        kwargs = dict(masks)
        if "activation" in kwargs:
            kwargs["activation"] = lib.tanh
        return _layer_outcome(lib, dev, mode.startswith("train"), mode.endswith("-grad"), **kwargs)

    _same(run, device)


@pytest.mark.parametrize("device", DEVICES)
def test_encoder_layer_fused_path_is_off_with_hooks_and_switch(device):
    def run(lib, dev, how):
        layer = _seeded(lib, lib.nn.TransformerEncoderLayer(4, 2, 8, 0.0, batch_first=True)).to(dev).eval()
        if how == "hook":
            layer.linear1.register_forward_hook(lambda *args: None)
        lib.backends.mha.set_fastpath_enabled(how != "switch")
        try:
            with lib.no_grad():
                return layer(lib.tensor(_Q, device=dev), src_mask=lib.tensor(_FM, device=dev))
        finally:
            lib.backends.mha.set_fastpath_enabled(True)

    for how in ("hook", "switch", "fused"):
        _same(lambda lib, dev: run(lib, dev, how), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", ["padding", "attn_mask", "float_padding", "need_weights", "cross", "train"])
def test_multihead_attention_inference_matches_pytorchs_fused_kernel(case, device):
    def run(lib, dev):
        mha = _seeded(lib, lib.nn.MultiheadAttention(4, 2, batch_first=True)).to(dev).train(case == "train")
        x = lib.tensor(_Q, device=dev)
        kwargs = {"need_weights": case == "need_weights"}
        if case == "attn_mask":
            kwargs["attn_mask"] = lib.tensor([[True, True, True], [False, True, True], [False, False, False]],
                                             device=dev)
        elif case == "float_padding":  # floating masks keep PyTorch off its fused kernel: zero weights, no NaN
            kwargs["key_padding_mask"] = lib.zeros(2, 3, device=dev).masked_fill(lib.tensor(_KPB, device=dev),
                                                                                float("-inf"))
        else:
            kwargs["key_padding_mask"] = lib.tensor(_KPB, device=dev)
        with lib.no_grad():
            return mha(x, x.clone() if case == "cross" else x, x, **kwargs)[0]

    _same(run, device)


# ---- torch.gradient: a spacing list holding a tensor is a list of coordinate tensors, as PyTorch's parser reads it --
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("spacing", [
    lambda lib, d: [lib.arange(4.0, device=d), 0.5],
    lambda lib, d: [0.5, lib.arange(4.0, device=d) ** 2],
    lambda lib, d: (lib.arange(4.0, device=d), 1),
    lambda lib, d: [lib.arange(4.0, device=d), lib.arange(4.0, device=d) * 0.5],
    lambda lib, d: [0.5, 2],
    lambda lib, d: 0.25,
], ids=["tensor_then_float", "float_then_tensor", "tensor_then_int", "tensors", "numbers", "scalar"])
def test_gradient_spacing_lists_match_pytorch(spacing, device):
    values = np.random.default_rng(7).standard_normal((4, 4))
    _same(lambda lib, d: lib.gradient(lib.tensor(values, device=d), spacing=spacing(lib, d)), device)


# ---- cross_entropy with class-probability targets refuses an ignore_index that names a class, as PyTorch ---------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", [
    lambda lib, d: lib.nn.functional.cross_entropy(lib.ones(2, 3, device=d), lib.ones(2, 3, device=d) / 3,
                                                   ignore_index=0),
    lambda lib, d: lib.nn.CrossEntropyLoss(ignore_index=2, label_smoothing=0.1)(lib.ones(2, 3, 4, device=d),
                                                                                lib.ones(2, 3, 4, device=d) / 3),
    lambda lib, d: lib.nn.functional.cross_entropy(lib.ones(2, 3, device=d), lib.ones(2, 3, device=d) / 3,
                                                   weight=lib.ones(4, device=d), ignore_index=1),
    lambda lib, d: lib.nn.functional.cross_entropy(lib.ones(2, 3, device=d), lib.ones(2, 3, device=d) / 3,
                                                   ignore_index=-1),
    lambda lib, d: lib.nn.functional.cross_entropy(lib.ones(2, 3, device=d), lib.ones(2, 3, device=d) / 3),
    lambda lib, d: lib.nn.functional.cross_entropy(lib.ones(2, 3, device=d), lib.ones(2, 3, dtype=lib.long,
                                                                                        device=d), ignore_index=0),
    lambda lib, d: lib.nn.functional.cross_entropy(lib.ones(2, 3, device=d), lib.tensor([0, 2], device=d),
                                                   ignore_index=0),
], ids=["ignore_0", "module_ignore_2", "before_weight_check", "negative_ok", "default_ok", "long_target_first",
        "class_indices"])
def test_cross_entropy_probability_targets_and_ignore_index_match_pytorch(case, device):
    _same(case, device)
