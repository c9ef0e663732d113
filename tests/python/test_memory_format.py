"""Constants, tandem.strided and the memory formats (channels_last strides, preserve_format) against PyTorch."""
import math
import pickle

import pytest
import torch

import tandem
from oracle import assert_same, assert_same_error, rand_values

X4 = rand_values(2, 3, 4, 5, seed=1)
X5 = rand_values(2, 3, 2, 4, 3, seed=2)


def _pair(values, device, dtype="float64"):
    return tandem.tensor(values, dtype=getattr(tandem, dtype), device=device), \
        torch.tensor(values, dtype=getattr(torch, dtype))


def test_constants_and_layout_objects(device):
    assert tandem.e == math.e and tandem.pi == math.pi and tandem.inf == math.inf and math.isnan(tandem.nan)
    assert tandem.newaxis is None
    assert tandem.ones(2, device=device).layout is tandem.strided
    assert isinstance(tandem.strided, tandem.layout) and isinstance(tandem.channels_last, tandem.memory_format)
    assert repr(tandem.channels_last) == "tandem.channels_last"
    assert pickle.loads(pickle.dumps(tandem.channels_last)) is tandem.channels_last
    assert tandem.ones(2, 3)[:, tandem.newaxis].shape == (2, 1, 3)


@pytest.mark.parametrize("fmt,values", [("channels_last", X4), ("channels_last_3d", X5)])
def test_contiguous_channels_last(fmt, values, device):
    t, x = _pair(values, device)
    got, want = t.contiguous(memory_format=getattr(tandem, fmt)), x.contiguous(memory_format=getattr(torch, fmt))
    assert got.stride() == want.stride()
    assert_same(got, want)
    assert got.is_contiguous(memory_format=getattr(tandem, fmt))
    assert not got.is_contiguous() and not t.is_contiguous(memory_format=getattr(tandem, fmt))
    assert got.contiguous(memory_format=getattr(tandem, fmt)) is got
    back = got.contiguous()
    assert back.stride() == x.stride() and back.is_contiguous()


def test_is_contiguous_size_one_dims(device):
    for shape in ((2, 3, 1, 1), (2, 1, 4, 4), (1, 1, 1, 1)):
        t, x = tandem.ones(*shape, device=device), torch.ones(*shape)
        assert t.is_contiguous(memory_format=tandem.channels_last) == \
            x.is_contiguous(memory_format=torch.channels_last)
    assert not tandem.ones(3, 4).is_contiguous(memory_format=tandem.channels_last)


def test_clone_and_like_formats(device):
    t, x = _pair(X4, device)
    for name in ("channels_last", "contiguous_format", "preserve_format"):
        for tt, xx in ((t, x), (t.transpose(0, 2), x.transpose(0, 2)), (t[:, :, ::2], x[:, :, ::2])):
            got = tt.clone(memory_format=getattr(tandem, name))
            want = xx.clone(memory_format=getattr(torch, name))
            assert got.stride() == want.stride(), (name, got.stride(), want.stride())
            assert_same(got, want)
            assert tandem.clone(tt, memory_format=getattr(tandem, name)).stride() == want.stride()
            for like in ("empty_like", "zeros_like", "ones_like", "rand_like", "randn_like"):
                assert getattr(tandem, like)(tt, memory_format=getattr(tandem, name)).stride() == \
                    getattr(torch, like)(xx, memory_format=getattr(torch, name)).stride()
            assert_same(tandem.full_like(tt, 2.5, memory_format=getattr(tandem, name)),
                        torch.full_like(xx, 2.5, memory_format=getattr(torch, name)))
            got = tandem.randint_like(tt, 3, 9, memory_format=getattr(tandem, name), dtype=tandem.int32)
            want = torch.randint_like(xx, 3, 9, memory_format=getattr(torch, name), dtype=torch.int32)
            assert got.stride() == want.stride() and got.dtype == tandem.int32 and got.device == t.device
            assert 3 <= got.min().item() and got.max().item() < 9
            assert tandem.randint_like(tt, high=4, memory_format=getattr(tandem, name)).max().item() < 4
    # preserve_format (the default) keeps a channels-last input's strides
    cl = t.contiguous(memory_format=tandem.channels_last)
    assert tandem.zeros_like(cl).stride() == (60, 1, 15, 3)
    grad = tandem.zeros_like(cl, requires_grad=True)
    assert grad.requires_grad and grad.is_leaf and grad.stride() == (60, 1, 15, 3)
    # the keywords the factories pass on when the result is laid out in Python
    ones = tandem.ones_like(cl, dtype=tandem.float32, layout=tandem.strided, device="cpu")
    assert ones.stride() == (60, 1, 15, 3) and ones.dtype == tandem.float32 and ones.device == tandem.device("cpu")
    assert tandem.full_like(t.transpose(0, 2), 7, dtype=tandem.int64).tolist() == \
        torch.full_like(x.transpose(0, 2), 7, dtype=torch.int64).tolist()
    assert tandem.zeros_like(t, layout=tandem.strided).is_contiguous()


