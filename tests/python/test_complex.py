"""complex64 / complex128: dtypes, promotion, creation, conversion, views and basic math, against PyTorch."""
import math
import pickle
import warnings

import numpy as np
import pytest
import torch

import tandem
from oracle import assert_same_error

CDTYPES = ["complex64", "complex128"]
VALUES = [1 + 2j, 3 - 4j, -0.5 + 0.25j, 0j, -2 - 1j, 1.5 + 0j]


def to_torch(t):
    return torch.tensor(t.tolist(), dtype=getattr(torch, str(t.dtype).split(".")[-1])).reshape(tuple(t.shape))


def check(t, expected, device=None, exact=False):
    """Values, dtype, shape (and device) of tandem tensor ``t`` against torch tensor ``expected``."""
    assert str(t.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1], (t.dtype, expected.dtype)
    assert tuple(t.shape) == tuple(expected.shape)
    if device is not None:
        assert t.device == tandem.device(device)
    got = to_torch(t)
    if exact or not (expected.dtype.is_floating_point or expected.dtype.is_complex):
        assert torch.equal(got, expected), (got, expected)
    else:
        torch.testing.assert_close(got, expected, equal_nan=True)


def pair(values, name="complex64", device="cpu", shape=None):
    t = tandem.tensor(values, dtype=getattr(tandem, name), device=device)
    x = torch.tensor(values, dtype=getattr(torch, name))
    if shape is not None:
        t, x = t.reshape(*shape), x.reshape(*shape)
    return t, x


# ---- (a) dtype objects and promotion ----

def test_dtype_objects():
    assert tandem.complex64 is tandem.cfloat and tandem.complex128 is tandem.cdouble
    for name in CDTYPES:
        d, td = getattr(tandem, name), getattr(torch, name)
        assert repr(d) == f"tandem.{name}"
        assert (d.is_complex, d.is_floating_point, d.is_signed, d.itemsize) == \
            (td.is_complex, td.is_floating_point, td.is_signed, td.itemsize)
        assert pickle.loads(pickle.dumps(d)) is d
    for name in ["float32", "int64", "bool"]:
        assert not getattr(tandem, name).is_complex


@pytest.mark.parametrize("a", ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64",
                               "complex64", "complex128"])
@pytest.mark.parametrize("b", CDTYPES)
def test_promote_types(a, b):
    want = torch.promote_types(getattr(torch, a), getattr(torch, b))
    assert repr(tandem.promote_types(getattr(tandem, a), getattr(tandem, b))) == repr(want).replace("torch", "tandem")
    want = torch.promote_types(getattr(torch, b), getattr(torch, a))
    assert repr(tandem.promote_types(getattr(tandem, b), getattr(tandem, a))) == repr(want).replace("torch", "tandem")


def test_result_type_with_python_complex():
    for name in ["int64", "uint8", "float32", "float64", "bool", "complex128"]:
        want = torch.result_type(torch.ones(2, dtype=getattr(torch, name)), 1j)
        got = tandem.result_type(tandem.ones(2, dtype=getattr(tandem, name)), 1j)
        assert repr(got) == repr(want).replace("torch", "tandem")
    # a complex 0-dim tensor next to a float64 tensor keeps float64's precision
    want = torch.result_type(torch.ones(2, dtype=torch.float64), torch.tensor(1j))
    assert repr(tandem.result_type(tandem.ones(2, dtype=tandem.float64), tandem.tensor(1j))) == \
        repr(want).replace("torch", "tandem")


def test_tensor_predicates():
    t = tandem.zeros(2, dtype=tandem.complex64)
    assert t.is_complex() and tandem.is_complex(t) and not t.is_floating_point()
    assert not t.is_conj() and not tandem.zeros(2).is_complex()
    assert t.element_size() == 8 and tandem.zeros(2, dtype=tandem.complex128).element_size() == 16
    assert t.itemsize == 8 and t.nbytes == 16


@pytest.mark.parametrize("name", CDTYPES)
def test_finfo(name):
    got, want = tandem.finfo(getattr(tandem, name)), torch.finfo(getattr(torch, name))
    for attr in ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"]:
        assert getattr(got, attr) == getattr(want, attr), attr
    assert got.dtype == want.dtype


def test_can_cast():
    for a in ["complex64", "float32", "int64"]:
        for b in ["complex64", "complex128", "float64", "int32", "bool"]:
            assert tandem.can_cast(getattr(tandem, a), getattr(tandem, b)) == \
                torch.can_cast(getattr(torch, a), getattr(torch, b)), (a, b)


