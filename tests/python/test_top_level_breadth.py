"""torch.* names ordinary programs reach for, against PyTorch: the removed linear-algebra functions' messages,
get_device_module and the xpu/mps modules, histogramdd, nonzero_static, empty_permuted, torch.utils.dlpack and
from_dlpack(device=, copy=), torch.functional."""
import numpy as np
import pytest
import torch

import tandem
from oracle import assert_same, from_torch, raised


@pytest.mark.parametrize("call", [
    lambda lib, a: lib.qr(a), lambda lib, a: lib.qr(a, some=False), lambda lib, a: lib.solve(a, a),
    lambda lib, a: lib.eig(a, eigenvectors=True), lambda lib, a: lib.lstsq(a, a), lambda lib, a: lib.symeig(a),
    lambda lib, a: lib.matrix_rank(a),
    # and the Tensor methods PyTorch keeps for them
    lambda lib, a: a.qr(), lambda lib, a: a.qr(some=False), lambda lib, a: a.solve(a), lambda lib, a: a.lstsq(a),
    lambda lib, a: a.eig(True), lambda lib, a: a.symeig(eigenvectors=True),
])
def test_removed_functions_raise_pytorchs_message(call):
    want = raised(lambda: call(torch, torch.eye(3)))
    got = raised(lambda: call(tandem, tandem.eye(3)))
    assert type(want) is RuntimeError and type(got) is RuntimeError and str(got) == str(want)


def test_get_device_module_and_device_queries():
    assert tandem.get_device_module("cpu") is tandem.cpu and tandem.get_device_module("cuda:1") is tandem.cuda
    assert tandem.get_device_module(tandem.device("cuda")) is tandem.cuda
    assert tandem.get_device_module() is (tandem.cuda if tandem.accelerator.current_accelerator() else tandem.cpu)
    assert tandem.get_device_module("xpu") is tandem.xpu
    for bad in ("meta", 5):
        want, got = raised(lambda: torch.get_device_module(bad)), raised(lambda: tandem.get_device_module(bad))
        assert type(got) is type(want) and str(got) == str(want)
    for name in ("is_available", "device_count", "is_initialized", "is_bf16_supported", "memory_allocated"):
        assert getattr(tandem.xpu, name)() == getattr(torch.xpu, name)()
    assert tandem.mps.is_available() is False and tandem.mps.device_count() == 0
    assert tandem.xpu.manual_seed(0) is None and tandem.mps.manual_seed(0) is None
    for lib_call in (lambda lib: lib.xpu.synchronize(), lambda lib: lib.xpu.current_device(),
                     lambda lib: lib.mps.synchronize(), lambda lib: lib.mps.empty_cache()):
        want, got = raised(lambda: lib_call(torch)), raised(lambda: lib_call(tandem))
        assert type(got) is type(want) and str(got).split("\nhint:")[0] == str(want)
    assert tandem.is_distributed(tandem.ones(2)) is False and tandem.has_lapack and tandem.has_spectral
    assert tandem.init_num_threads() is None


def _points(seed, n=40, d=2):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal((n, d)))


@pytest.mark.parametrize("kwargs", [
    {"bins": 3}, {"bins": [2, 5]}, {"bins": 4, "range": [-1.0, 1.0, -2.0, 0.5]}, {"bins": [3, 3], "density": True},
    {"bins": 2, "weight": "w"}, {"bins": 3, "weight": "w", "density": True, "range": [-1.0, 1.0, -1.0, 1.0]},
    {"bins": "edges"},
])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_histogramdd_matches_pytorch(device, kwargs, dtype):
    x = _points(1).to(dtype)
    kwargs = dict(kwargs)
    if kwargs.get("weight") == "w":
        kwargs["weight"] = torch.rand(40, dtype=dtype, generator=torch.Generator().manual_seed(3))
    if kwargs["bins"] == "edges":
        kwargs["bins"] = [torch.tensor([-2.0, -0.5, 0.0, 3.0], dtype=dtype), torch.tensor([-1.0, 1.0], dtype=dtype)]
    mine = {k: ([from_torch(b, device) for b in v] if k == "bins" and not isinstance(v, int) and
                isinstance(v[0], torch.Tensor) else from_torch(v, device) if isinstance(v, torch.Tensor) else v)
            for k, v in kwargs.items()}
    got = tandem.histogramdd(from_torch(x, device), **mine)
    want = torch.histogramdd(x, **kwargs)
    assert type(got).__name__ == "histogramdd" and got._fields == ("hist", "bin_edges")
    assert_same(got.hist, want.hist, device=tandem.device(device))
    assert len(got.bin_edges) == len(want.bin_edges)
    for g, w in zip(got.bin_edges, want.bin_edges):
        assert_same(g, w, device=tandem.device(device))


