"""Behaviours found by running textbook PyTorch programs on tandem (the 'sweepd2l' program sweep: Dive into Deep
Learning's chapters and d2l/torch.py, Deep Learning with PyTorch part 1, Raschka's Machine Learning with PyTorch
and Scikit-Learn), each checked against PyTorch (the oracle) on every device."""
import pytest
import torch

import tandem


def _t(x, device):
    return tandem.tensor(x.tolist(), dtype=getattr(tandem, str(x.dtype).split(".")[1]), device=device)


def _same(got, want):
    assert got.shape == tuple(want.shape) and str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    assert torch.equal(torch.tensor(got.tolist(), dtype=want.dtype), want)


# ---- load_state_dict into a lazy layer before its first forward (d2l builders-guide/read-write) -----------------
@pytest.mark.parametrize("lazy, eager, shape", [
    ("LazyLinear", lambda nn: nn.Linear(4, 3), (2, 4)),
    ("LazyConv2d", lambda nn: nn.Conv2d(2, 3, 3), (1, 2, 5, 5)),
    ("LazyBatchNorm1d", lambda nn: nn.BatchNorm1d(3), (2, 3)),
])
def test_state_dict_loads_into_an_unused_lazy_layer_as_pytorch(device, lazy, eager, shape):
    torch.manual_seed(0)
    source = eager(torch.nn)
    if lazy == "LazyBatchNorm1d":
        source.running_mean.add_(0.5)
    state = source.state_dict()
    want_layer = getattr(torch.nn, lazy)(*([3] if lazy == "LazyLinear" else [3, 3] if lazy == "LazyConv2d" else []))
    want_layer.load_state_dict(state)
    layer = getattr(tandem.nn, lazy)(*([3] if lazy == "LazyLinear" else [3, 3] if lazy == "LazyConv2d" else []))
    layer.to(device)
    result = layer.load_state_dict({k: _t(v, device) for k, v in state.items()})
    assert result.missing_keys == [] and result.unexpected_keys == []
    # Still the lazy class with PyTorch's repr (in_features=0) until the first forward.
    assert type(layer).__name__ == type(want_layer).__name__ == lazy
    assert repr(layer) == repr(want_layer)
    for name, value in state.items():
        _same(layer.state_dict()[name], value)
        assert layer.state_dict()[name].device == tandem.device(device)
    x = torch.rand(shape)
    want_layer.eval(), layer.eval()
    want = want_layer(x)
    got = layer(_t(x, device))
    assert type(layer).__name__ == type(want_layer).__name__ == lazy[4:]
    assert repr(layer) == repr(want_layer)  # PyTorch fills in in_features only (Conv2d(0, ...), BatchNorm1d(0, ...))
    assert torch.allclose(torch.tensor(got.tolist()), want, atol=1e-6)


def test_lazy_linear_loaded_then_fed_the_wrong_width_raises_as_pytorch(device):
    state = torch.nn.Linear(4, 3).state_dict()
    want = torch.nn.LazyLinear(3)
    want.load_state_dict(state)
    layer = tandem.nn.LazyLinear(3, device=device)
    layer.load_state_dict({k: _t(v, device) for k, v in state.items()})
    message = "The in_features inferred from input: 5 is not equal to in_features from self.weight: 4"
    with pytest.raises(AssertionError, match=message):
        want(torch.ones(2, 5))
    with pytest.raises(AssertionError, match=message):
        layer(tandem.ones(2, 5, device=device))


def test_unused_lazy_layer_state_dict_keeps_its_placeholders(device):
    layer = tandem.nn.LazyLinear(3, device=device)
    state = layer.state_dict()
    assert list(state) == ["weight", "bias"]
    assert all(isinstance(v, tandem.nn.parameter.UninitializedParameter) for v in state.values())
    assert repr(state["weight"]) == repr(torch.nn.LazyLinear(3).state_dict()["weight"]) == "<UninitializedParameter>"
    other = tandem.nn.LazyLinear(3, device=device)
    assert not other.load_state_dict(state).missing_keys
    assert other.has_uninitialized_params()  # loading placeholders leaves the layer lazy
    assert other(tandem.ones(2, 6, device=device)).shape == (2, 3) and other.in_features == 6
    # A used layer's state dict loads into a fresh lazy layer (d2l: clone = MLP(); clone.load_state_dict(...)).
    clone = tandem.nn.LazyLinear(3, device=device)
    clone.load_state_dict(other.state_dict())
    x = tandem.rand(2, 6, device=device)
    assert tandem.equal(clone(x), other(x))


def test_lazy_placeholder_into_an_initialised_layer_raises_as_pytorch(device):
    message = "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in"
    with pytest.raises(RuntimeError, match=message):
        torch.nn.Linear(4, 3).load_state_dict(torch.nn.LazyLinear(3).state_dict())
    layer = tandem.nn.Linear(4, 3, device=device)
    with pytest.raises(RuntimeError, match=message):
        layer.load_state_dict(tandem.nn.LazyLinear(3).state_dict())


def test_placeholders_live_in_nn_parameter_as_in_pytorch():
    for name in ("UninitializedParameter", "UninitializedBuffer", "is_lazy"):
        assert hasattr(torch.nn.parameter, name) and hasattr(tandem.nn.parameter, name)
    assert tandem.nn.UninitializedParameter is tandem.nn.parameter.UninitializedParameter
    assert tandem.nn.parameter.is_lazy(tandem.nn.LazyLinear(2).weight)
    assert not tandem.nn.parameter.is_lazy(tandem.nn.Linear(2, 2).weight)


# ---- the joining functions take NumPy's axis= for dim= (d2l: d2l.stack((cx, cy, w, h), axis=-1)) ---------------
@pytest.mark.parametrize("name, keyword", [("stack", "axis"), ("cat", "axis"), ("concat", "axis"),
                                           ("concatenate", "dim"), ("concatenate", "axis"), ("stack", "dim")])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_joining_functions_take_numpys_name_for_dim(device, name, keyword, dim):
    a, b = torch.rand(2, 3), torch.rand(2, 3)
    want = getattr(torch, name)((a, b), **{keyword: dim})
    got = getattr(tandem, name)((_t(a, device), _t(b, device)), **{keyword: dim})
    assert got.device == tandem.device(device)
    _same(got, want)
    # out= and the keyword spelling of tensors= go through as well.
    out = tandem.empty(0, device=device)
    assert getattr(tandem, name)(tensors=[_t(a, device), _t(b, device)], **{keyword: dim}, out=out) is out
    _same(out, want)


def test_joining_functions_keep_their_errors(device):
    x = tandem.ones(2, device=device)
    for call in (lambda lib, x: lib.stack([x], 0, axis=0), lambda lib, x: lib.stack([x], dim=0, axis=0),
                 lambda lib, x: lib.concatenate([x], 0, dim=0), lambda lib, x: x.softmax(0, axis=0)):
        with pytest.raises(TypeError) as want:
            call(torch, torch.ones(2))
        with pytest.raises(TypeError) as got:
            call(tandem, x)
        assert str(got.value) == str(want.value)
    with pytest.raises(TypeError):  # nanobind's wording for an unknown keyword (docs/compat.md)
        tandem.cat([x], foo=1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        tandem.stack([x, x], axis=3)
    assert tandem.stack([x, x], 1).shape == (2, 2) and tandem.cat([x, x]).shape == (4,)
    assert tandem.stack.__name__ == "stack" and tandem.concatenate.__name__ == "concatenate"