# ---- (b) creation, conversion, printing, interop ----

def test_tensor_from_python_complex(device):
    for data in [[1 + 2j, 3 - 4j], [1, 2.5, 3j], [[1j, 2], [3, 4]], 2 - 1j, [True, 1j]]:
        check(tandem.tensor(data, device=device), torch.tensor(data), device, exact=True)
    check(tandem.tensor([1 + 2j], dtype=tandem.complex128, device=device),
          torch.tensor([1 + 2j], dtype=torch.complex128), device, exact=True)
    check(tandem.tensor([1, 2], dtype=tandem.complex64, device=device),
          torch.tensor([1, 2], dtype=torch.complex64), device, exact=True)


def test_default_complex_follows_default_dtype():
    saved = tandem.get_default_dtype()
    try:
        tandem.set_default_dtype(tandem.float64)
        torch.set_default_dtype(torch.float64)
        assert tandem.tensor([1j]).dtype == tandem.complex128
        assert (tandem.ones(2) * 1j).dtype == tandem.complex128
        assert repr(tandem.tensor([1j])) == repr(torch.tensor([1j]))
    finally:
        tandem.set_default_dtype(saved)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("name", CDTYPES)
def test_factories(device, name):
    d, td = getattr(tandem, name), getattr(torch, name)
    check(tandem.zeros(2, 3, dtype=d, device=device), torch.zeros(2, 3, dtype=td), device, exact=True)
    check(tandem.ones(4, dtype=d, device=device), torch.ones(4, dtype=td), device, exact=True)
    check(tandem.full((2,), 1 - 2j, dtype=d, device=device), torch.full((2,), 1 - 2j, dtype=td), device, True)
    assert tandem.empty(3, dtype=d, device=device).dtype == d
    check(tandem.full((2,), 3j, device=device), torch.full((2,), 3j), device, exact=True)
    check(tandem.zeros_like(tandem.ones(2, dtype=d, device=device)), torch.zeros(2, dtype=td), device, True)


@pytest.mark.parametrize("name", CDTYPES)
def test_numpy_round_trip(name):
    a = np.array(VALUES, dtype=name).reshape(2, 3)
    t = tandem.from_numpy(a)
    assert t.dtype == getattr(tandem, name) and t.tolist() == a.tolist()
    a[0, 0] = 7 + 7j  # shares memory
    assert t[0, 0].item() == 7 + 7j
    back = t.numpy()
    assert back.dtype == np.dtype(name) and np.array_equal(back, a)
    check(tandem.tensor(a), torch.tensor(a), exact=True)
    check(tandem.as_tensor(a), torch.as_tensor(a), exact=True)


def test_tolist_item(device):
    t, x = pair(VALUES, device=device, shape=(2, 3))
    assert t.tolist() == x.tolist()
    assert all(isinstance(v, complex) for row in t.tolist() for v in row)
    v = t[0, 1].item()
    assert isinstance(v, complex) and v == x[0, 1].item()


@pytest.mark.parametrize("values", [[1 + 2j, 3 - 4j], [[1.5 + 2j, 3 - 4.25j], [0, 1e10j]], 1 + 2j, [-0.5 - 0j],
                                    [float("nan") + 1j, complex(float("inf"), -2)], [0.001 + 123456j, 1j]])
@pytest.mark.parametrize("name", CDTYPES)
def test_repr(values, name):
    assert repr(tandem.tensor(values, dtype=getattr(tandem, name))) == \
        repr(torch.tensor(values, dtype=getattr(torch, name))).replace("torch.", "tandem.")


two_cuda_devices = pytest.mark.skipif(tandem.cuda.device_count() < 2,
                                      reason="needs two (real or emulated) CUDA devices (TANDEM_EMULATE_CUDA=2)")


@two_cuda_devices
def test_repr_names_the_device():
    assert repr(tandem.tensor([1j, 2], device="cuda:1")) == "tensor([0.+1.j, 2.+0.j], device='cuda:1')"


def test_repr_empty_and_long():
    for name in CDTYPES:
        assert repr(tandem.zeros(0, dtype=getattr(tandem, name))) == \
            repr(torch.zeros(0, dtype=getattr(torch, name))).replace("torch.", "tandem.")
    big = tandem.arange(2000).to(tandem.complex64) * (1 + 1j)
    assert repr(big) == repr(torch.arange(2000).to(torch.complex64) * (1 + 1j))