def test_histogramdd_shapes_and_errors(device):
    x = _points(2, n=12, d=3).float().reshape(2, 2, 3, 3)
    assert_same(tandem.histogramdd(from_torch(x, device), bins=2).hist, torch.histogramdd(x, bins=2).hist)
    same = torch.tensor([[1.0, 2.0], [1.0, 2.0]])  # one value per dim: the range widens by 1/2 each way
    assert_same(tandem.histogramdd(from_torch(same, device), bins=2).bin_edges[0], torch.histogramdd(same, 2)[1][0])
    for case in (lambda lib, t: lib.histogramdd(t.int(), bins=2), lambda lib, t: lib.histogramdd(t, bins=[2]),
                 lambda lib, t: lib.histogramdd(t, bins=2, range=[0.0, 1.0]),
                 lambda lib, t: lib.histogramdd(t, bins=0)):
        want, got = raised(lambda: case(torch, same)), raised(lambda: case(tandem, from_torch(same, device)))
        assert type(got) is type(want) and str(got) == str(want)


@pytest.mark.parametrize("size", [0, 2, 3, 6])
def test_nonzero_static(device, size):
    x = torch.tensor([[1, 0, 2], [0, 3, 0]])
    assert_same(tandem.nonzero_static(from_torch(x, device), size=size, fill_value=-7),
                torch.nonzero_static(x, size=size, fill_value=-7), device=tandem.device(device))
    assert_same(tandem.nonzero_static(from_torch(x, device), size=size), torch.nonzero_static(x, size=size))
    with pytest.raises(RuntimeError, match="^nonzero_static: 'size' must be an non-negative integer$"):
        tandem.nonzero_static(from_torch(x, device), size=-1)


def test_empty_permuted(device):
    for size, layout in (((2, 3), (1, 0)), ((2, 3, 4, 5), (0, 2, 3, 1)), ((2, 3, 4), (2, 0, 1)), ((), ())):
        got = tandem.empty_permuted(size, layout, dtype=tandem.float64, device=device)
        want = torch.empty_permuted(size, layout, dtype=torch.float64)
        assert got.shape == want.shape and got.stride() == want.stride() and got.dtype == tandem.float64
        assert got.device == tandem.device(device)
    assert tandem.empty_permuted((2,), (0,), requires_grad=True).requires_grad
    for case in (lambda lib: lib.empty_permuted((2, 3), (0, 0)), lambda lib: lib.empty_permuted((2, 3), (0,))):
        want, got = raised(lambda: case(torch)), raised(lambda: case(tandem))
        assert type(got) is type(want) and str(got) == str(want)


def test_utils_dlpack_round_trips():
    from tandem.utils.dlpack import DLDeviceType, from_dlpack, to_dlpack
    t = tandem.arange(4.0)
    shared = from_dlpack(to_dlpack(t))
    shared[0] = 9.0
    assert t.tolist() == [9.0, 1.0, 2.0, 3.0]
    p = torch.utils.dlpack.from_dlpack(tandem.to_dlpack(t))  # PyTorch reads tandem's legacy capsule
    p[1] = 8.0
    assert t.tolist() == [9.0, 8.0, 2.0, 3.0]
    back = from_dlpack(torch.utils.dlpack.to_dlpack(torch.arange(3, dtype=torch.int16)))
    assert back.dtype == tandem.int16 and back.tolist() == [0, 1, 2]
    assert dict(DLDeviceType.__members__.items()).keys() == dict(torch.utils.dlpack.DLDeviceType.__members__).keys()
    assert [int(v) for v in DLDeviceType] == [int(v) for v in torch.utils.dlpack.DLDeviceType]


def test_from_dlpack_copy_and_device(device):
    a = np.arange(3.0)
    copied = tandem.from_dlpack(a, copy=True)
    copied[0] = 5.0
    assert a.tolist() == [0.0, 1.0, 2.0]
    shared = tandem.from_dlpack(a, copy=False)
    shared[0] = 5.0
    assert a[0] == 5.0
    moved = tandem.from_dlpack(a, device=device)
    assert moved.device == tandem.device(device) and moved.tolist() == [5.0, 1.0, 2.0]
    if device != "cpu":
        with pytest.raises(BufferError, match="copy=False forbids the copy"):
            tandem.from_dlpack(a, device=device, copy=False)


def test_functional_module():
    assert tandem.functional.__all__ == torch.functional.__all__
    for name in tandem.functional.__all__:
        assert getattr(tandem.functional, name) is getattr(tandem, name)


class _Marked(tandem.Tensor):
    pass


class _Param(tandem.Tensor):  # the custom-parameter pattern (bitsandbytes-style classes)
    def __new__(cls, data):
        return tandem.Tensor._make_subclass(cls, data, True)


def test_as_subclass_keeps_the_graph(device):
    x = tandem.ones(2, device=device, requires_grad=True)
    y = x.as_subclass(_Marked)
    assert type(y) is _Marked and y.requires_grad and not y.is_leaf and y.grad_fn is not None
    assert y.data_ptr() == x.data_ptr() and y.device == tandem.device(device)
    (y * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="^Creating a Tensor subclass from a class that does not inherit from Tensor"):
        x.as_subclass(int)


def test_make_subclass_as_pytorch(device):
    data = tandem.zeros(3, device=device)
    p = _Param(data)
    assert type(p) is _Param and p.requires_grad and p.is_leaf and p.grad_fn is None
    assert p.data_ptr() == data.data_ptr()
    q = tandem.Tensor._make_subclass(_Marked, tandem.ones(2, requires_grad=True))
    assert type(q) is _Marked and not q.requires_grad and q.is_leaf
