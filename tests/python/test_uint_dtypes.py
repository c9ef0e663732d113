"""uint16, uint32 and uint64 (issue 14): the dtype objects, creation, printing, casts, the exchange formats
(NumPy, DLPack, safetensors, PyTorch checkpoints), the ops PyTorch supports for them (compared with PyTorch),
the integer arithmetic tandem adds for the Array API where PyTorch raises (compared with NumPy), promotion, and
the NotImplementedError every other op raises, on every device."""
import io

import numpy as np
import pytest
import torch

import tandem

UINTS = ["uint16", "uint32", "uint64"]
ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
       "complex64", "complex128"] + UINTS


def tt(name):
    return getattr(tandem, name)


def th(name):
    return getattr(torch, name)


def values(dtype, n=24, seed=0):
    """Values spread over the whole range of a uint dtype, its extremes included, as a Python list."""
    top = np.iinfo(dtype).max
    rng = np.random.default_rng(seed)
    v = rng.integers(0, top, n, dtype=dtype, endpoint=True)
    v[:4] = [0, 1, top, top - 1]
    return [int(x) for x in v]


def same(t, want, device):
    """tandem tensor t has torch tensor want's values, dtype and shape, and lives on device."""
    assert str(t.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (t.dtype, want.dtype)
    assert t.device == tandem.device(device)
    assert tuple(t.shape) == tuple(want.shape)
    assert t.tolist() == want.tolist()


# ---- the dtype objects ----
@pytest.mark.parametrize("name", UINTS)
def test_dtype_objects(name):
    d, w = tt(name), th(name)
    assert repr(d) == f"tandem.{name}" and str(d) == f"tandem.{name}"
    assert (d.itemsize, d.is_signed, d.is_floating_point, d.is_complex) == \
        (w.itemsize, w.is_signed, w.is_floating_point, w.is_complex)
    i, wi = tandem.iinfo(d), torch.iinfo(w)
    assert (i.bits, i.min, i.max) == (wi.bits, wi.min, wi.max)
    assert tandem.empty(3, dtype=d).element_size() == w.itemsize
    assert not tandem.empty(1, dtype=d).is_signed()
    assert tandem.zeros(2, dtype=d).type() == torch.zeros(2, dtype=w).type().replace("torch", "tandem")
    assert tandem.zeros(2).type(f"torch.UInt{name[4:]}Tensor").dtype == d


# ---- creation, printing, Python numbers ----
@pytest.mark.parametrize("name", UINTS)
def test_creation_matches_torch(device, name):
    d, w = tt(name), th(name)
    v = values(name)
    same(tandem.tensor(v, dtype=d, device=device), torch.tensor(v, dtype=w), device)
    same(tandem.tensor([[1, 2], [3, 4]], dtype=d, device=device), torch.tensor([[1, 2], [3, 4]], dtype=w), device)
    same(tandem.tensor(7, dtype=d, device=device), torch.tensor(7, dtype=w), device)
    same(tandem.zeros(2, 3, dtype=d, device=device), torch.zeros(2, 3, dtype=w), device)
    same(tandem.ones(4, dtype=d, device=device), torch.ones(4, dtype=w), device)
    same(tandem.full((3,), v[2], dtype=d, device=device), torch.full((3,), v[2], dtype=w), device)
    same(tandem.full((2,), -1, dtype=d, device=device), torch.full((2,), -1, dtype=w), device)  # wraps
    x = tandem.tensor(v, dtype=d, device=device)
    same(tandem.full_like(x, 5), torch.full_like(torch.tensor(v, dtype=w), 5), device)
    same(tandem.zeros_like(x), torch.zeros(len(v), dtype=w), device)
    same(x.new_tensor([1, 2]), torch.tensor([1, 2], dtype=w), device)
    assert tandem.empty(2, 3, dtype=d, device=device).shape == (2, 3)
    assert x[2].item() == v[2] and isinstance(x[2].item(), int)
    assert int(x[2]) == v[2] and float(x[1]) == 1.0 and bool(x[1]) and not bool(x[0])
    assert [1, 2, 3][x[1]] == 2  # __index__
    same(x.fill_(v[3]), torch.full((len(v),), v[3], dtype=w), device)


@pytest.mark.parametrize("name", UINTS)
def test_printing_matches_torch(name):
    d, w = tt(name), th(name)
    for v in ([3, 1, 2, 0], values(name, 7), [[1, 2], [30000, 4]], []):
        assert repr(tandem.tensor(v, dtype=d)) == repr(torch.tensor(v, dtype=w)).replace("torch.", "tandem.")
    assert repr(tandem.tensor(5, dtype=d)) == repr(torch.tensor(5, dtype=w)).replace("torch.", "tandem.")
    assert repr(tandem.arange(2000).to(d)) == repr(torch.arange(2000).to(w)).replace("torch.", "tandem.")


@pytest.mark.parametrize("name,value,fill", [("uint16", 70000, False), ("uint16", 70000, True),
                                             ("uint16", -65536, False), ("uint32", 2**32, True),
                                             ("uint32", -1.0, False), ("uint16", -1.0, True)])
def test_out_of_range_values_raise_torchs_error(name, value, fill):
    with pytest.raises(RuntimeError) as want:
        torch.full((1,), value, dtype=th(name)) if fill else torch.tensor([value], dtype=th(name))
    with pytest.raises(RuntimeError) as got:
        tandem.full((1,), value, dtype=tt(name)) if fill else tandem.tensor([value], dtype=tt(name))
    assert str(got.value).split("\n")[0] == str(want.value)


def test_uint64_holds_values_above_int64(device):
    big = [2**64 - 1, 2**63, 2**63 - 1, 0]
    x = tandem.tensor(big, dtype=tandem.uint64, device=device)
    same(x, torch.tensor(big, dtype=torch.uint64), device)
    assert x[0].item() == 2**64 - 1 and int(x[1]) == 2**63
    same(tandem.full((2,), 2**64 - 1, dtype=tandem.uint64, device=device),
         torch.full((2,), 2**64 - 1, dtype=torch.uint64), device)
    assert (x == 2**64 - 1).tolist() == [True, False, False, False]
    assert x.double().tolist() == torch.tensor(big, dtype=torch.uint64).double().tolist()
    assert repr(x.cpu()) == repr(torch.tensor(big, dtype=torch.uint64)).replace("torch.", "tandem.")
    # Python ints from 2**63 up exist only in uint64 (and the floats); a signed integer tensor refuses them.
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64 without overflow"):
        tandem.tensor([1, 2], device=device) + 2**63
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
        tandem.full((1,), 2**63)
    with pytest.raises(OverflowError, match="^int too big to convert"):  # PyTorch's error past uint64
        tandem.full((1,), 2**64, dtype=tandem.uint64)
    assert (tandem.ones(1, device=device) + (2**64 - 1)).tolist() == [float(2**64)]
    x[1] = 2**64 - 2
    x[2:] = 2**63 + 5
    assert x.tolist() == [2**64 - 1, 2**64 - 2, 2**63 + 5, 2**63 + 5]
    assert x.fill_(2**64 - 3).tolist() == [2**64 - 3] * 4
    assert (x * 2**63).tolist() == torch.full((4,), 2**64 - 3, dtype=torch.uint64).mul(2**63).tolist()
    y = tandem.zeros(2, dtype=tandem.int64, device=device)
    with pytest.raises(ValueError, match="^Overflow when unpacking long long"):  # PyTorch's setitem
        y[0] = 2**63
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
        y.fill_(2**63)
    # where no uint64 value is meant (PyTorch raises a RuntimeError here too, about promoting to uint64)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
        y.clamp(max=2**63)


# ---- casts ----
@pytest.mark.parametrize("src", UINTS)
@pytest.mark.parametrize("dst", ALL)
def test_casts_from_uint_match_torch(device, src, dst):
    v = values(src, 16)
    got = tandem.tensor(v, dtype=tt(src), device=device).to(tt(dst))
    want = torch.tensor(v, dtype=th(src)).to(th(dst))
    assert str(got.dtype).split(".")[-1] == dst and got.device == tandem.device(device)
    if dst in ("float16", "bfloat16", "float32", "float64", "complex64", "complex128"):
        np.testing.assert_array_equal(np.asarray(got.cpu().to(tandem.complex128 if "complex" in dst else
                                                              tandem.float64).tolist()),
                                      np.asarray(want.to(torch.complex128 if "complex" in dst else
                                                         torch.float64).tolist()))
    else:
        assert got.tolist() == want.tolist()


@pytest.mark.parametrize("dst", UINTS)
@pytest.mark.parametrize("src", ALL)
def test_casts_to_uint_match_torch(device, src, dst):
    if src == "bool":
        v = [True, False, True]
    elif src in ("float16", "bfloat16", "float32", "float64"):
        v = [0.0, 1.0, 2.5, 254.9, -1.0, -2.0, 60000.0]  # negative floats wrap through int64, as in PyTorch
    elif "complex" in src:
        v = [1 + 2j, 3.5 - 1j, 0j]
    else:
        info = np.iinfo(src)
        v = [0, 1, int(info.max), int(info.min), 100 % (int(info.max) + 1)]
    got = tandem.tensor(v, dtype=tt(src), device=device).to(tt(dst))
    want = torch.tensor(v, dtype=th(src)).to(th(dst))
    same(got, want, device)


def test_float_to_uint_special_values_match_torch(device):
    v = [float("nan"), float("inf"), -float("inf"), 1e19, 3e9, -3e9]
    for dst in ["uint32", "uint64"]:
        for src in ["float32", "float64"]:
            want = torch.tensor(v, dtype=th(src)).to(th(dst))
            got = tandem.tensor(v, dtype=tt(src), device=device).to(tt(dst))
            finite = [i for i, x in enumerate(v) if np.isfinite(x) and (dst == "uint64" or abs(x) < 2**63)]
            assert [got.tolist()[i] for i in finite] == [want.tolist()[i] for i in finite], (src, dst)


# ---- the exchange formats ----
@pytest.mark.parametrize("name", UINTS)
def test_numpy_round_trip(name):
    a = np.array(values(name), dtype=name)
    t = tandem.from_numpy(a)
    assert t.dtype == tt(name) and t.tolist() == a.tolist()
    a[0] = 9
    assert t[0].item() == 9  # shared memory
    assert t.numpy().dtype == np.dtype(name) and np.shares_memory(t.numpy(), a)
    assert tandem.tensor(a).dtype == tt(name) and tandem.as_tensor(a).dtype == tt(name)
    assert np.asarray(tandem.tensor([1, 2], dtype=tt(name))).dtype == np.dtype(name)
    big = np.array([1, 2], dtype=">" + np.dtype(name).str[1:])  # big-endian: copied by value
    assert tandem.tensor(big).tolist() == [1, 2]
    assert tandem.tensor(np.uint32(7)).dtype == tandem.uint32


@pytest.mark.parametrize("name", UINTS)
def test_dlpack_with_torch(name):
    v = values(name)
    w = torch.tensor(v, dtype=th(name))
    t = tandem.from_dlpack(w)
    same(t, w, "cpu")
    back = torch.from_dlpack(tandem.tensor(v, dtype=tt(name)))
    assert back.dtype == th(name) and back.tolist() == v
    assert tandem.from_dlpack(tandem.tensor(v, dtype=tt(name))).dtype == tt(name)


@pytest.mark.parametrize("name", UINTS)
def test_safetensors(tmp_path, name):
    safetensors_torch = pytest.importorskip("safetensors.torch")
    v = values(name)
    tandem.save({"x": tandem.tensor(v, dtype=tt(name))}, tmp_path / "a.safetensors")
    x = safetensors_torch.load_file(tmp_path / "a.safetensors")["x"]
    assert x.dtype == th(name) and x.tolist() == v
    safetensors_torch.save_file({"y": torch.tensor(v, dtype=th(name))}, tmp_path / "b.safetensors")
    y = tandem.load(tmp_path / "b.safetensors")["y"]
    assert y.dtype == tt(name) and y.tolist() == v


@pytest.mark.parametrize("name", UINTS)
def test_checkpoints_with_torch(device, name):
    v = values(name)
    buf = io.BytesIO()
    x = tandem.tensor(v, dtype=tt(name), device=device)
    tandem.save({"x": x, "view": x[1::3]}, buf)
    got = torch.load(io.BytesIO(buf.getvalue()), weights_only=True, map_location="cpu")
    assert got["x"].dtype == th(name) and got["x"].tolist() == v and got["view"].tolist() == v[1::3]
    buf = io.BytesIO()
    torch.save({"x": torch.tensor(v, dtype=th(name)), "view": torch.tensor(v, dtype=th(name))[::2]}, buf)
    back = tandem.load(io.BytesIO(buf.getvalue()), weights_only=True)
    assert back["x"].dtype == tt(name) and back["x"].tolist() == v and back["view"].tolist() == v[::2]


# ---- the ops PyTorch supports: PyTorch's results ----
def pair(name, device, n=24):
    a, b = values(name, n, 1), values(name, n, 2)
    return (tandem.tensor(a, dtype=tt(name), device=device), tandem.tensor(b, dtype=tt(name), device=device),
            torch.tensor(a, dtype=th(name)), torch.tensor(b, dtype=th(name)))


TORCH_BINARY = {
    "mul": lambda L, a, b: a * b, "mul_scalar": lambda L, a, b: a * 3, "eq": lambda L, a, b: a == b,
    "ne": lambda L, a, b: a != b, "eq_scalar": lambda L, a, b: a == 1, "and": lambda L, a, b: a & b,
    "or": lambda L, a, b: a | b, "xor": lambda L, a, b: a ^ b, "and_scalar": lambda L, a, b: a & 6,
    "minimum": lambda L, a, b: L.minimum(a, b), "maximum": lambda L, a, b: L.maximum(a, b),
    "max_binary": lambda L, a, b: L.max(a, b), "truediv": lambda L, a, b: a / (b | 1),
    "mul_float": lambda L, a, b: a * 1.5, "clamp": lambda L, a, b: a.clamp(3, 1000),
    "clamp_min_negative": lambda L, a, b: a.clamp(min=-1), "clamp_max_huge": lambda L, a, b: a.clamp(max=2**40),
    "clamp_tensors": lambda L, a, b: L.clamp(a, b, b | 4),
    "where": lambda L, a, b: L.where(a > b if L is tandem else (a.double() > b.double()), a, b),
    "where_scalar": lambda L, a, b: L.where((a & 1) == 1, a, 0),
    "sum": lambda L, a, b: a.sum(), "sum_dim": lambda L, a, b: a.reshape(4, 6).sum(1),
    "sum_keepdim": lambda L, a, b: a.reshape(4, 6).sum(0, keepdim=True), "prod": lambda L, a, b: (a & 3).prod(),
    "sum_int32": lambda L, a, b: a.sum(dtype=L.int32), "cumsum": lambda L, a, b: a.cumsum(0),
    "cumprod": lambda L, a, b: (a & 3).cumprod(0), "sort": lambda L, a, b: a.sort()[0],
    "sort_indices": lambda L, a, b: a.sort(stable=True)[1], "sort_desc": lambda L, a, b: a.sort(descending=True)[0],
    "argsort": lambda L, a, b: a.argsort(stable=True), "msort": lambda L, a, b: L.msort(a),
    "unique": lambda L, a, b: L.unique(a & 7), "any": lambda L, a, b: a.any(), "all": lambda L, a, b: a.all(),
    "cat": lambda L, a, b: L.cat([a, b]), "stack": lambda L, a, b: L.stack([a, b]),
    "index": lambda L, a, b: a[L.tensor([0, 5, 2], device=a.device)], "slice": lambda L, a, b: a[1::3],
    "index_select": lambda L, a, b: a.index_select(0, L.tensor([3, 1], device=a.device)),
    "gather": lambda L, a, b: a.gather(0, L.tensor([4, 0, 4], device=a.device)),
    "masked_select": lambda L, a, b: a[(L.arange(24, device=a.device) % 3) == 0],
    "flip": lambda L, a, b: a.flip(0),
    "roll": lambda L, a, b: a.roll(2), "repeat": lambda L, a, b: a.repeat(2),
    "transpose_contiguous": lambda L, a, b: a.reshape(4, 6).t().contiguous(), "diag": lambda L, a, b: a[:4].diag(),
    "pad": lambda L, a, b: L.nn.functional.pad(a, (1, 2)),
    "scatter": lambda L, a, b: L.zeros_like(a).scatter(0, L.tensor([3, 1], device=a.device), a[:2]),
    "isnan": lambda L, a, b: a.isnan(), "isclose": lambda L, a, b: L.isclose(a, a),
    "nan_to_num": lambda L, a, b: a.nan_to_num(), "mul_zero_dim_int64": lambda L, a, b: a * L.tensor(2),
    "eq_zero_dim_int64": lambda L, a, b: a == L.tensor(3),
}


@pytest.mark.parametrize("op", sorted(TORCH_BINARY))
@pytest.mark.parametrize("name", UINTS)
def test_ops_torch_supports(device, name, op):
    a, b, wa, wb = pair(name, device)
    got, want = TORCH_BINARY[op](tandem, a, b), TORCH_BINARY[op](torch, wa, wb)
    if got.dtype.is_floating_point:
        np.testing.assert_allclose(np.asarray(got.cpu().tolist()), np.asarray(want.tolist()), rtol=1e-6)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        assert got.device == tandem.device(device)
    else:
        same(got, want, device)


@pytest.mark.parametrize("name", UINTS)
def test_inplace_and_setitem_match_torch(device, name):
    a, b, wa, wb = pair(name, device)
    a[2] = 7
    wa[2] = 7
    a[3:5] = b[:2]
    wa[3:5] = wb[:2]
    a.mul_(3)
    wa.mul_(3)
    a &= b
    wa &= wb
    same(a, wa, device)
    same(a.clamp_(1, 50), wa.clamp_(1, 50), device)
    same(tandem.equal(a, a) and a.view(tandem.uint8).view(tt(name)), wa.view(torch.uint8).view(th(name)), device)


@pytest.mark.parametrize("name", UINTS)
def test_randint(device, name):
    x = tandem.randint(0, 1000, (200,), dtype=tt(name), device=device)
    assert x.dtype == tt(name) and x.device == tandem.device(device)
    v = x.tolist()
    assert min(v) >= 0 and max(v) < 1000 and len(set(v)) > 50


def test_clamp_bounds_outside_the_range(device):
    x = tandem.tensor([1, 5], dtype=tandem.uint32, device=device)
    with pytest.raises(RuntimeError) as want:
        torch.tensor([1, 5], dtype=torch.uint32).clamp(max=-1)
    with pytest.raises(RuntimeError) as got:
        x.clamp(max=-1)
    assert str(got.value) == str(want.value)


# ---- the integer arithmetic tandem adds (PyTorch raises): NumPy's results ----
NUMPY_OPS = {
    "add": (lambda a, b: a + b, np.add), "sub": (lambda a, b: a - b, np.subtract),
    "add_scalar": (lambda a, b: a + 5, lambda a, b: a + np.array(5, a.dtype)),
    "rsub_scalar": (lambda a, b: 5 - a, lambda a, b: np.array(5, a.dtype) - a),
    "floordiv": (lambda a, b: a // (b | 1), lambda a, b: a // (b | 1)),
    "remainder": (lambda a, b: a % (b | 1), lambda a, b: a % (b | 1)),
    "lt": (lambda a, b: a < b, np.less), "le": (lambda a, b: a <= b, np.less_equal),
    "gt": (lambda a, b: a > b, np.greater), "ge": (lambda a, b: a >= b, np.greater_equal),
    "gt_scalar": (lambda a, b: a > 100, lambda a, b: a > 100),
    "lshift": (lambda a, b: a << (b & 7), lambda a, b: a << (b & 7)),
    "rshift": (lambda a, b: a >> (b & 7), lambda a, b: a >> (b & 7)),
    "invert": (lambda a, b: ~a, np.invert), "neg": (lambda a, b: -a, np.negative),
    "abs": (lambda a, b: abs(a), np.abs), "pow": (lambda a, b: a ** 3, lambda a, b: a ** np.array(3, a.dtype)),
    "sign": (lambda a, b: a.sign(), np.sign),
    "floor": (lambda a, b: a.floor(), lambda a, b: a), "round": (lambda a, b: a.round(), lambda a, b: a),
    "max": (lambda a, b: a.max(), lambda a, b: np.max(a)), "min": (lambda a, b: a.min(), lambda a, b: np.min(a)),
    "amax_dim": (lambda a, b: a.reshape(4, 6).amax(1), lambda a, b: a.reshape(4, 6).max(1)),
    "max_dim": (lambda a, b: a.reshape(4, 6).max(0)[0], lambda a, b: a.reshape(4, 6).max(0)),
    "argmax": (lambda a, b: a.argmax(), lambda a, b: np.argmax(a)),
    "argmin_dim": (lambda a, b: a.reshape(4, 6).argmin(1), lambda a, b: a.reshape(4, 6).argmin(1)),
    "count_nonzero": (lambda a, b: tandem.count_nonzero(a & 1), lambda a, b: np.count_nonzero(a & 1)),
    "nonzero": (lambda a, b: (a & 1).nonzero().reshape(-1), lambda a, b: np.nonzero(a & 1)[0]),
    "topk": (lambda a, b: a.topk(3)[0], lambda a, b: np.sort(a)[::-1][:3]),
    "exp": (lambda a, b: (a & 3).exp(), lambda a, b: np.exp((a & 3).astype(np.float32))),
    "sqrt": (lambda a, b: a.sqrt(), lambda a, b: np.sqrt(a.astype(np.float64)).astype(np.float32)),
    "arange": (lambda a, b: tandem.arange(3, 30, 4, dtype=a.dtype, device=a.device),
               lambda a, b: np.arange(3, 30, 4, dtype=a.dtype)),
}


@pytest.mark.parametrize("op", sorted(NUMPY_OPS))
@pytest.mark.parametrize("name", UINTS)
def test_integer_ops_match_numpy(device, name, op):
    a, b, _, _ = pair(name, device)
    na, nb = np.array(values(name, 24, 1), dtype=name), np.array(values(name, 24, 2), dtype=name)
    ours, ref = NUMPY_OPS[op]
    with np.errstate(over="ignore"):
        want = np.asarray(ref(na, nb))
    got = ours(a, b)
    assert got.device == tandem.device(device)
    if want.dtype.kind == "f":
        assert got.dtype == tt(str(want.dtype))
        np.testing.assert_allclose(np.asarray(got.cpu().tolist()), want, rtol=1e-6)
        return
    if want.dtype.kind == "i" and got.dtype == tandem.int64:  # argmax, nonzero, count_nonzero: indices
        want = want.astype(np.int64)
    assert got.dtype == tt(str(want.dtype)), (got.dtype, want.dtype)
    assert got.cpu().tolist() == want.tolist()


def test_floor_divide_by_zero_raises(device):
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        tandem.tensor([4, 2], dtype=tandem.uint32) // tandem.tensor([1, 0], dtype=tandem.uint32)


# ---- promotion ----
@pytest.mark.parametrize("a,b,want", [
    ("uint16", "uint32", "uint32"), ("uint8", "uint64", "uint64"), ("uint16", "int8", "int32"),
    ("uint16", "int16", "int32"), ("uint16", "int64", "int64"), ("uint32", "int32", "int64"),
    ("uint32", "int8", "int64"), ("uint32", "float16", "float16"), ("uint64", "float32", "float32"),
    ("uint16", "bool", "uint16"), ("uint64", "complex64", "complex64"), ("uint8", "int8", "int16"),
])
def test_promotion_follows_the_array_api(device, a, b, want):
    assert tandem.promote_types(tt(a), tt(b)) == tt(want) and tandem.promote_types(tt(b), tt(a)) == tt(want)
    x, y = tandem.ones(2, dtype=tt(a), device=device), tandem.ones(2, dtype=tt(b), device=device)
    assert tandem.result_type(x, y) == tt(want)
    assert (x * y).dtype == tt(want) and (x * y).device == tandem.device(device)
    assert tandem.cat([x, y]).dtype == tt(want)


@pytest.mark.parametrize("name", UINTS)
def test_python_scalars_keep_the_dtype(name):
    x = tandem.ones(2, dtype=tt(name))
    assert tandem.result_type(x, 3) == tt(name) == tandem.result_type(x, True)
    assert torch.result_type(torch.ones(2, dtype=th(name)), 3) == th(name)
    assert tandem.result_type(x, 1.5) == tandem.float32 == tandem.promote_types(tt(name), tandem.float32)


@pytest.mark.parametrize("signed", ["int8", "int16", "int32", "int64"])
def test_uint64_with_signed_raises(device, signed):
    x, y = tandem.ones(2, dtype=tandem.uint64, device=device), tandem.ones(2, dtype=tt(signed), device=device)
    msg = f"Promotion for uint64 and {tt(signed)._scalar_type_name} is not supported"
    with pytest.raises(RuntimeError, match=msg):
        x + y
    with pytest.raises(RuntimeError, match=msg):
        tandem.promote_types(tandem.uint64, tt(signed))
    assert (x + 1).dtype == tandem.uint64  # a Python int is not a signed tensor


# ---- what stays unsupported: PyTorch's NotImplementedError ----
@pytest.mark.parametrize("name", UINTS)
def test_other_ops_raise_not_implemented(device, name):
    x = tandem.ones(2, 2, dtype=tt(name), device=device)
    kernel = "cpu" if device == "cpu" else "cuda"
    with pytest.raises(NotImplementedError, match=f"not implemented for '{tt(name)._scalar_type_name}'"):
        x @ x
    with pytest.raises(NotImplementedError, match=f"\"index_put_{kernel}\" not implemented for "
                                                  f"'{tt(name)._scalar_type_name}'"):
        x.index_put_((tandem.tensor([0], device=device),), tandem.ones(2, dtype=tt(name), device=device),
                     accumulate=True)
    with pytest.raises(NotImplementedError, match=f"\"logical_and_{kernel}\" not implemented for"):
        tandem.logical_and(x, x)
    assert (x + x).tolist() == [[2, 2], [2, 2]]  # still usable afterwards
