"""Names old and new PyTorch programs use that are not ops: torch.accelerator, the legacy tensor types
(FloatTensor(...), isinstance, Tensor.type) and autograd.Variable, each against PyTorch."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import tandem

LEGACY = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor",
          "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"]


@pytest.mark.parametrize("name", LEGACY)
def test_legacy_types_construct_like_pytorch(name):
    ours, theirs = getattr(tandem, name), getattr(torch, name)
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    for args in [([1, 0, 1],), ((1, 1),), (3,), (2, 3), ()]:
        a, b = ours(*args), theirs(*args)
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1]
        if args and isinstance(args[0], (list, tuple)):
            assert a.tolist() == b.tolist()
    assert tuple(ours(tandem.Size([2, 4])).shape) == (2, 4)
    assert ours(np.array([1, 0])).tolist() == theirs(np.array([1, 0])).tolist()


def test_legacy_constructor_of_a_tensor_aliases_it_or_refuses_another_dtype():
    t = tandem.ones(3)
    alias = tandem.FloatTensor(t)
    assert alias.data_ptr() == t.data_ptr()
    with pytest.raises(TypeError, match="^expected tandem.float32 on cpu"):
        tandem.FloatTensor(tandem.ones(3, dtype=tandem.int64))
    with pytest.raises(TypeError):
        torch.FloatTensor(torch.ones(3, dtype=torch.int64))


def test_legacy_constructor_refuses_a_device():
    msg = "^legacy constructor expects device type: cpu but device type: cuda was passed"
    with pytest.raises(RuntimeError, match=msg):
        tandem.FloatTensor([1.0], device="cuda")
    with pytest.raises(RuntimeError, match=msg):
        torch.FloatTensor([1.0], device="cuda")


def test_isinstance_with_legacy_types():
    for lib in (tandem, torch):
        assert isinstance(lib.ones(2), lib.FloatTensor)
        assert not isinstance(lib.ones(2), lib.LongTensor)
        assert isinstance(lib.ones(2, dtype=lib.int64), lib.LongTensor)
        assert not isinstance([1.0], lib.FloatTensor)
    if tandem.cuda.is_available():
        assert not isinstance(tandem.ones(2, device="cuda:0"), tandem.FloatTensor)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool", "float16"])
def test_tensor_type_names(dtype):
    ours = tandem.ones(2, dtype=getattr(tandem, dtype)).type()
    theirs = torch.ones(2, dtype=getattr(torch, dtype)).type()
    assert ours == theirs.replace("torch.", "tandem.")


def test_tensor_type_name_on_a_device():
    if not tandem.cuda.is_available():
        pytest.skip("needs a (real or emulated) CUDA device")
    assert tandem.ones(2, device="cuda:0").type() == "tandem.cuda.FloatTensor"


@pytest.mark.parametrize("target", ["float64", "DoubleTensor", "torch.DoubleTensor", "tandem.DoubleTensor",
                                    "IntTensor"])
def test_tensor_type_converts(target):
    t = tandem.tensor([1.5, 2.5])
    if target == "float64":
        arg = tandem.float64
    elif target.endswith("Tensor") and "." not in target:
        arg = getattr(tandem, target)
    else:
        arg = target
    r = t.type(arg)
    expected = torch.tensor([1.5, 2.5]).type(getattr(torch, target) if "." not in target and target != "float64"
                                             else (torch.float64 if target == "float64" else
                                                   "torch." + target.split(".")[1]))
    assert r.tolist() == expected.tolist()
    assert str(r.dtype).split(".")[1] == str(expected.dtype).split(".")[1]


def test_tensor_type_same_dtype_returns_self_and_bad_names_raise():
    t = tandem.ones(2)
    assert t.type(tandem.float32) is t
    with pytest.raises(ValueError, match="^invalid type: 'foo'"):
        t.type("foo")
    with pytest.raises(ValueError):
        torch.ones(2).type("foo")
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        t.type(tandem.float64, bogus=1)


def test_variable_is_a_detached_alias_with_the_requested_flag():
    for lib in (tandem, torch):
        a = lib.ones(2, requires_grad=True)
        v = lib.autograd.Variable(a)
        assert v is not a and not v.requires_grad and v.grad_fn is None
        assert v.data_ptr() == a.data_ptr()
        w = lib.autograd.Variable(lib.ones(2), requires_grad=True)
        assert w.requires_grad and w.is_leaf
        assert isinstance(lib.ones(1), lib.autograd.Variable)
        with pytest.raises(TypeError, match="^Variable data has to be a tensor, but got list"):
            lib.autograd.Variable([1, 2])
        with pytest.warns(UserWarning, match="volatile was removed"):
            lib.autograd.Variable(lib.ones(1), volatile=True)


def test_accelerator_matches_cuda():
    acc = tandem.accelerator
    assert acc.is_available() == tandem.cuda.is_available()
    assert acc.device_count() == tandem.cuda.device_count()
    if tandem.cuda.is_available():
        assert acc.current_accelerator() == tandem.device("cuda")
        assert acc.current_accelerator(check_available=True) == tandem.device("cuda")
        before = acc.current_device_index()
        with acc.device_index(acc.device_count() - 1):
            assert acc.current_device_index() == acc.device_count() - 1
            x = tandem.ones(2, device=acc.current_accelerator())
            assert x.device.index == acc.device_count() - 1
        assert acc.current_device_index() == before
        acc.set_device_index(0)
        assert tandem.cuda.current_device() == 0
        acc.synchronize()
        acc.synchronize(0)


def test_accelerator_without_a_device():
    # A fresh process without emulated devices: no accelerator to use; calls that need one say how to get one.
    code = (
        "import tandem\n"
        "acc = tandem.accelerator\n"
        "if acc.is_available():\n"
        "    print('real GPU')\n"
        "    raise SystemExit\n"
        "assert not acc.is_available() and acc.device_count() == 0\n"
        "assert acc.current_accelerator(check_available=True) is None\n"
        "print(acc.current_accelerator())\n"
        "try:\n"
        "    acc.synchronize()\n"
        "except RuntimeError as e:\n"
        "    print(str(e).splitlines()[-1])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "TANDEM_EMULATE_CUDA"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    if r.stdout.strip() == "real GPU":
        pytest.skip("this machine has a real GPU")
    built = "cuda" if tandem._C._cuda_is_built() else "None"
    assert r.stdout.splitlines() == [built, "hint: run on a machine with a GPU, or set TANDEM_EMULATE_CUDA=1 to "
                                            "test accelerator code on the CPU"]


def test_where_method():
    for lib in (tandem, torch):
        x = lib.arange(3.0)
        assert x.where(x > 0, -1.0).tolist() == [-1.0, 1.0, 2.0]
        assert x.where(x > 0, lib.ones(3)).tolist() == [1.0, 1.0, 2.0]
        with pytest.raises(TypeError):
            x.where(x > 0)


def test_numpy_of_a_tensor_that_requires_grad_inside_no_grad():
    # Current PyTorch converts inside no_grad (nothing can be recorded); outside it still refuses.
    for lib in (tandem, torch):
        t = lib.ones(2, requires_grad=True)
        with lib.no_grad():
            assert t.numpy().tolist() == [1.0, 1.0]
            assert np.asarray(t).tolist() == [1.0, 1.0]
        with pytest.raises(RuntimeError, match="^Can't call numpy\\(\\) on Tensor that requires grad"):
            t.numpy()


@pytest.mark.parametrize("make", [
    lambda: memoryview(__import__("array").array("d", [1.5, 2.0])),
    lambda: __import__("array").array("f", [1.5]),
    lambda: __import__("array").array("q", [3, 4]),
    lambda: bytearray(b"ab"),
], ids=["memoryview", "array_f", "array_q", "bytearray"])
@pytest.mark.parametrize("fn", ["tensor", "as_tensor"])
def test_buffer_objects_are_sequences_of_numbers(make, fn):
    ours, theirs = getattr(tandem, fn)(make()), getattr(torch, fn)(make())
    assert ours.tolist() == theirs.tolist()
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]


def test_bytes_are_refused_as_in_pytorch():
    for lib in (tandem, torch):
        for data in (b"ab", [b"a"], [[1], [b"a"]]):
            with pytest.raises(TypeError, match="^new\\(\\): invalid data type 'bytes'"):
                lib.tensor(data)
        assert lib.tensor(bytearray(b"ab")).tolist() == [97, 98]


class _Producer:
    """Another library's array, known to tandem only through DLPack."""

    def __init__(self):
        self.a = np.arange(3.0)

    def __dlpack__(self, **kw):
        return self.a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_tensor_and_as_tensor_from_a_dlpack_producer():
    p = _Producer()
    shared = tandem.as_tensor(p)
    assert shared.dtype == tandem.float64 and shared.tolist() == [0.0, 1.0, 2.0]
    assert shared.data_ptr() == p.a.ctypes.data  # as_tensor shares, as PyTorch's
    copied = tandem.tensor(p, dtype=tandem.float32)
    assert copied.dtype == tandem.float32 and copied.tolist() == [0.0, 1.0, 2.0]
    assert torch.as_tensor(_Producer()).tolist() == [0.0, 1.0, 2.0]


