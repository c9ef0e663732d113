"""Zero-copy CUDA interop: DLPack (__dlpack__/from_dlpack with the stream handshake) and
__cuda_array_interface__ v3, both ways, with PyTorch and CuPy.

The sharing tests need a real GPU seen by tandem and PyTorch (they run in scripts/gpu-check.sh); the error
behaviour on emulated devices (whose memory is host memory) runs everywhere CI emulates cuda.
"""
import numpy as np
import pytest
import torch

import tandem

REAL_CUDA = tandem.cuda.is_available() and tandem._C._cuda_has_native_handles() and torch.cuda.is_available()
EMULATED_CUDA = tandem.cuda.is_available() and not tandem._C._cuda_has_native_handles()

real_gpu = pytest.mark.skipif(not REAL_CUDA, reason="needs a real CUDA GPU visible to tandem and PyTorch")
emulated = pytest.mark.skipif(not EMULATED_CUDA, reason="needs emulated cuda devices (TANDEM_EMULATE_CUDA)")


# ---- everywhere -------------------------------------------------------------------------------------------

def test_cpu_tensor_has_no_cuda_array_interface():
    t = tandem.ones(3)
    assert not hasattr(t, "__cuda_array_interface__")
    with pytest.raises(AttributeError) as e:
        t.__cuda_array_interface__
    assert str(e.value).startswith("Can't get __cuda_array_interface__ on non-CUDA tensor type")
    assert "tensor.cuda()" in str(e.value)


def test_requires_grad_export_refused_with_pytorchs_message():
    t = tandem.ones(3, requires_grad=True)
    with pytest.raises(BufferError) as e:
        t.__dlpack__()
    first = str(e.value).splitlines()[0]
    with pytest.raises(BufferError) as te:
        torch.ones(3, requires_grad=True).__dlpack__()
    assert first == str(te.value)
    assert "hint: t.detach()" in str(e.value)


def test_dlpack_device_of_cpu_tensor():
    assert tandem.ones(2).__dlpack_device__() == (1, 0)


# ---- emulated devices: clear errors instead of host pointers posing as device pointers ----------------------

@emulated
def test_emulated_dlpack_export_raises():
    last = tandem.cuda.device_count() - 1  # cuda:1 with TANDEM_EMULATE_CUDA=2
    t = tandem.ones(3, device=f"cuda:{last}")
    assert t.__dlpack_device__() == (2, last)
    with pytest.raises(RuntimeError) as e:
        t.__dlpack__()
    msg = str(e.value)
    assert msg.startswith(f"__dlpack__: cuda:{last} is an emulated device (TANDEM_EMULATE_CUDA)")
    assert "hint: share a host copy instead (t.cpu())" in msg


@emulated
def test_emulated_cuda_array_interface_is_absent():
    t = tandem.ones(3, device="cuda")
    assert not hasattr(t, "__cuda_array_interface__")
    with pytest.raises(AttributeError, match=r"cuda:0 is an emulated device .* host memory"):
        t.__cuda_array_interface__


@emulated
def test_emulated_export_to_host_copies_when_allowed():
    # DLPack lets a consumer ask for a host copy of device memory (dl_device=CPU, copy allowed).
    t = tandem.arange(6, device="cuda").reshape(2, 3).float()
    a = np.from_dlpack(t, device="cpu", copy=True)
    np.testing.assert_array_equal(a, np.arange(6, dtype=np.float32).reshape(2, 3))
    a[0, 0] = 100.0  # a copy: the device tensor is unchanged
    assert t[0, 0].item() == 0.0
    with pytest.raises(BufferError, match="copy=False"):
        t.__dlpack__(dl_device=(1, 0), copy=False)
    with pytest.raises(BufferError, match="another device"):
        tandem.ones(2).__dlpack__(dl_device=(2, 0))


@emulated
def test_emulated_import_of_cuda_array_interface_raises():
    class FakeCudaArray:  # what CuPy/Numba expose; the pointer is never touched
        __cuda_array_interface__ = {"shape": (2,), "typestr": "<f4", "data": (1 << 40, False), "version": 3,
                                    "strides": None, "stream": None}

    with pytest.raises(RuntimeError, match="no real CUDA device .*emulated"):
        tandem.as_tensor(FakeCudaArray())


def test_cuda_array_interface_import_rejects_what_it_cannot_read():
    def fake(**changes):
        iface = {"shape": (2,), "typestr": "<f4", "data": (1 << 40, False), "version": 3, "strides": None}
        iface.update(changes)
        return type("FakeCudaArray", (), {"__cuda_array_interface__": iface})()

    with pytest.raises(NotImplementedError, match="version 1 is not supported"):
        tandem.as_tensor(fake(version=1))
    with pytest.raises(NotImplementedError, match="with a mask is not supported"):
        tandem.as_tensor(fake(mask=fake()))


# ---- a real GPU ---------------------------------------------------------------------------------------------