@pytest.mark.parametrize("name", CDTYPES)
def test_dlpack_both_ways(name):
    t, x = pair(VALUES, name)
    check(tandem.from_dlpack(x), x, exact=True)
    check(tandem.from_dlpack(np.array(VALUES, dtype=name)), x, exact=True)
    back = torch.from_dlpack(t)
    assert back.dtype == getattr(torch, name) and torch.equal(back, x)
    assert np.array_equal(np.from_dlpack(t), np.array(VALUES, dtype=name))


def test_copy_between_devices(device):
    t, x = pair(VALUES, "complex128")
    moved = t.to(device)
    assert moved.device == tandem.device(device)
    check(moved.cpu(), x, exact=True)


@two_cuda_devices
def test_copy_from_one_cuda_device_to_another():
    t, x = pair(VALUES, "complex128")
    check(t.to("cuda:0").to("cuda:1").cpu(), x, exact=True)


@pytest.mark.parametrize("target", ["complex64", "complex128"])
@pytest.mark.parametrize("source", ["bool", "uint8", "int64", "float16", "bfloat16", "float32", "float64",
                                    "complex64", "complex128"])
def test_cast_to_complex(device, source, target):
    x = torch.tensor([0, 1, 2, -3, 1.5, 7], dtype=torch.float64).to(getattr(torch, source))
    if source.startswith("complex"):
        x = x + 1j * x.flip(0)
    t = tandem.tensor(x.tolist(), dtype=getattr(tandem, source), device=device)
    check(t.to(getattr(tandem, target)), x.to(getattr(torch, target)), device, exact=True)


@pytest.mark.parametrize("target", ["bool", "uint8", "int32", "int64", "float16", "float32", "float64"])
def test_cast_complex_to_real_warns(device, target):
    t, x = pair([1.5 + 2j, -3 - 4j, 0j, 0 + 1j], device=device)
    if target == "bool":  # PyTorch keeps "either part nonzero" whole: no warning
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = t.to(tandem.bool)
    else:
        with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
            got = t.to(getattr(tandem, target))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = x.to(getattr(torch, target))
    check(got, want, device, exact=True)
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        t.float()
    out = tandem.zeros(4, device=device)
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        out.copy_(t)
    check(out, torch.tensor([1.5, -3, 0, 0]), device, exact=True)


def test_save_load(tmp_path):
    t, x = pair(VALUES, "complex128", shape=(3, 2))
    path = tmp_path / "c.pt"
    tandem.save({"z": t, "w": t.to(tandem.complex64)}, path)
    loaded = tandem.load(path)
    check(loaded["z"], x, exact=True)
    check(loaded["w"], x.to(torch.complex64), exact=True)
    theirs = torch.load(path)
    assert torch.equal(theirs["z"], x)
    torch.save({"z": x}, tmp_path / "t.pt")
    check(tandem.load(tmp_path / "t.pt")["z"], x, exact=True)


# ---- (c) views ----

def test_real_imag_views(device):
    t, x = pair(VALUES, device=device, shape=(2, 3))
    check(t.real, x.real, device, exact=True)
    check(t.imag, x.imag, device, exact=True)
    check(tandem.real(t), x.real, device, exact=True)
    assert t.real.stride() == x.real.stride() and t.imag.storage_offset() == x.imag.storage_offset()
    t.imag[0, 0] = 9
    t.real.mul_(2)
    x.imag[0, 0] = 9
    x.real.mul_(2)
    check(t, x, device, exact=True)
    t.imag = tandem.zeros(2, 3, device=device)
    x.imag = torch.zeros(2, 3)
    check(t, x, device, exact=True)
    r = tandem.ones(2, device=device)
    assert tandem.real(r) is r or tandem.real(r).data_ptr() == r.data_ptr()


def test_view_as_real_and_complex(device):
    t, x = pair(VALUES, "complex128", device=device, shape=(3, 2))
    r = tandem.view_as_real(t)
    check(r, torch.view_as_real(x), device, exact=True)
    assert r.stride() == torch.view_as_real(x).stride()
    r[0, 0, 1] = 5
    assert t[0, 0].item() == complex(x[0, 0].real.item(), 5)
    back = tandem.view_as_complex(r)
    assert back.data_ptr() == t.data_ptr() and back.tolist() == t.tolist() and back.stride() == t.stride()
    # a strided view of a column of t: strides in complex elements become strides in reals
    col = t[:, 1]
    check(tandem.view_as_real(col), torch.view_as_real(x[:, 1]), device, exact=True)
    assert tandem.view_as_real(col).stride() == torch.view_as_real(x[:, 1]).stride()
    check(tandem.view_as_complex(tandem.ones(4, 2, device=device)[::2]),
          torch.view_as_complex(torch.ones(4, 2)[::2]), device, exact=True)
    check(tandem.view_as_complex(tandem.ones(2, device=device)), torch.view_as_complex(torch.ones(2)), device)


