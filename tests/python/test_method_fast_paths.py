"""The C fast paths of view/reshape/permute/expand with plain int sizes (python/src/method_fast_paths.cpp) give
what the bound methods give: the same values, views, autograd history and errors, and they step aside for
keywords, other size forms, subclasses and TorchFunctionModes."""
import numpy as np
import pytest
import torch

import tandem
from tandem.overrides import TorchFunctionMode

DEVICES = ["cpu", "cuda:0"]


@pytest.mark.parametrize("device", DEVICES)
def test_int_sizes_and_other_forms_agree(device):
    x = tandem.arange(24.0, device=device).reshape(2, 3, 4).clone()  # no view itself: _base is x
    for method, ints in (("view", (4, -1)), ("reshape", (-1, 6)), ("permute", (2, 0, 1)), ("expand", (3, 2, 3, 4))):
        fast = getattr(x, method)(*ints)                      # the fast path
        slow = getattr(x, method)(ints)                       # a tuple: the bound method
        numpy_ints = getattr(x, method)(*[np.int64(i) for i in ints])
        assert fast.shape == slow.shape == numpy_ints.shape
        assert fast.stride() == slow.stride()
        assert fast.tolist() == slow.tolist() == numpy_ints.tolist()
        assert fast.data_ptr() == x.data_ptr()
        assert fast._is_view() and fast._base.shape == x.shape and fast._base.data_ptr() == x.data_ptr()
        assert fast.device == x.device and fast.dtype == x.dtype


@pytest.mark.parametrize("device", DEVICES)
def test_views_through_the_fast_path_keep_autograd(device):
    a = tandem.arange(6.0, device=device, requires_grad=True)
    y = a.view(2, 3).permute(1, 0).reshape(6).expand(2, 6)
    assert y.grad_fn.name() == "ExpandBackward0"
    y.sum().backward()
    assert a.grad.tolist() == [2.0] * 6
    # a write with history through a view the fast path made gives the base CopySlices history, as
    # the bound view does
    base = tandem.zeros(2, 3, device=device)
    v = base.view(6)
    w = tandem.ones(6, device=device, requires_grad=True)
    v.add_(w * 2)
    assert base.grad_fn is not None
    base.sum().backward()
    assert w.grad.tolist() == [2.0] * 6


@pytest.mark.parametrize("device", DEVICES)
def test_fast_path_errors_are_the_bound_methods(device):
    x = tandem.ones(2, 3, device=device)
    t = torch.ones(2, 3)
    for call in (lambda x: x.view(4, 2), lambda x: x.reshape(-1, -1), lambda x: x.permute(0, 0),
                 lambda x: x.permute(0, 5), lambda x: x.expand(3, 2), lambda x: x.view(2**62, 4)):
        with pytest.raises(Exception) as theirs:
            call(t)
        with pytest.raises(type(theirs.value)) as ours:
            call(x)
        assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]
    # an int past int64, a bool: left to the bound method's parser
    with pytest.raises(TypeError, match="Overflow when unpacking long long"):
        x.view(2**64)
    with pytest.raises(TypeError):
        x.view(True, 6)


def test_keywords_subclasses_and_modes_take_the_bound_method():
    x = tandem.arange(6.0)
    assert x.view(size=(3, 2)).shape == (3, 2)
    assert x.reshape(2, 3).shape == (2, 3)

    class Sub(tandem.Tensor):
        pass

    s = x.as_subclass(Sub)
    assert type(s.view(2, 3)) is Sub

    seen = []

    class Record(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(getattr(func, "__name__", str(func)))
            return func(*args, **(kwargs or {}))

    with Record():
        x.view(3, 2)
        x.permute(0)
        x.expand(2, 6)
    assert seen == ["view", "permute", "expand"]