def test_as_tensor_of_a_tensor_converts_only_what_is_asked():
    for lib in (tandem, torch):
        t = lib.ones(2, requires_grad=True)
        assert lib.as_tensor(t) is t
        assert lib.as_tensor(t, device="cpu") is t
        r = lib.as_tensor(t, dtype=lib.float64)
        assert r.dtype == lib.float64 and r.grad_fn is not None


def test_type_with_the_tensor_class_is_the_default_dtype():
    """PyTorch-GAN's cyclegan: imgs.type(Tensor) with Tensor = torch.Tensor on CPU."""
    import torch

    for src in (tandem.float64, tandem.int64, tandem.float16):
        x = tandem.ones(2, dtype=src)
        ref = torch.ones(2, dtype=getattr(torch, str(src).split(".")[-1]))
        assert str(x.type(tandem.Tensor).dtype).split(".")[-1] == str(ref.type(torch.Tensor).dtype).split(".")[-1]
    saved = tandem.get_default_dtype()
    tandem.set_default_dtype(tandem.float64)
    try:
        assert tandem.ones(2, dtype=tandem.int32).type(tandem.Tensor).dtype == tandem.float64
    finally:
        tandem.set_default_dtype(saved)
    with pytest.raises(ValueError, match="invalid type: 'Parameter'"):
        torch.ones(2).type(torch.nn.Parameter)
    with pytest.raises(ValueError, match="invalid type: 'Parameter'"):
        tandem.ones(2).type(tandem.nn.Parameter)