@pytest.mark.parametrize("case", [
    lambda m: m.imag(m.ones(2)),
    lambda m: m.view_as_real(m.ones(2)),
    lambda m: m.view_as_complex(m.ones(3)),
    lambda m: m.view_as_complex(m.ones(3, 3)),
    lambda m: m.view_as_complex(m.ones(2, 3).t()),
    lambda m: m.view_as_complex(m.ones(3, 2, dtype=m.int32)),
    lambda m: m.complex(m.ones(2), m.ones(2, dtype=m.float64)),
    lambda m: m.complex(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)),
    lambda m: m.polar(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)),
    lambda m: m.ones(2, dtype=m.complex64) < 1,
    lambda m: m.ones(2, dtype=m.complex64).lt(m.ones(2, dtype=m.complex64)),
    lambda m: m.remainder(m.ones(2, dtype=m.complex64), 2),
    lambda m: m.ones(2, dtype=m.complex64).bitwise_not(),
    lambda m: m.ones(2, dtype=m.float32).add_(1j),
    lambda m: m.ones(2, 2, dtype=m.float32) @ m.ones(2, 2, dtype=m.complex64),
    lambda m: m.full((2,), 1j, dtype=m.float32),
    lambda m: m.ones(2, dtype=m.float64).fill_(1 + 1j),
    lambda m: m.zeros(2, dtype=m.int64).fill_(2j),
])
def test_errors_match_pytorch(case):
    assert_same_error(case)


@pytest.mark.parametrize("op", ["floor", "relu", "sort", "argmax", "erf", "round", "sign", "clamp", "maximum",
                                "softmax", "atan2", "topk", "lgamma", "amax"])
def test_unsupported_ops_raise_cleanly(device, op):
    """Every op without complex support raises a Python exception, on every device, never computes on the
    bytes (complex -> real ops included)."""
    t = tandem.tensor([1 + 2j, 3 - 4j, 0.5j], device=device)
    calls = {
        "clamp": lambda: tandem.clamp(t, min=0), "maximum": lambda: tandem.maximum(t, t),
        "pow": lambda: tandem.pow(t, 2), "atan2": lambda: tandem.atan2(t, t),
        "where": lambda: tandem.where(t.real > 0, t, t), "cumsum": lambda: tandem.cumsum(t, 0),
        "softmax": lambda: tandem.softmax(t, 0), "mm": lambda: tandem.mm(t.reshape(3, 1), t.reshape(1, 3)),
        "topk": lambda: tandem.topk(t, 1), "sort": lambda: tandem.sort(t),
    }
    call = calls.get(op, lambda: getattr(tandem, op)(t))
    with pytest.raises((NotImplementedError, RuntimeError, TypeError)):
        call()
    tandem.cuda.synchronize() if device != "cpu" else None
    assert t.tolist() == [1 + 2j, 3 - 4j, 0.5j]  # and the process lives on


def test_not_implemented_message(device):
    t = tandem.ones(2, dtype=tandem.complex128, device=device)
    suffix = "cpu" if device == "cpu" else "cuda"
    with pytest.raises(NotImplementedError, match=f"\"frac_{suffix}\" not implemented for 'ComplexDouble'"):
        t.frac()
    # ops whose kernel PyTorch names differently ("max_all", "fmod_cpu") keep its form and type
    c = tandem.ones(2, dtype=tandem.complex64, device=device)
    for call in [c.max, lambda: c.fmod(2), lambda: c.lgamma()]:
        with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
            call()


def test_autograd_is_recorded():
    # Complex autograd works (gradients are checked against PyTorch in test_complex_autograd.py).
    assert tandem.tensor([1j], requires_grad=True).requires_grad
    assert tandem.zeros(2, dtype=tandem.complex64).requires_grad_().requires_grad
    x = tandem.ones(2, requires_grad=True)
    assert (x * 1j).grad_fn.name() == "MulBackward0"
    assert tandem.complex(x, x).grad_fn.name() == "ComplexBackward0"
    with tandem.no_grad():
        assert (x * 1j).dtype == tandem.complex64
        assert (x * 1j).grad_fn is None


