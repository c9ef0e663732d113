"""Keyword forms PyTorch accepts and programs use: shapes given as size=/dims=/repeats=, the second operand named
(other=, exponent=, values=, value=), view(dtype), gather(sparse_grad=), scatter(value=), and the deprecated
size_average/reduce pair of the losses. Each is checked against PyTorch (values, dtypes, errors)."""
import warnings

import numpy as np
import pytest
import torch

import tandem


def _same(t, ref):
    assert str(t.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    assert tuple(t.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(t.cpu().numpy(), ref.numpy())


X = np.arange(6, dtype=np.float32).reshape(2, 3)

SHAPE_KEYWORDS = [
    ("zeros", lambda m, x: m.zeros(size=(2, 3), dtype=m.int32)),
    ("ones", lambda m, x: m.ones(size=[1, 2])),
    ("empty_shape", lambda m, x: m.empty(size=(2, 3)).fill_(value=1.5)),
    ("new_zeros", lambda m, x: x.new_zeros(size=(3,))),
    ("new_ones", lambda m, x: x.new_ones(size=(2, 2))),
    ("new_empty", lambda m, x: x.new_empty(size=(3,)).zero_()),
    ("view", lambda m, x: x.view(size=(3, 2))),
    ("expand", lambda m, x: x[:1].expand(size=(4, 3))),
    ("permute", lambda m, x: x.permute(dims=(1, 0))),
    ("flip", lambda m, x: x.flip(dims=(0,))),
    ("repeat", lambda m, x: x.repeat(repeats=(2, 1))),
    ("tile", lambda m, x: x.tile(dims=(2,))),
]

OPERAND_KEYWORDS = [
    ("mul", lambda m, x: x.mul(other=2)),
    ("mul_", lambda m, x: x.clone().mul_(other=x)),
    ("pow", lambda m, x: x.pow(exponent=2)),
    ("torch.pow", lambda m, x: m.pow(x, exponent=3)),
    ("eq", lambda m, x: x.eq(other=1)),
    ("atan2", lambda m, x: x.atan2(other=x + 1)),
    ("heaviside", lambda m, x: x.heaviside(values=m.tensor(0.5, device=x.device))),
    ("torch.heaviside", lambda m, x: m.heaviside(x - 2, values=m.tensor(0.5, device=x.device))),
    ("fill_", lambda m, x: x.clone().fill_(value=3)),
    ("type_as", lambda m, x: x.type_as(other=m.ones(1, dtype=m.int64, device=x.device))),
    ("view_as", lambda m, x: x.view_as(other=m.ones(3, 2))),
    ("reshape_as", lambda m, x: x.reshape_as(other=m.ones(6))),
    ("expand_as", lambda m, x: x[:1].expand_as(other=x)),
    ("gather", lambda m, x: m.gather(x, 0, m.tensor([[0, 1, 0]], device=x.device), sparse_grad=False)),
    ("gather_method", lambda m, x: x.gather(1, m.tensor([[2], [0]], device=x.device), sparse_grad=True)),
    ("scatter_value", lambda m, x: x.new_zeros(2, 3).scatter_(0, m.tensor([[0, 1, 0]], device=x.device), value=1.0)),
    ("scatter_value_fn", lambda m, x: m.scatter(x.new_zeros(2, 3), 0, m.tensor([[1, 1, 0]], device=x.device), value=2.0)),
    ("scatter_src_kw", lambda m, x: x.new_zeros(2, 3).scatter(0, m.tensor([[0, 1, 0]], device=x.device), src=x.new_ones(1, 3))),
]

VIEW_DTYPE = [
    ("same_size", lambda m, x: x.view(m.int32)),
    ("narrower", lambda m, x: x.view(m.int16)),
    ("keyword", lambda m, x: x.view(dtype=m.int32)),
    ("wider", lambda m, x: m.arange(8, dtype=m.int32).view(m.float64).view(m.int32)),
    ("bytes_to_float", lambda m, x: m.ones(2, 4, dtype=m.uint8).view(m.float32)),
    ("bool", lambda m, x: m.ones(2, 2).view(m.bool)),
    ("strided_rows", lambda m, x: m.arange(16, dtype=m.int16).reshape(4, 4)[::2].view(m.int32)),
    ("offset", lambda m, x: m.arange(8, dtype=m.int16)[2:].view(m.int32)),
]


@pytest.mark.parametrize("name,call", SHAPE_KEYWORDS + OPERAND_KEYWORDS + VIEW_DTYPE,
                         ids=[c[0] for c in SHAPE_KEYWORDS + OPERAND_KEYWORDS + VIEW_DTYPE])
def test_keyword_form_matches_pytorch(device, name, call):
    expected = call(torch, torch.from_numpy(X.copy()))
    got = call(tandem, tandem.tensor(X, device=device))
    if name in ("zeros", "ones", "empty_shape", "wider", "bytes_to_float", "bool", "strided_rows", "offset"):
        got = got.cpu()  # built on the default device
    else:
        assert got.device.type == tandem.device(device).type
    _same(got.cpu(), expected)


@pytest.mark.parametrize("call", [
    lambda m: m.tensor(1.0).view(m.int16),
    lambda m: m.arange(6.0).reshape(2, 3).t().view(m.int16),
    lambda m: m.arange(6.0).reshape(2, 3).view(m.float64),
    lambda m: m.arange(6.0).reshape(2, 3)[:, 1:].view(m.float64),
    lambda m: m.arange(8.0).reshape(2, 4)[:, ::2].view(m.float64),
    lambda m: m.arange(12, dtype=m.int16).reshape(3, 4)[:, :2].view(m.float32) + 0,  # row stride 4: fine
    lambda m: m.arange(15, dtype=m.int16).reshape(5, 3)[:, :2].view(m.int32),  # row stride 3: not divisible
])
def test_view_dtype_errors_match_pytorch(call):
    try:
        expected = call(torch)
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as got:
            call(tandem)
        assert str(got.value).splitlines()[0] == str(e)
    else:
        _same(call(tandem), expected)


def test_view_dtype_shares_memory_and_never_requires_grad(device):
    x = tandem.zeros(4, device=device, requires_grad=True)
    v = x.detach().view(tandem.int32)
    v.fill_(0x3F800000)  # the bits of 1.0f
    assert x.tolist() == [1.0, 1.0, 1.0, 1.0]
    assert x.view(tandem.float32).requires_grad is False  # PyTorch: view(dtype) is not differentiable


def test_shape_keyword_conflicts():
    with pytest.raises(TypeError, match="got multiple values for argument 'size'"):
        tandem.zeros(2, size=(2,))
    with pytest.raises(TypeError, match="got multiple values for argument 'dims'"):
        tandem.ones(2, 2).permute(1, 0, dims=(1, 0))
    with pytest.raises(TypeError, match="got multiple values for argument 'repeats'"):
        tandem.ones(2).repeat(2, repeats=3)
    with pytest.raises(TypeError, match="got multiple values for argument 'value'"):
        tandem.zeros(2, 3).scatter(0, tandem.tensor([[0, 1, 0]]), 1.0, value=2.0)
    with pytest.raises(TypeError, match='missing 1 required positional argument: "src"'):
        tandem.zeros(2, 3).scatter(0, tandem.tensor([[0, 1, 0]]))


LEGACY = [
    ("mse_loss", dict(size_average=False)), ("mse_loss", dict(reduce=False)), ("l1_loss", dict(size_average=True)),
    ("nll_loss", dict(reduce=False)), ("cross_entropy", dict(size_average=False)),
    ("binary_cross_entropy", dict(size_average=False)), ("binary_cross_entropy_with_logits", dict(reduce=False)),
]


@pytest.mark.parametrize("fn,kwargs", LEGACY, ids=[f"{f}-{list(k)[0]}" for f, k in LEGACY])
def test_legacy_loss_reduction_arguments(fn, kwargs):
    rng = np.random.default_rng(0)
    if fn in ("nll_loss", "cross_entropy"):
        inputs = (rng.standard_normal((4, 3)).astype(np.float32), np.array([0, 2, 1, 2]))
    else:
        inputs = (rng.uniform(0.1, 0.9, (4, 3)).astype(np.float32), rng.uniform(0, 1, (4, 3)).astype(np.float32))
    with warnings.catch_warnings(record=True) as w_ref:
        warnings.simplefilter("always")
        ref = getattr(torch.nn.functional, fn)(*[torch.from_numpy(a) for a in inputs], **kwargs)
    with warnings.catch_warnings(record=True) as w_got:
        warnings.simplefilter("always")
        got = getattr(tandem.nn.functional, fn)(*[tandem.tensor(a) for a in inputs], **kwargs)
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
    assert [str(w.message) for w in w_got] == [str(w.message) for w in w_ref]


@pytest.mark.parametrize("cls,kwargs,reduction", [
    ("MSELoss", dict(size_average=False), "sum"), ("L1Loss", dict(reduce=False), "none"),
    ("CrossEntropyLoss", dict(size_average=True, reduce=True), "mean"), ("NLLLoss", dict(reduce=False), "none"),
    ("BCELoss", dict(size_average=False), "sum"), ("BCEWithLogitsLoss", dict(reduce=False), "none"),
    ("SmoothL1Loss", dict(size_average=False), "sum"), ("MultiMarginLoss", dict(reduce=False), "none"),
    ("HuberLoss", dict(reduction="sum"), "sum"), ("MSELoss", dict(), "mean"),
])
def test_legacy_loss_module_arguments(cls, kwargs, reduction):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert getattr(torch.nn, cls)(**kwargs).reduction == reduction
        assert getattr(tandem.nn, cls)(**kwargs).reduction == reduction


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_and_l1_elementwise_weight(device, reduction):
    a, b, w = [np.array(v, dtype=np.float32) for v in ([1, 2, 3], [0, 0, 0], [1, 0, 2])]
    for fn in ("mse_loss", "l1_loss"):
        ref = getattr(torch.nn.functional, fn)(*map(torch.from_numpy, (a, b)), weight=torch.from_numpy(w),
                                               reduction=reduction)
        got = getattr(tandem.nn.functional, fn)(*[tandem.tensor(v, device=device) for v in (a, b)],
                                                weight=tandem.tensor(w, device=device), reduction=reduction)
        np.testing.assert_allclose(got.cpu().numpy(), ref.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="Weights and input must have the same size."):
        tandem.nn.functional.mse_loss(tandem.ones(3), tandem.zeros(3), weight=tandem.ones(2))