TYPE_NAME_DTYPES = ["float32", "float64", "float16", "uint8", "int8", "int64", "bool", "bfloat16", "complex64",
                    "complex128"]


@pytest.mark.parametrize("dtype", TYPE_NAME_DTYPES)
def test_type_names_in_messages_are_pytorchs(dtype, device):
    """The eight types with a legacy tensor class print as it (torch.FloatTensor, torch.cuda.LongTensor); the
    others as PyTorch's type string (CPUBoolType, CUDABFloat16Type): expand's refusal and the autograd hook's."""
    def messages(lib, dev):
        out = []
        try:
            lib.ones(2, 3, 4, dtype=getattr(lib, dtype), device=dev).expand(3, 4)
        except RuntimeError as e:
            out.append(str(e).split("{")[0])
        if dtype not in ("uint8", "int8", "int64", "bool"):
            a = lib.ones(3, dtype=getattr(lib, dtype), device=dev, requires_grad=True)
            wider = lib.complex128 if dtype.startswith("complex") else lib.float64
            a.register_hook(lambda g: g.to(wider if g.dtype != wider else lib.float32))
            try:
                (a * 2).sum().abs().backward()
            except RuntimeError as e:
                out.append(str(e).split("(was ")[1])
        return out
    theirs = messages(torch, "cpu")
    ours = messages(tandem, device)
    if device != "cpu":  # PyTorch's CUDA names: torch.cuda.XTensor, CUDAXType
        theirs = [m.replace("torch.", "torch.cuda.").replace("CPU", "CUDA") for m in theirs]
    assert ours == theirs and len(ours) >= 1