# ---- (c) math ----

@pytest.mark.parametrize("name", CDTYPES)
def test_conj_abs_angle(device, name):
    t, x = pair(VALUES, name, device=device)
    check(t.conj(), x.conj().resolve_conj(), device, exact=True)
    check(tandem.conj_physical(t), torch.conj_physical(x), device, exact=True)
    assert not t.conj().is_conj()
    check(t.abs(), x.abs(), device)
    check(tandem.abs(t), torch.abs(x), device)
    check(t.angle(), x.angle(), device)
    r = tandem.tensor([-1.0, 2.0, 0.0, float("nan")], device=device)
    check(tandem.angle(r), torch.angle(torch.tensor([-1.0, 2.0, 0.0, float("nan")])), device)
    check(tandem.angle(tandem.tensor([-1, 2], device=device)), torch.angle(torch.tensor([-1, 2])), device)
    real = tandem.ones(2, device=device)
    assert tandem.conj(real).data_ptr() == real.data_ptr()


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_polar_and_complex(device, name):
    a = [1.0, 2.5, 0.0, 3.0]
    b = [0.5, -1.0, 2.0, math.pi]
    ta, tb = (tandem.tensor(v, dtype=getattr(tandem, name), device=device) for v in (a, b))
    xa, xb = (torch.tensor(v, dtype=getattr(torch, name)) for v in (a, b))
    check(tandem.polar(ta, tb), torch.polar(xa, xb), device)
    check(tandem.complex(ta, tb), torch.complex(xa, xb), device, exact=True)
    check(tandem.complex(ta.reshape(4, 1), tb), torch.complex(xa.reshape(4, 1), xb), device, exact=True)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "eq", "ne"])
@pytest.mark.parametrize("name", CDTYPES)
def test_binary(device, op, name):
    t, x = pair(VALUES, name, device=device)
    u, y = pair(list(reversed(VALUES)), name, device=device)
    u, y = u + 0.5, y + 0.5  # no zero divisor
    check(getattr(tandem, op)(t, u), getattr(torch, op)(x, y), device)
    check(getattr(tandem, op)(t, 2 - 1j), getattr(torch, op)(x, 2 - 1j), device)
    check(getattr(tandem, op)(t, 3), getattr(torch, op)(x, 3), device)
    real = tandem.tensor([1.0, 2, 3, 4, 5, 6], dtype=tandem.float64, device=device)
    check(getattr(tandem, op)(t, real), getattr(torch, op)(x, torch.tensor([1.0, 2, 3, 4, 5, 6],
                                                                           dtype=torch.float64)), device)
    ints = tandem.arange(6, device=device)
    check(getattr(tandem, op)(ints, u), getattr(torch, op)(torch.arange(6), y), device)


def test_operators_and_scalars(device):
    t, x = pair(VALUES, device=device)
    check(t * 1j + 2, x * 1j + 2, device)
    check(1j * t - t / (2 + 1j), 1j * x - x / (2 + 1j), device)
    check(-t, -x, device, exact=True)
    check(t == t.conj(), x == x.conj(), device)
    check(tandem.ones(3, device=device) * 1j, torch.ones(3) * 1j, device)
    check(tandem.ones(3, dtype=tandem.float64, device=device) * 1j, torch.ones(3, dtype=torch.float64) * 1j, device)
    check(tandem.arange(3, device=device) + 1j, torch.arange(3) + 1j, device)
    check(tandem.add(t, t, alpha=2), torch.add(x, x, alpha=2), device)
    t2, x2 = t.clone(), x.clone()
    t2 += 1j
    t2.mul_(t)
    x2 += 1j
    x2.mul_(x)
    check(t2, x2, device)


@pytest.mark.parametrize("name", CDTYPES)
def test_sum_mean(device, name):
    t, x = pair(VALUES, name, device=device, shape=(2, 3))
    check(t.sum(), x.sum(), device)
    check(t.mean(), x.mean(), device)
    for dim in [0, 1, -1, (0, 1)]:
        check(t.sum(dim), x.sum(dim), device)
        check(t.mean(dim, keepdim=True), x.mean(dim, keepdim=True), device)
    check(t.t().sum(0), x.t().sum(0), device)
    check(tandem.tensor(1 + 1j, device=device).sum(), torch.tensor(1 + 1j).sum(), device)


