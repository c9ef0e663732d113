"""Tensor._base and Tensor._is_view() against PyTorch: which results are views (view ops, chains of them, the
complex parts) and which are not (copies, detach, .data, dtype views, reductions, Parameters), and what _base
holds: the first tensor of the chain of views, kept alive by the view as in PyTorch."""
import gc
import weakref

import pytest

import tandem

torch = pytest.importorskip("torch")

CASES = {
    "view": lambda x, c: x.view(16), "slice": lambda x, c: x[1:], "T": lambda x, c: x.T,
    "detach": lambda x, c: x.detach(), "reshape": lambda x, c: x.reshape(16),
    "reshape that copies": lambda x, c: x.T.reshape(16), "contiguous": lambda x, c: x.contiguous(),
    "data": lambda x, c: x.data, "ellipsis": lambda x, c: x[...], "unbind": lambda x, c: x.unbind()[0],
    "split": lambda x, c: x.split(2)[0], "diagonal": lambda x, c: x.diagonal(),
    "expand": lambda x, c: x[:1].expand(3, 4), "real of real": lambda x, c: x.real,
    "real of complex": lambda x, c: c.real, "imag": lambda x, c: c.imag,
    "view_as_real": lambda x, c: torch_or_tandem(x).view_as_real(c),
    "as_strided": lambda x, c: x.as_strided((2,), (1,)), "unfold": lambda x, c: x.unfold(0, 2, 1),
    "view(dtype)": lambda x, c: x.view(torch_or_tandem(x).int32),
    "flatten": lambda x, c: x.flatten(), "squeeze": lambda x, c: x.squeeze(), "unsqueeze": lambda x, c: x.unsqueeze(0),
    "chunk": lambda x, c: x.chunk(2)[0], "narrow": lambda x, c: x.narrow(0, 0, 2), "select": lambda x, c: x[0],
    "to the same dtype": lambda x, c: x.to(torch_or_tandem(x).float32), "clone": lambda x, c: x.clone(),
    "movedim": lambda x, c: x.movedim(0, 1), "advanced index": lambda x, c: x[[0, 1]],
    "mask": lambda x, c: x[x > 0], "sum": lambda x, c: x.sum(0), "sum keepdim": lambda x, c: x.sum(0, keepdim=True),
    "argmax": lambda x, c: x.argmax(), "t of 1-d": lambda x, c: x[0].t(), "transpose": lambda x, c: x.transpose(0, 1),
    "permute": lambda x, c: x.permute(1, 0), "mT": lambda x, c: x.mT, "view_as": lambda x, c: x.view_as(x[0:4]),
    "swapaxes": lambda x, c: x.swapaxes(0, 1), "tensor_split": lambda x, c: x.tensor_split(2)[0],
    "arithmetic": lambda x, c: x + 1, "max(dim)": lambda x, c: x.max(0).values, "flip": lambda x, c: x.flip(0),
    "chain of views": lambda x, c: x[1:][1:].T, "atleast_2d": lambda x, c: torch_or_tandem(x).atleast_2d(x),
}


def torch_or_tandem(t):
    return tandem if isinstance(t, tandem.Tensor) else torch


def described(lib, name):
    x = lib.arange(16.0).reshape(4, 4)
    c = lib.zeros(4, 4, dtype=lib.complex64)
    v = CASES[name](x, c)
    base = v._base
    if base is None:
        return v._is_view(), None
    source = c if name in ("real of complex", "imag", "view_as_real") else x
    return v._is_view(), (tuple(base.shape), base.dtype == source.dtype, base.data_ptr() == source.data_ptr())


@pytest.mark.parametrize("name", CASES)
def test_is_view_and_base_match_pytorch(name):
    assert described(tandem, name) == described(torch, name)


def test_base_on_each_device(device):
    x = tandem.arange(6.0, device=device).reshape(2, 3).clone()  # reshape alone is a view of the arange
    v = x[1:].t()
    assert v._is_view() and v._base.device == x.device and tandem.equal(v._base, x)
    assert not x._is_view() and x._base is None


def test_parameters_and_gradients_are_not_views():
    x = tandem.randn(3, 3)
    assert not tandem.nn.Parameter(x[0])._is_view()
    w = tandem.randn(3, requires_grad=True)
    (w[1:] * 2).sum().backward()
    assert not w.grad._is_view()
    assert x[0].requires_grad_()._is_view()


def test_a_view_keeps_its_base_alive():
    x = tandem.randn(1000)
    v = x[10:20]
    ref = weakref.ref(x)  # the Python object goes; the base tensor itself stays with the view
    del x
    gc.collect()
    assert ref() is None
    assert tuple(v._base.shape) == (1000,)