@real_gpu
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int64", "uint8", "bool"])
def test_dlpack_torch_to_tandem_shares_memory(dtype):
    p = torch.arange(12, device="cuda").reshape(3, 4).to(getattr(torch, dtype))
    t = tandem.from_dlpack(p)
    assert t.device == tandem.device("cuda:0")
    assert t.dtype == getattr(tandem, dtype)
    assert t.data_ptr() == p.data_ptr()
    assert t.cpu().tolist() == p.cpu().tolist()
    p.zero_()  # writes are visible to the other side: one memory
    torch.cuda.synchronize()
    assert not t.to(tandem.float32).abs().sum().item()


@real_gpu
def test_dlpack_tandem_to_torch_shares_memory_and_strides():
    t = tandem.arange(12, device="cuda").reshape(3, 4).float().t()  # non-contiguous
    p = torch.from_dlpack(t)
    assert p.device.type == "cuda" and p.stride() == (1, 4)
    assert p.data_ptr() == t.data_ptr()
    assert p.cpu().tolist() == t.cpu().tolist()
    t.fill_(7.0)  # queued on tandem's stream; torch reads after the handshake ordered it
    p2 = torch.from_dlpack(t)
    assert p2.sum().item() == 7.0 * 12


@real_gpu
def test_dlpack_legacy_capsule_roundtrip():
    t = tandem.ones(5, device="cuda")
    capsule = t.__dlpack__(stream=-1)  # no max_version: legacy capsule
    back = tandem.from_dlpack(capsule)
    assert back.data_ptr() == t.data_ptr() and back.device == t.device


@real_gpu
def test_dlpack_stream_handshake_orders_producer_work():
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        a = torch.ones(4096, 4096, device="cuda")
        for _ in range(20):
            a = a @ a / 4096.0  # long-running work on a non-default torch stream
        # Inside the block: the producer makes the consumer's stream wait for its *current* stream (`side`).
        t = tandem.from_dlpack(a)  # passes tandem's stream; torch makes it wait for `side`
    assert abs(t.sum().item() - 4096.0 * 4096.0) < 1.0


@real_gpu
def test_cuda_array_interface_export():
    t = tandem.arange(6, device="cuda").reshape(2, 3).to(tandem.float32)
    iface = t.__cuda_array_interface__
    assert iface["shape"] == (2, 3) and iface["typestr"] == "<f4" and iface["version"] == 3
    assert iface["data"] == (t.data_ptr(), False) and iface["strides"] is None
    assert isinstance(iface["stream"], int) and iface["stream"] != 0
    assert t.t().__cuda_array_interface__["strides"] == (4, 12)
    assert iface["descr"] == [("", "<f4")]
    tandem.cuda.synchronize()  # PyTorch ignores the interface's "stream" (it reads on its legacy stream)
    p = torch.as_tensor(t, device="cuda")  # PyTorch imports through the interface, no copy
    assert p.data_ptr() == t.data_ptr() and p.tolist() == t.tolist()
    with pytest.raises(AttributeError, match="bfloat16"):
        t.to(tandem.bfloat16).__cuda_array_interface__
    with pytest.raises(RuntimeError, match="Can't get __cuda_array_interface__ on Variable that requires grad"):
        t.clone().requires_grad_().__cuda_array_interface__


@real_gpu
def test_cuda_array_interface_import_from_torch():
    p = torch.arange(8, device="cuda", dtype=torch.int32).reshape(2, 4)[:, ::2]
    t = tandem.as_tensor(p)
    assert t.device == tandem.device("cuda:0") and t.dtype == tandem.int32
    assert t.data_ptr() == p.data_ptr() and t.stride() == p.stride()
    assert t.tolist() == p.tolist()
    copy = tandem.tensor(p)  # tandem.tensor always copies
    assert copy.data_ptr() != p.data_ptr() and copy.tolist() == p.tolist()


@real_gpu
def test_cupy_both_ways():
    cupy = pytest.importorskip("cupy")
    c = cupy.arange(10, dtype=cupy.float32)
    t = tandem.as_tensor(c)
    assert t.data_ptr() == c.data.ptr and t.tolist() == c.get().tolist()
    t2 = tandem.from_dlpack(c)
    assert t2.data_ptr() == c.data.ptr
    back = cupy.asarray(tandem.arange(5, device="cuda").float())
    assert back.get().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    back2 = cupy.from_dlpack(tandem.ones(3, device="cuda"))
    assert back2.get().tolist() == [1.0, 1.0, 1.0]


@real_gpu
def test_record_stream_refuses_imported_memory():
    # tandem's allocator cannot delay the reuse of memory PyTorch owns: the error says whom to ask.
    t = tandem.from_dlpack(torch.ones(4, device="cuda"))
    with pytest.raises(RuntimeError) as e:
        t.record_stream(tandem.cuda.Stream())
    lines = str(e.value).splitlines()
    assert lines[0].startswith("record_stream(): this tensor's memory was not allocated by tandem")
    assert lines[1] == "hint: call record_stream on the producer's tensor, which owns the memory"