@pytest.mark.parametrize("name", CDTYPES)
def test_matmul(device, name):
    g = torch.Generator().manual_seed(0)
    a = torch.complex(torch.randn(3, 4, generator=g, dtype=torch.float64),
                      torch.randn(3, 4, generator=g, dtype=torch.float64)).to(getattr(torch, name))
    b = torch.complex(torch.randn(4, 2, generator=g, dtype=torch.float64),
                      torch.randn(4, 2, generator=g, dtype=torch.float64)).to(getattr(torch, name))
    ta = tandem.tensor(a.tolist(), dtype=getattr(tandem, name), device=device)
    tb = tandem.tensor(b.tolist(), dtype=getattr(tandem, name), device=device)
    check(ta @ tb, a @ b, device)
    check(tandem.matmul(ta.t().conj().t(), tb), a.conj() @ b, device)
    check(ta @ tb[:, 0], a @ b[:, 0], device)
    check(tandem.matmul(ta.reshape(1, 3, 4).expand(2, 3, 4), tb), a.expand(2, 3, 4) @ b, device)


@pytest.mark.parametrize("op", ["exp", "log", "sqrt", "sin", "cos", "tanh"])
@pytest.mark.parametrize("name", CDTYPES)
def test_unary_math(device, op, name):
    values = [v for v in VALUES if v != 0] + [-4 + 0j, 30 + 1j, -30 - 2j, 1e-3 - 1e-3j]
    t, x = pair(values, name, device=device)
    check(getattr(tandem, op)(t), getattr(torch, op)(x), device)
    check(getattr(t, op)(), getattr(x, op)(), device)
    t2, x2 = t.clone(), x.clone()
    getattr(t2, op + "_")()
    getattr(x2, op + "_")()
    check(t2, x2, device)
    check(tandem.abs(t), torch.abs(x), device)


def test_indexing_moves_complex(device):
    t, x = pair(VALUES, "complex128", device=device, shape=(2, 3))
    check(t[1], x[1], device, exact=True)
    check(t[:, tandem.tensor([2, 0], device=device)], x[:, torch.tensor([2, 0])], device, exact=True)
    t[0, 1] = 5 - 5j
    x[0, 1] = 5 - 5j
    check(t, x, device, exact=True)
    check(tandem.cat([t, t]), torch.cat([x, x]), device, exact=True)
    check(t.t().contiguous(), x.t().contiguous(), device, exact=True)


def test_safetensors(tmp_path):
    safetensors_torch = pytest.importorskip("safetensors.torch")
    t, x = pair(VALUES)
    tandem.save({"a": t}, tmp_path / "a.safetensors")
    assert torch.equal(safetensors_torch.load_file(tmp_path / "a.safetensors")["a"], x)
    safetensors_torch.save_file({"b": x}, tmp_path / "b.safetensors")
    check(tandem.load(tmp_path / "b.safetensors")["b"], x, exact=True)
    with pytest.raises(TypeError, match="safetensors has no complex128 dtype"):
        tandem.save({"a": t.to(tandem.complex128)}, tmp_path / "c.safetensors")


def test_python_number_protocol(device):
    for v in [1 + 2j, 1 + 0j, 0j, -2.5 + 0j]:
        for conv in [complex, float, int, bool]:
            want, got = raised_or_value(lambda: conv(torch.tensor(v))), \
                raised_or_value(lambda: conv(tandem.tensor(v, device=device)))
            if isinstance(want, Exception):
                assert type(got) is type(want) and str(got).split("\nhint:")[0] == str(want), (v, conv)
            else:
                assert got == want and type(got) is type(want), (v, conv)


def raised_or_value(call):
    try:
        return call()
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's
        return e


def test_isreal_adjoint_conj_physical_on_complex(device):
    values = [[1 + 0j, 2 - 1j], [0 + 3j, -4 + 0j]]
    x = torch.tensor(values, dtype=torch.complex64)
    t = tandem.tensor(values, dtype=tandem.complex64, device=device)
    assert tandem.isreal(t).cpu().tolist() == torch.isreal(x).tolist()
    assert tandem.adjoint(t).cpu().tolist() == torch.adjoint(x).resolve_conj().tolist()
    assert tandem.conj_physical_(t) is t
    assert t.cpu().tolist() == x.conj_physical_().tolist()
    assert tandem.real(t).dtype == tandem.float32 and tandem.conj(t).dtype == tandem.complex64