def test_clone_channels_last_gradient(device):
    t = tandem.tensor(X4, dtype=tandem.float64, device=device, requires_grad=True)
    x = torch.tensor(X4, dtype=torch.float64, requires_grad=True)
    t.contiguous(memory_format=tandem.channels_last).sin().sum().backward()
    x.contiguous(memory_format=torch.channels_last).sin().sum().backward()
    assert_same(t.grad, x.grad)


def test_to_and_empty_with_memory_format(device):
    t, x = _pair(X4, device)
    got = t.to(tandem.float32, memory_format=tandem.channels_last)
    want = x.to(torch.float32, memory_format=torch.channels_last)
    assert got.stride() == want.stride()
    assert_same(got, want)
    same = t.to(memory_format=tandem.channels_last)
    assert same.stride() == x.to(memory_format=torch.channels_last).stride()
    assert same.to(memory_format=tandem.channels_last) is same
    cl, xcl = same, x.to(memory_format=torch.channels_last)
    assert cl.to(tandem.float32, memory_format=tandem.preserve_format).stride() == \
        xcl.to(torch.float32, memory_format=torch.preserve_format).stride()
    assert tandem.empty(2, 3, 4, 5, memory_format=tandem.channels_last, device=device).stride() == \
        torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride()


def test_module_to_channels_last(device):
    conv, ref = tandem.nn.Conv2d(3, 4, 3).to(device), torch.nn.Conv2d(3, 4, 3)
    conv.to(memory_format=tandem.channels_last)
    ref.to(memory_format=torch.channels_last)
    assert conv.weight.stride() == ref.weight.stride() and conv.bias.stride() == ref.bias.stride()
    assert isinstance(conv.weight, tandem.nn.Parameter)
    out = conv(tandem.ones(1, 3, 5, 5, device=device))
    assert out.shape == (1, 4, 3, 3)


def test_memory_format_errors():
    assert_same_error(lambda lib: lib.ones(3, 4).contiguous(memory_format=lib.channels_last))
    assert_same_error(lambda lib: lib.ones(3, 4, 5, 6).contiguous(memory_format=lib.channels_last_3d))
    assert_same_error(lambda lib: lib.ones(3, 4).transpose(0, 1).contiguous(memory_format=lib.preserve_format))
    assert_same_error(lambda lib: lib.ones(3, 4).contiguous(memory_format=1))
    assert_same_error(lambda lib: lib.ones(3, 4).to(memory_format=lib.channels_last))
    assert_same_error(lambda lib: lib.empty(2, 3, memory_format=lib.channels_last))
    assert_same_error(lambda lib: lib.empty(2, 3, memory_format=lib.preserve_format))
    assert_same_error(lambda lib: lib.empty_like(lib.ones(2, 3), memory_format=lib.channels_last))
    assert_same_error(lambda lib: lib.zeros_like(lib.ones(2, 3), memory_format=1))
    for like, args in (("rand_like", ()), ("randint_like", (5,))):  # PyTorch lists its overloads here
        with pytest.raises(TypeError, match=f"{like}\\(\\): argument 'memory_format' must be torch.memory_format"):
            getattr(tandem, like)(tandem.ones(2, 3), *args, memory_format=1)
    with pytest.raises(NotImplementedError, match="layout=tandem.sparse_coo is not supported"):
        tandem.zeros_like(tandem.ones(2), layout=tandem.layout("sparse_coo"))
