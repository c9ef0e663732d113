"""Helpers for comparing tandem against PyTorch (the oracle) without going through NumPy."""
import re
import warnings

import torch

import tandem

# The device helpers in modules using the on_each_device fixture build tensors on (set by that fixture).
current_device = "cpu"

DTYPE_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
FLOAT_NAMES = ["float16", "bfloat16", "float32", "float64"]
INT_NAMES = ["uint8", "int8", "int16", "int32", "int64"]


def tdtype(name):
    return getattr(tandem, name)


def torch_dtype(name):
    return getattr(torch, name)


def dtype_name(dtype):
    return repr(dtype).split(".")[-1]


def to_torch(t):
    """A torch tensor with the same values, dtype and shape as tandem tensor ``t``."""
    return torch.tensor(t.tolist(), dtype=torch_dtype(dtype_name(t.dtype))).reshape(tuple(t.shape))


def from_torch(x, device="cpu"):
    """A tandem tensor with the same values, dtype and shape as torch tensor ``x``."""
    t = tandem.tensor(x.tolist(), dtype=tdtype(str(x.dtype).split(".")[-1]))
    t = t.reshape(*x.shape) if x.dim() else t
    return t.to(device)

def from_torch_resolved(x, device="cpu"):
    """A torch tensor (conjugate views resolved) as a tandem tensor on `device`."""
    return from_torch(x.resolve_conj(), device)


def assert_close_to_torch(got, want, device=None, **kw):
    """tandem tensor `got` has torch tensor `want`'s dtype, shape (and `device`) and values within kw."""
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    if device is not None:
        assert got.device == tandem.device(device), (got.device, device)
    torch.testing.assert_close(to_torch(got), want.resolve_conj(), equal_nan=True, **kw)


def random_torch(shape, name, gen, low=-5, high=5):
    """Random torch values of dtype ``name``: small ints for integer types, a normal spread for floats."""
    if name == "bool":
        return torch.rand(shape, generator=gen) > 0.5
    if name in INT_NAMES:
        lo = 0 if name == "uint8" else low
        return torch.randint(lo, high, shape, generator=gen, dtype=torch_dtype(name))
    return (torch.randn(shape, generator=gen, dtype=torch.float64) * 3).to(torch_dtype(name))


def random_matrix(shape, dtype="complex128", seed=0, hpd=False, well=False):
    """Random torch matrices of a real or complex dtype name: Hermitian positive-definite with hpd, shifted by
    n * I (well conditioned) with well, else plain normal entries."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.complex128)
    if dtype in ("float32", "float64"):
        x = x.real.clone()
    n = shape[-1]
    if hpd:
        x = x @ x.mH + n * torch.eye(n, dtype=x.dtype)
    elif well and len(shape) >= 2 and shape[-1] == shape[-2]:
        x = x + n * torch.eye(n, dtype=x.dtype)
    return x.to(getattr(torch, dtype))


def assert_same(t, expected, rtol=None, atol=None, device=None):
    """Values, dtype and shape of tandem tensor ``t`` equal torch tensor ``expected``."""
    assert dtype_name(t.dtype) == str(expected.dtype).split(".")[-1], (t.dtype, expected.dtype)
    if device is not None:
        assert t.device == device, (t.device, device)
    assert tuple(t.shape) == tuple(expected.shape), (t.shape, expected.shape)
    got = to_torch(t)
    if expected.dtype.is_floating_point:
        torch.testing.assert_close(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        assert torch.equal(got, expected), (got, expected)


def rand_values(*shape, low=-1.0, high=1.0, seed=0, salt=11):
    """Nested lists of float64 values in [low, high), reproducible from (shape, seed, salt)."""
    g = torch.Generator().manual_seed(seed + salt * len(shape) + sum(shape))
    return (torch.rand(*shape, generator=g, dtype=torch.float64) * (high - low) + low).tolist()


def leaf(values, device="cpu", transpose=False):
    """A float64 leaf that requires grad; transpose=True makes it non-contiguous."""
    t = tandem.tensor(values, dtype=tandem.float64, device=device)
    if transpose:
        t = t.t()
    return t.requires_grad_()


def raised(call):
    """The exception call() raises (its warnings silenced), or None."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call()
        except Exception as e:  # noqa: BLE001 - the point is to compare whatever each library raises
            return e
    return None


def assert_same_error(case):
    """case(lib) raises the same exception type in PyTorch and tandem, with PyTorch's message before tandem's
    hint: line (sizes print as tandem.Size)."""
    want, got = raised(lambda: case(torch)), raised(lambda: case(tandem))
    assert want is not None, "PyTorch accepts this case"
    assert isinstance(got, type(want)), (got, want)
    assert str(got).split("\nhint:")[0] == str(want).replace("torch.Size", "tandem.Size")


def assert_same_result(got, expected, exact):
    """A tandem result against PyTorch's for the same call: tensors by dtype, shape and values (bit-exact, or
    within assert_close's default tolerance), tuples and lists element by element, anything else by its str."""
    if isinstance(expected, torch.Tensor):
        assert isinstance(got, tandem.Tensor), (got, expected)
        assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
        assert tuple(got.shape) == tuple(expected.shape)
        as_torch = torch.tensor(got.detach().cpu().tolist(), dtype=expected.dtype).reshape(expected.shape)
        tolerance = {"rtol": 0, "atol": 0} if exact else {}
        torch.testing.assert_close(as_torch, expected.detach(), equal_nan=True, **tolerance)
    elif isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same_result(g, e, exact)
    else:
        assert str(got).replace("tandem", "torch") == str(expected), (got, expected)


def hostile_first_line(e):
    """An error's first line with the device taken out: kernel names and tensor types carry it, and PyTorch,
    the oracle of the hostile-input tests, runs on the CPU."""
    line = (str(e).splitlines() or [""])[0].replace("tandem.", "torch.").replace("_cuda\"", "_cpu\"")
    line = re.sub(r"\bCUDA(\w+)Type\b", r"CPU\1Type", line.replace("torch.cuda.", "torch."))
    # PyTorch's TORCH_CHECK appends a request for a better message to its internal asserts (as the harness drops)
    line = line.split("  (Could this error message be improved?")[0]
    return re.sub(r", device='cuda:\d'", "", line)


def hostile_outcome(case, lib, device):
    """("value", result) or ("error", exception) of case(lib, device), warnings silenced, device work finished."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = case(lib, device)
        if lib is tandem and device.startswith("cuda"):
            tandem.cuda.synchronize(device)
        return "value", value
    except Exception as e:  # noqa: BLE001 - the type is what the tests compare
        return "error", e
