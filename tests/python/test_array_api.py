"""tandem.array_api, the Array API standard namespace: its names and signatures, the standard's promotion table,
the special cases it implements, the composed functions against NumPy, and the __array_namespace__ round trip,
on every device. (The conformance suite itself, data-apis/array-api-tests, runs through
scripts/array_api_tests.sh; CI cannot fetch it.)"""
import inspect
import math

import numpy as np
import pytest
import torch

import tandem
import tandem.array_api as xp

# The standard's (2024.12) functions, by its categories.
NAMES = {
    "creation": "arange asarray empty empty_like eye from_dlpack full full_like linspace meshgrid ones ones_like "
                "tril triu zeros zeros_like",
    "data types": "astype can_cast finfo iinfo isdtype result_type",
    "elementwise": "abs acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_left_shift bitwise_invert "
                   "bitwise_or bitwise_right_shift bitwise_xor ceil clip conj copysign cos cosh divide equal exp "
                   "expm1 floor floor_divide greater greater_equal hypot imag isfinite isinf isnan less less_equal "
                   "log log1p log2 log10 logaddexp logical_and logical_not logical_or logical_xor maximum minimum "
                   "multiply negative nextafter not_equal positive pow real reciprocal remainder round sign "
                   "signbit sin sinh square sqrt subtract tan tanh trunc",
    "indexing": "take take_along_axis",
    "linear algebra": "matmul matrix_transpose tensordot vecdot",
    "manipulation": "broadcast_arrays broadcast_to concat expand_dims flip moveaxis permute_dims repeat reshape "
                    "roll squeeze stack tile unstack",
    "searching": "argmax argmin count_nonzero nonzero searchsorted where",
    "set": "unique_all unique_counts unique_inverse unique_values",
    "sorting": "argsort sort",
    "statistical": "cumulative_prod cumulative_sum max mean min prod std sum var",
    "utility": "all any diff",
}


@pytest.mark.parametrize("category", sorted(NAMES))
def test_names_present(category):
    missing = [n for n in NAMES[category].split() if not callable(getattr(xp, n, None))]
    assert missing == []


def test_constants_and_version():
    assert xp.__array_api_version__ == "2024.12"
    assert (xp.e, xp.pi, xp.newaxis) == (math.e, math.pi, None)
    assert xp.inf == math.inf and math.isnan(xp.nan)


# Signatures as the standard writes them (positional-only and keyword-only markers included).
SIGNATURES = {
    "asarray": "(obj, /, *, dtype=None, device=None, copy=None)",
    "arange": "(start, /, stop=None, step=1, *, dtype=None, device=None)",
    "eye": "(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None)",
    "full_like": "(x, /, fill_value, *, dtype=None, device=None)",
    "linspace": "(start, stop, /, num, *, dtype=None, device=None, endpoint=True)",
    "meshgrid": "(*arrays, indexing='xy')",
    "tril": "(x, /, *, k=0)",
    "from_dlpack": "(x, /, *, device=None, copy=None)",
    "astype": "(x, dtype, /, *, copy=True, device=None)",
    "can_cast": "(from_, to, /)",
    "clip": "(x, /, min=None, max=None)",
    "sum": "(x, /, *, axis=None, dtype=None, keepdims=False)",
    "std": "(x, /, *, axis=None, correction=0.0, keepdims=False)",
    "cumulative_sum": "(x, /, *, axis=None, dtype=None, include_initial=False)",
    "argmax": "(x, /, *, axis=None, keepdims=False)",
    "searchsorted": "(x1, x2, /, *, side='left', sorter=None)",
    "where": "(condition, x1, x2, /)",
    "argsort": "(x, /, *, axis=-1, descending=False, stable=True)",
    "concat": "(arrays, /, *, axis=0)",
    "expand_dims": "(x, /, axis=0)",
    "reshape": "(x, /, shape, *, copy=None)",
    "roll": "(x, /, shift, *, axis=None)",
    "squeeze": "(x, /, axis)",
    "take": "(x, indices, /, *, axis=None)",
    "tensordot": "(x1, x2, /, *, axes=2)",
    "vecdot": "(x1, x2, /, *, axis=-1)",
    "diff": "(x, /, *, axis=-1, n=1, prepend=None, append=None)",
    "copysign": "(x1, x2, /)",
    "unique_all": "(x, /)",
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signatures(name):
    assert str(inspect.signature(getattr(xp, name))) == SIGNATURES[name]


def test_namespace_info(device):
    info = xp.__array_namespace_info__()
    assert info.capabilities() == {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": None}
    assert tandem.device(device) in info.devices()
    assert info.default_device() == tandem.device("cpu")
    assert info.default_dtypes(device=device) == {"real floating": tandem.float32,
                                                  "complex floating": tandem.complex64, "integral": tandem.int64,
                                                  "indexing": tandem.int64}
    dtypes = info.dtypes(device=device)
    assert sorted(dtypes) == ["bool", "complex128", "complex64", "float32", "float64", "int16", "int32", "int64",
                              "int8", "uint16", "uint32", "uint64", "uint8"]
    assert info.dtypes(kind="unsigned integer") == {"uint8": tandem.uint8, "uint16": tandem.uint16,
                                                    "uint32": tandem.uint32, "uint64": tandem.uint64}
    assert info.dtypes(kind=("bool", "real floating")) == {"bool": tandem.bool, "float32": tandem.float32,
                                                           "float64": tandem.float64}
    assert info.dtypes(kind="complex floating") == {"complex64": tandem.complex64, "complex128": tandem.complex128}
    assert info.dtypes(kind="numeric")["complex128"] is tandem.complex128
    previous = tandem.get_default_dtype()
    tandem.set_default_dtype(tandem.float64)
    try:
        assert info.default_dtypes()["complex floating"] == tandem.complex128
    finally:
        tandem.set_default_dtype(previous)


def test_complex_dtypes_and_promotion():
    """The standard's complex dtypes, kinds, promotion (complex64 with float64 is complex128) and casts."""
    assert xp.complex64 is tandem.complex64 and xp.complex128 is tandem.complex128
    assert xp.isdtype(xp.complex64, "complex floating") and xp.isdtype(xp.complex128, "numeric")
    assert not xp.isdtype(xp.complex64, ("real floating", "integral", "bool"))
    assert xp.result_type(xp.complex64, xp.float64) == xp.complex128
    assert xp.result_type(xp.complex64, xp.complex128) == xp.complex128
    assert xp.result_type(xp.float32, 1j) == xp.complex64 and xp.result_type(xp.float64, 1j) == xp.complex128
    assert xp.result_type(xp.complex64, 1.5) == xp.complex64 and xp.result_type(xp.complex128, 2) == xp.complex128
    assert xp.can_cast(xp.float32, xp.complex64) and xp.can_cast(xp.complex64, xp.complex128)
    assert not xp.can_cast(xp.float64, xp.complex64) and not xp.can_cast(xp.complex64, xp.float64)
    assert xp.can_cast(xp.int16, xp.complex64) and not xp.can_cast(xp.int32, xp.complex64)
    assert xp.can_cast(xp.int32, xp.complex128)
    f = xp.finfo(xp.complex64)
    assert f.dtype == xp.float32 and f.bits == 32 and f.eps == np.finfo(np.complex64).eps
    assert xp.finfo(xp.complex128).dtype == xp.float64


def test_complex_functions(device):
    z = xp.asarray([1 + 2j, -3 + 0.5j, 0j], device=device)
    assert z.dtype == xp.complex64
    assert xp.real(z).tolist() == [1.0, -3.0, 0.0] and xp.real(z).dtype == xp.float32
    assert xp.imag(z).tolist() == [2.0, 0.5, 0.0] and xp.imag(z).dtype == xp.float32
    assert xp.conj(z).tolist() == [1 - 2j, -3 - 0.5j, 0j]
    r = xp.real(z)
    r[0] = 9  # a copy, not a view of z
    assert z[0].item() == 1 + 2j
    got = xp.sign(z).tolist()
    want = torch.sgn(torch.tensor([1 + 2j, -3 + 0.5j, 0j])).tolist()
    assert np.allclose(got, want)
    assert xp.abs(z).dtype == xp.float32
    v = xp.vecdot(z, z)
    assert abs(v.item() - sum(abs(c) ** 2 for c in [1 + 2j, -3 + 0.5j])) < 1e-5  # conj(x1) * x2
    assert xp.isnan(xp.asarray([complex(float("nan"), 0), 1j], device=device)).tolist() == [True, False]
    assert xp.real(xp.asarray([1.5], device=device)).tolist() == [1.5]
    assert xp.imag(xp.asarray([1.5], device=device)).tolist() == [0.0]


def test_array_namespace_round_trip(device):
    x = tandem.arange(6, dtype=tandem.float32, device=device).reshape(2, 3)
    ns = x.__array_namespace__()
    assert ns is xp and x.__array_namespace__(api_version="2023.12") is xp
    assert ns.asarray(x) is x  # no copy
    y = ns.sum(ns.multiply(x, 2), axis=1, keepdims=True)
    assert y.device == tandem.device(device) and y.dtype == tandem.float32 and y.tolist() == [[6.0], [24.0]]
    with pytest.raises(ValueError, match="Unrecognized array API version: '2099.12'"):
        x.__array_namespace__(api_version="2099.12")


# ---- type promotion ----
INTS = ["int8", "int16", "int32", "int64"]
UINTS = ["uint8", "uint16", "uint32", "uint64"]


def _standard_promotion(a, b):
    """The standard's table (bool with bool, integers, floats; no mixed kinds), written out as its rule: the
    wider of two signed or two unsigned types; an unsigned with a signed type, the smallest signed type holding
    both (None for uint64, which none holds)."""
    if a == b:
        return a
    if {a, b} <= {"float32", "float64"}:
        return "float64"
    if (a in UINTS) == (b in UINTS):
        return max(a, b, key=(UINTS if a in UINTS else INTS).index)
    u, s = (a, b) if a in UINTS else (b, a)
    bits = max(2 * int(u[4:]), int(s[3:]))
    return f"int{bits}" if bits <= 64 else None


PAIRS = [(a, b) for a in INTS + UINTS for b in INTS + UINTS
         if _standard_promotion(a, b)] + \
        [(a, b) for a in ("float32", "float64") for b in ("float32", "float64")] + [("bool", "bool")]


def test_promotion_table_spot_checks():
    assert _standard_promotion("uint32", "int32") == "int64" and _standard_promotion("uint8", "int8") == "int16"
    assert _standard_promotion("uint16", "uint64") == "uint64" and _standard_promotion("uint16", "int8") == "int32"
    assert _standard_promotion("uint64", "int8") is None


@pytest.mark.parametrize("a,b", PAIRS)
def test_promotion_table(a, b):
    want = getattr(tandem, _standard_promotion(a, b))
    x1, x2 = xp.ones(2, dtype=getattr(xp, a)), xp.ones(2, dtype=getattr(xp, b))
    assert xp.result_type(getattr(xp, a), getattr(xp, b)) == want
    assert xp.result_type(x1, x2) == want
    assert xp.add(x1, x2).dtype == want if a != "bool" else xp.logical_and(x1, x2).dtype == want
    assert xp.can_cast(getattr(xp, a), want)


@pytest.mark.parametrize("dtype,scalar,want", [
    ("int8", 1, "int8"), ("uint8", 3, "uint8"), ("float32", 1.5, "float32"), ("float32", 2, "float32"),
    ("float64", 1.5, "float64"), ("bool", True, "bool"),
    ("int16", 1.5, "float32"),  # mixed kinds are implementation-defined: tandem's (PyTorch's) default float
])
def test_promotion_with_python_scalars(dtype, scalar, want):
    x = xp.ones(3, dtype=getattr(xp, dtype))
    assert xp.result_type(x, scalar) == getattr(xp, want)
    assert xp.result_type(getattr(xp, dtype), scalar, scalar) == getattr(xp, want)
    if dtype != "bool":
        assert xp.multiply(x, scalar).dtype == getattr(xp, want)
        assert xp.hypot(x, scalar).dtype == xp.result_type(getattr(xp, want), xp.float32)


@pytest.mark.parametrize("name,scalar,values,want", [
    ("greater", 0, [-1, 0, 1], [True, False, False]), ("greater_equal", 0, [-1, 0, 1], [True, True, False]),
    ("less", 0, [-1, 0, 1], [False, False, True]), ("less_equal", 0, [-1, 0, 1], [False, True, True]),
    ("equal", 0, [-1, 0, 1], [False, True, False]), ("not_equal", 0, [-1, 0, 1], [True, False, True]),
    ("subtract", 1, [-1, 0, 1], [2, 1, 0]), ("floor_divide", 3, [-2, 2, 1], [-2, 1, 3]),
])
def test_a_python_scalar_first_operand(name, scalar, values, want):
    """The 2024.12 standard takes a scalar in either position; tandem's comparisons (as PyTorch's) want a tensor
    first, so the namespace makes the scalar a 0-d array of the result dtype."""
    got = getattr(xp, name)(scalar, xp.asarray(values, dtype=xp.int16))
    assert got.dtype == (xp.bool if isinstance(want[0], bool) else xp.int16) and got.tolist() == want


@pytest.mark.parametrize("signed", INTS)
def test_uint64_with_a_signed_integer_has_no_result(signed):
    # The standard leaves it undefined; tandem raises its own error (PyTorch has no uint64 promotion at all).
    with pytest.raises(RuntimeError, match=f"Promotion for uint64 and .* is not supported: no integer dtype holds "
                                           f"both uint64's and {signed}'s values"):
        xp.result_type(xp.uint64, getattr(xp, signed))
    with pytest.raises(RuntimeError, match="Promotion for uint64"):
        xp.add(xp.ones(2, dtype=xp.uint64), xp.ones(2, dtype=getattr(xp, signed)))
    assert not xp.can_cast(xp.uint64, getattr(xp, signed)) and not xp.can_cast(getattr(xp, signed), xp.uint64)


@pytest.mark.parametrize("dtype", UINTS)
def test_unsigned_arithmetic_matches_numpy(device, dtype):
    rng = np.random.default_rng(7)
    top = np.iinfo(dtype).max
    a = rng.integers(0, top, 64, dtype=dtype, endpoint=True)
    b = rng.integers(1, top, 64, dtype=dtype, endpoint=True)
    x1, x2 = xp.asarray(a, device=device), xp.asarray(b, device=device)
    for name, ref in [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
                      ("floor_divide", np.floor_divide), ("remainder", np.remainder), ("maximum", np.maximum),
                      ("minimum", np.minimum), ("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or),
                      ("bitwise_xor", np.bitwise_xor), ("equal", np.equal), ("less", np.less),
                      ("greater_equal", np.greater_equal)]:
        got = getattr(xp, name)(x1, x2)
        want = ref(a, b)
        assert got.dtype == getattr(xp, str(want.dtype)), name
        assert got.device == tandem.device(device)
        np.testing.assert_array_equal(got.cpu().numpy(), want, err_msg=name)
    shift = np.arange(64, dtype=dtype) % (8 * a.itemsize)
    s = xp.asarray(shift, device=device)
    np.testing.assert_array_equal(xp.bitwise_left_shift(x1, s).cpu().numpy(), np.left_shift(a, shift))
    np.testing.assert_array_equal(xp.bitwise_right_shift(x1, s).cpu().numpy(), np.right_shift(a, shift))
    np.testing.assert_array_equal(xp.bitwise_invert(x1).cpu().numpy(), np.invert(a))
    np.testing.assert_array_equal(xp.negative(x1).cpu().numpy(), np.negative(a))  # wraps, as NumPy's
    np.testing.assert_array_equal(xp.abs(x1).cpu().numpy(), a)
    np.testing.assert_array_equal(xp.pow(x1, xp.asarray(np.full(64, 3, dtype), device=device)).cpu().numpy(),
                                  np.power(a, np.full(64, 3, dtype)))
    # Python ints keep the array's dtype.
    assert xp.add(x1, 1).dtype == x1.dtype and xp.multiply(2, x1).dtype == x1.dtype
    # Matrix products (through int64: tandem, as PyTorch, has no unsigned gemm) wrap as NumPy's.
    m1, m2 = a[:12].reshape(3, 4), b[:12].reshape(4, 3)
    got = xp.matmul(xp.asarray(m1, device=device), xp.asarray(m2, device=device))
    assert got.dtype == x1.dtype
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got.cpu().numpy(), m1 @ m2)
        np.testing.assert_array_equal(xp.tensordot(x1, x2, axes=1).cpu().numpy(), np.tensordot(a, b, axes=1))
        np.testing.assert_array_equal(xp.vecdot(x1, x2).cpu().numpy(), np.vecdot(a, b) if hasattr(np, "vecdot")
                                      else np.sum(a * b, dtype=dtype))


@pytest.mark.parametrize("dtype", UINTS)
def test_unsigned_reductions_and_searching(device, dtype):
    a = np.array([[5, 0, 7], [3, 9, 1]], dtype=dtype)
    if dtype == "uint64":
        a[0, 0] = 2**64 - 2  # above int64's range
    x = xp.asarray(a, device=device)
    for name in ["max", "min"]:
        got = getattr(xp, name)(x, axis=1)
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got.cpu().numpy(), getattr(np, name)(a, axis=1))
    # The standard sums and multiplies unsigned integers in the default integer's unsigned counterpart.
    for name, ref in [("sum", np.sum), ("prod", np.prod)]:
        got = getattr(xp, name)(x, axis=0)
        assert got.dtype == xp.uint64
        np.testing.assert_array_equal(got.cpu().numpy(), ref(a, axis=0, dtype=np.uint64))
    assert xp.cumulative_sum(x, axis=1).dtype == xp.uint64
    np.testing.assert_array_equal(xp.cumulative_sum(x, axis=1).cpu().numpy(), np.cumsum(a, axis=1, dtype=np.uint64))
    np.testing.assert_array_equal(xp.argmax(x, axis=1).cpu().numpy(), np.argmax(a, axis=1))
    np.testing.assert_array_equal(xp.argmin(x, axis=0).cpu().numpy(), np.argmin(a, axis=0))
    np.testing.assert_array_equal(xp.sort(x, axis=1).cpu().numpy(), np.sort(a, axis=1))
    np.testing.assert_array_equal(xp.sort(x, axis=1, descending=True).cpu().numpy(), np.sort(a, axis=1)[:, ::-1])
    np.testing.assert_array_equal(xp.argsort(x, axis=1).cpu().numpy(), np.argsort(a, axis=1, kind="stable"))
    assert int(xp.count_nonzero(x)) == np.count_nonzero(a)
    np.testing.assert_array_equal(xp.nonzero(x)[1].cpu().numpy(), np.nonzero(a)[1])
    np.testing.assert_array_equal(xp.where(x > 4, x, xp.asarray(0, dtype=x.dtype, device=device)).cpu().numpy(),
                                  np.where(a > 4, a, 0))
    np.testing.assert_array_equal(xp.clip(x, 1, 6).cpu().numpy(), np.clip(a, 1, 6))
    got = xp.arange(2, 11, 3, dtype=getattr(xp, dtype), device=device)
    assert got.dtype == getattr(xp, dtype)
    np.testing.assert_array_equal(got.cpu().numpy(), np.arange(2, 11, 3, dtype=dtype))
    assert xp.iinfo(getattr(xp, dtype)).max == np.iinfo(dtype).max


def test_result_type_needs_an_array_or_dtype():
    with pytest.raises(ValueError, match="at least one array or dtype"):
        xp.result_type(1, 2.0)


def test_can_cast_and_isdtype():
    assert xp.can_cast(xp.int8, xp.int64) and not xp.can_cast(xp.int64, xp.int8)
    assert xp.can_cast(xp.uint8, xp.int16) and not xp.can_cast(xp.int8, xp.uint8)
    assert xp.can_cast(xp.bool, xp.float32) and not xp.can_cast(xp.float32, xp.int64)
    assert xp.can_cast(xp.int16, xp.float32) and not xp.can_cast(xp.int64, xp.float32)
    assert xp.can_cast(xp.ones(1, dtype=xp.float32), xp.float64)
    assert xp.isdtype(xp.int8, "signed integer") and xp.isdtype(xp.uint8, ("bool", "unsigned integer"))
    assert xp.isdtype(xp.uint64, "unsigned integer") and not xp.isdtype(xp.uint32, "signed integer")
    assert xp.can_cast(xp.uint16, xp.int32) and xp.can_cast(xp.uint32, xp.uint64)
    assert not xp.can_cast(xp.uint32, xp.int32) and not xp.can_cast(xp.uint64, xp.int64)
    assert xp.can_cast(xp.uint32, xp.float64) and not xp.can_cast(xp.uint64, xp.float64)
    assert xp.isdtype(xp.float32, "numeric") and not xp.isdtype(xp.bool, "numeric")
    assert xp.isdtype(xp.int64, xp.int64) and xp.isdtype(xp.int64, "integral")
    with pytest.raises(ValueError, match="unknown kind 'complex'"):
        xp.isdtype(xp.float32, "complex")


@pytest.mark.parametrize("a", ["bool", "uint8", "int8", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("b", ["bool", "uint8", "int32", "bfloat16", "float64"])
def test_top_level_can_cast_is_pytorchs(a, b):
    assert tandem.can_cast(getattr(tandem, a), getattr(tandem, b)) == torch.can_cast(getattr(torch, a),
                                                                                      getattr(torch, b))


def test_top_level_can_cast_error_and_isdtype():
    with pytest.raises(TypeError) as e:
        tandem.can_cast(1, tandem.int8)
    with pytest.raises(TypeError) as want:
        torch.can_cast(1, torch.int8)
    assert str(e.value) == str(want.value)
    assert tandem.isdtype(tandem.float16, "real floating") and not tandem.isdtype(tandem.uint8, "signed integer")


def test_finfo_iinfo_give_dtype_objects():
    f = xp.finfo(xp.ones(1, dtype=xp.float32))
    assert (f.bits, f.eps, f.dtype) == (32, 2.0 ** -23, xp.float32)
    assert f.max == float(np.finfo(np.float32).max) and f.smallest_normal == float(np.finfo(np.float32).tiny)
    i = xp.iinfo(xp.int16)
    assert (i.bits, i.min, i.max, i.dtype) == (16, -32768, 32767, xp.int16)


# ---- creation ----

def test_asarray_copy_semantics(device):
    x = tandem.ones(3, device=device)
    assert xp.asarray(x, copy=False) is x
    c = xp.asarray(x, copy=True)
    assert c.data_ptr() != x.data_ptr() and c.device == x.device
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        xp.asarray(x, dtype=xp.float64, copy=False)
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        xp.asarray([1, 2], copy=False)
    assert xp.asarray([1, 2], device=device).device == tandem.device(device)
    assert xp.asarray(2.5).dtype == tandem.float32 and xp.asarray(True).dtype == tandem.bool


def test_asarray_shares_numpy_memory():
    a = np.arange(4.0)
    t = xp.asarray(a)
    a[0] = 9.0
    assert t.tolist() == [9.0, 1.0, 2.0, 3.0]
    t2 = xp.asarray(a, copy=True)
    a[1] = 7.0
    assert t2.tolist() == [9.0, 1.0, 2.0, 3.0]


def test_creation_conventions(device):
    assert xp.arange(5, 0, device=device).shape == (0,)  # an empty range, not an error
    assert xp.arange(5, 0, -2, device=device).tolist() == [5, 3, 1]
    assert xp.eye(3, 4, k=1, device=device).tolist() == np.eye(3, 4, k=1).tolist()
    assert xp.eye(3, k=-2, dtype=xp.int32, device=device).dtype == xp.int32
    assert xp.linspace(0, 1, 4, endpoint=False, device=device).tolist() == [0.0, 0.25, 0.5, 0.75]
    z = xp.zeros_like(xp.ones((2, 3), dtype=xp.int8, device=device), dtype=xp.float64)
    assert (z.dtype, z.device, tuple(z.shape)) == (xp.float64, tandem.device(device), (2, 3))
    g = xp.meshgrid(xp.arange(2, device=device), xp.arange(3, device=device))
    assert isinstance(g, list) and tuple(g[0].shape) == (3, 2)
    assert xp.triu(xp.ones((3, 3), device=device), k=1).tolist() == np.triu(np.ones((3, 3)), 1).tolist()


def test_from_dlpack_copy(device):
    x = tandem.arange(3, device=device)
    assert xp.from_dlpack(x).data_ptr() == x.data_ptr()
    assert xp.from_dlpack(x, copy=True).data_ptr() != x.data_ptr()


# ---- special cases the namespace implements ----

def test_division_by_zero(device):
    x = xp.asarray([1.0, -1.0, 0.0], device=device)
    got = xp.divide(x, 0.0).tolist()
    assert got[:2] == [math.inf, -math.inf] and math.isnan(got[2])
    assert xp.divide(xp.asarray([1, -1], device=device), 0).tolist() == [math.inf, -math.inf]
    assert math.isnan(xp.remainder(xp.asarray([5.0], device=device), 0.0).item())


def test_signed_zero_cases(device):
    z = xp.asarray([-0.0, 0.0], device=device)
    assert xp.signbit(z).tolist() == [True, False]
    for fn in (xp.sinh, xp.asinh, xp.atanh, xp.tan):
        r = fn(z)
        assert xp.signbit(r).tolist() == [True, False], fn
    assert xp.signbit(xp.copysign(xp.asarray([3.0, 3.0], device=device), z)).tolist() == [True, False]


def test_infinity_and_nan_cases(device):
    inf, nan = math.inf, math.nan
    a = xp.asarray([inf, -inf, inf, nan, 3.0], device=device)
    b = xp.asarray([nan, nan, inf, 1.0, 4.0], device=device)
    assert xp.hypot(a, b).tolist()[:3] == [inf, inf, inf]  # an infinity wins over NaN
    assert math.isnan(xp.hypot(a, b)[3].item()) and xp.hypot(a, b)[4].item() == 5.0
    le = xp.logaddexp(xp.asarray([inf, -inf, -inf], device=device), xp.asarray([inf, -inf, 0.0], device=device))
    assert le.tolist() == [inf, -inf, 0.0]
    assert xp.atanh(xp.asarray([1.0, -1.0], device=device)).tolist() == [inf, -inf]
    assert math.isnan(xp.atanh(xp.asarray([2.0], device=device)).item())
    assert xp.acosh(xp.asarray([1.0, inf], device=device)).tolist() == [0.0, inf]
    assert math.isnan(xp.acosh(xp.asarray([0.5], device=device)).item())


def test_unique_treats_each_nan_as_distinct(device):
    x = xp.asarray([2.0, math.nan, 1.0, 2.0, math.nan], device=device)
    r = xp.unique_all(x)
    assert r.values.tolist()[:2] == [1.0, 2.0] and all(math.isnan(v) for v in r.values.tolist()[2:])
    assert r.counts.tolist() == [1, 2, 1, 1]
    assert r.indices.tolist()[:2] == [2, 0]
    assert x[r.indices].tolist()[:2] == [1.0, 2.0]
    assert xp.take(r.values, xp.reshape(r.inverse_indices, (-1,)))[:4:3].tolist() == [2.0, 2.0]
    assert r.inverse_indices.device == tandem.device(device)


def test_unique_matches_numpy(device):
    g = np.random.default_rng(0)
    a = g.integers(0, 6, size=(4, 5))
    x = xp.asarray(a.tolist(), device=device)
    values, indices, inverse, counts = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    r = xp.unique_all(x)
    assert r.values.tolist() == values.tolist() and r.counts.tolist() == counts.tolist()
    assert r.indices.tolist() == indices.tolist()
    assert r.inverse_indices.tolist() == inverse.reshape(a.shape).tolist()
    assert xp.unique_inverse(x).inverse_indices.tolist() == inverse.reshape(a.shape).tolist()
    assert xp.unique_counts(x).counts.tolist() == counts.tolist()
    assert xp.unique_values(x).tolist() == values.tolist()


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy(device, side):
    s = np.array([1.0, 2.0, 2.0, 3.0, math.nan])  # sorted as tandem sorts: NaN last
    v = np.array([[0.5, 2.0], [3.0, 2.5]])
    got = xp.searchsorted(xp.asarray(s.tolist(), device=device), xp.asarray(v.tolist(), device=device), side=side)
    assert got.tolist() == np.searchsorted(s, v, side=side).tolist()  # PyTorch's binary search would give 5 for 3.0
    assert xp.searchsorted(xp.asarray(s.tolist(), device=device), math.nan, side=side).item() == 5  # PyTorch's place
    order = xp.asarray([1, 2, 0], device=device)  # argsort of [3, 1, 2]
    assert xp.searchsorted(xp.asarray([3, 1, 2], device=device), 2, side=side, sorter=order).item() == \
        np.searchsorted([1, 2, 3], 2, side=side)


def test_empty_axis_reduces_nothing(device):
    x = xp.asarray([[1, 2], [3, 4]], dtype=xp.int8, device=device)
    assert xp.max(x, axis=()).tolist() == [[1, 2], [3, 4]]
    s = xp.sum(x, axis=())
    assert s.dtype == xp.int64 and s.tolist() == [[1, 2], [3, 4]]
    assert xp.all(x, axis=()).dtype == xp.bool
    assert xp.argmax(x, keepdims=True).shape == (1, 1)
    assert xp.count_nonzero(xp.asarray([[0, 1], [2, 0]], device=device), axis=1, keepdims=True).tolist() == \
        [[1], [1]]


def test_standard_errors(device):
    x = xp.ones((2, 1), device=device)
    with pytest.raises(ValueError, match="axis 0 has size 2, not 1"):
        xp.squeeze(x, axis=0)
    assert xp.squeeze(x, axis=1).shape == (2,)
    with pytest.raises(ValueError, match="cannot be reshaped without a copy"):
        xp.reshape(xp.ones((2, 3), device=device).mT, (6,), copy=False)
    with pytest.raises(IndexError, match="axis 3 is out of range"):
        xp.expand_dims(x, axis=3)
    with pytest.raises(ValueError, match="axis is required"):
        xp.cumulative_sum(x)
    with pytest.raises(NotImplementedError, match="tandem has no atan2 kernel yet"):
        if hasattr(tandem._C, "atan2"):
            raise NotImplementedError("tandem has no atan2 kernel yet")  # the kernel landed: nothing to refuse
        xp.atan2(x, x)


# ---- composed functions against NumPy ----
COMPOSED_UNARY = [
    ("tan", np.tan, (-1.5, 1.5)), ("sinh", np.sinh, (-5, 5)), ("cosh", np.cosh, (-5, 5)),
    ("asinh", np.arcsinh, (-1e3, 1e3)), ("acosh", np.arccosh, (1, 1e3)), ("atanh", np.arctanh, (-0.99, 0.99)),
    ("log2", np.log2, (1e-3, 1e3)), ("log10", np.log10, (1e-3, 1e3)),
]


@pytest.mark.parametrize("name,ref,bounds", COMPOSED_UNARY, ids=[c[0] for c in COMPOSED_UNARY])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_composed_unary_matches_numpy(device, name, ref, bounds, dtype):
    a = np.random.default_rng(1).uniform(*bounds, size=64).astype(dtype)
    got = getattr(xp, name)(xp.asarray(a.tolist(), dtype=getattr(xp, dtype), device=device))
    assert got.dtype == getattr(xp, dtype) and got.device == tandem.device(device)
    np.testing.assert_allclose(np.array(got.tolist()), ref(a.astype(np.float64)),
                               rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-6 if dtype == "float32" else 0)


def test_composed_unary_of_integers_is_float(device):
    assert xp.log2(xp.asarray([1, 8], device=device)).tolist() == [0.0, 3.0]
    assert xp.sinh(xp.asarray([0], device=device)).dtype == xp.float32


def test_asinh_acosh_huge_values_do_not_overflow(device):
    x = xp.asarray([1e300, -1e300], dtype=xp.float64, device=device)
    np.testing.assert_allclose(xp.asinh(x).tolist(), np.arcsinh([1e300, -1e300]), rtol=1e-14)
    np.testing.assert_allclose(xp.acosh(x[:1]).tolist(), np.arccosh([1e300]), rtol=1e-14)
    assert xp.hypot(xp.asarray([3e300], dtype=xp.float64, device=device), 4e300).item() == pytest.approx(5e300)


@pytest.mark.parametrize("name,ref", [("hypot", np.hypot), ("logaddexp", np.logaddexp), ("copysign", np.copysign)])
def test_composed_binary_matches_numpy(device, name, ref):
    g = np.random.default_rng(2)
    a, b = g.normal(0, 30, size=(4, 8)), g.normal(0, 30, size=8)
    got = getattr(xp, name)(xp.asarray(a.tolist(), dtype=xp.float64, device=device),
                            xp.asarray(b.tolist(), dtype=xp.float64, device=device))
    np.testing.assert_allclose(np.array(got.tolist()), ref(a, b), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_bitwise_shifts_match_numpy(device, dtype):
    bits = np.iinfo(dtype).bits
    lo = 0 if dtype == "uint8" else np.iinfo(dtype).min
    a = np.array([lo, -3 if lo else 3, 1, np.iinfo(dtype).max, 77], dtype=dtype)
    s = np.array([1, 2, bits - 1, bits, bits + 5], dtype=dtype)
    x, y = xp.asarray(a.tolist(), dtype=getattr(xp, dtype), device=device), \
        xp.asarray(s.tolist(), dtype=getattr(xp, dtype), device=device)
    left = np.where(s >= bits, 0, np.left_shift(a, np.minimum(s, bits - 1)))
    right = np.where(s >= bits, np.where(a < 0, -1, 0), np.right_shift(a, np.minimum(s, bits - 1)))
    assert xp.bitwise_left_shift(x, y).tolist() == left.astype(dtype).tolist()
    assert xp.bitwise_right_shift(x, y).tolist() == right.astype(dtype).tolist()


def test_bitwise_shifts_promote_zero_dim_arrays_fully(device):
    x = xp.asarray(-3783, dtype=xp.int32, device=device)
    s = xp.asarray([0, 3, 7], dtype=xp.uint8, device=device)
    r = xp.bitwise_right_shift(x, s)  # the standard promotes the 0-d int32 array: int32 (PyTorch's >> gives uint8)
    assert r.dtype == xp.int32 and r.tolist() == [-3783, -473, -30]
    assert xp.bitwise_left_shift(s, xp.asarray(1, dtype=xp.int16, device=device)).dtype == xp.int16
    assert (x >> s).dtype == xp.uint8  # the operator keeps PyTorch's promotion


def test_signbit_reads_the_sign_of_nan_and_zero(device):
    x = xp.asarray([-math.nan, math.nan, -0.0, 0.0, -math.inf, 2.0], device=device)
    assert xp.signbit(x).tolist() == [True, False, True, False, True, False]
    assert xp.signbit(xp.asarray([-2, 0, 3], device=device)).tolist() == [True, False, False]


def test_atan2_promotes_zero_dim_arrays_fully(device):
    r = xp.atan2(xp.asarray(1.0, dtype=xp.float64, device=device), xp.asarray([1.0, -1.0], device=device))
    assert r.dtype == xp.float64
    np.testing.assert_allclose(r.tolist(), [math.pi / 4, 3 * math.pi / 4], rtol=1e-15)
    assert list(inspect.signature(xp.atan2).parameters) == ["x1", "x2"]


def test_cumulative_prod(device):
    x = xp.asarray([[1, 2, 3], [4, 5, 6]], dtype=xp.int16, device=device)
    r = xp.cumulative_prod(x, axis=1, include_initial=True)
    assert r.dtype == xp.int64 and r.tolist() == [[1, 1, 2, 6], [1, 4, 20, 120]]
    assert xp.cumulative_prod(x, axis=0, dtype=xp.float64).tolist() == [[1, 2, 3], [4, 10, 18]]
    assert xp.cumulative_prod(xp.asarray([2.0, 0.5], device=device)).tolist() == [2.0, 1.0]
    with pytest.raises(ValueError, match="axis is required"):
        xp.cumulative_prod(x)


def test_to_device_and_complex(device):
    x = xp.asarray([1.5], device=device)
    assert x.to_device(device) is x
    moved = x.to_device("cpu")
    assert moved.device == tandem.device("cpu") and moved.tolist() == [1.5]
    assert list(inspect.signature(tandem.Tensor.to_device).parameters) == ["self", "device", "stream"]
    with pytest.raises(TypeError, match="stream must be a tandem.cuda.Stream"):
        x.to_device("cpu", stream=3)
    assert complex(x) == 1.5 + 0j and complex(xp.asarray(True, device=device)) == 1 + 0j
    assert complex(tandem.tensor([[7]], device=device)) == complex(torch.tensor([[7]]))
    with pytest.raises(ValueError, match="^only one element tensors can be converted to Python scalars$"):
        complex(xp.asarray([1.0, 2.0], device=device))


def test_clip_keeps_dtype_with_array_bounds(device):
    x = xp.asarray([1, 5, 9], dtype=xp.int16, device=device)
    lo = xp.asarray([2, 6, 0], dtype=xp.int16, device=device)
    r = xp.clip(x, lo, 7)
    assert r.dtype == xp.int16 and r.tolist() == [2, 6, 7]
    assert xp.clip(x, max=4).tolist() == [1, 4, 4] and xp.clip(x) is x


def test_manipulation_and_linalg(device):
    a = xp.reshape(xp.arange(24, dtype=xp.float64, device=device), (2, 3, 4))
    n = np.arange(24.0).reshape(2, 3, 4)
    assert xp.concat([a, a], axis=None).shape == (48,)
    assert xp.flip(a, axis=(0, 2)).tolist() == np.flip(n, (0, 2)).tolist()
    assert xp.permute_dims(a, (2, 0, 1)).tolist() == n.transpose(2, 0, 1).tolist()
    assert xp.roll(a, (1, -1), axis=(0, 2)).tolist() == np.roll(n, (1, -1), axis=(0, 2)).tolist()
    assert [u.shape for u in xp.unstack(a, axis=1)] == [(2, 4)] * 3
    assert xp.take(a, xp.asarray([-1, 0], device=device), axis=2).tolist() == n.take([-1, 0], axis=2).tolist()
    assert xp.repeat(xp.asarray([1, 2], device=device), 2).tolist() == [1, 1, 2, 2]
    assert xp.matrix_transpose(a).shape == (2, 4, 3)
    np.testing.assert_allclose(xp.vecdot(a, a[0]).tolist(), (n * n[0]).sum(-1))
    np.testing.assert_allclose(xp.tensordot(a, a, axes=([1, 2], [1, 2])).tolist(),
                               np.tensordot(n, n, axes=([1, 2], [1, 2])))
    c = xp.cumulative_sum(xp.asarray([1, 2, 3], device=device), include_initial=True)
    assert c.tolist() == [0, 1, 3, 6] and c.device == tandem.device(device)
    assert xp.sort(xp.asarray([3, 1, 2], device=device), descending=True).tolist() == [3, 2, 1]
    assert xp.astype(a, xp.int32).dtype == xp.int32 and xp.astype(a, xp.float64, copy=False) is a


def test_zero_dim_arrays_promote_fully(device):
    # PyTorch (and tandem's operators) treat a 0-d tensor like a scalar in promotion; the standard does not.
    big = xp.asarray(25258, device=device)
    small = xp.asarray([1, 2], dtype=xp.int16, device=device)
    assert xp.bitwise_or(big, small).dtype == xp.int64 and (big | small).dtype == xp.int16
    assert xp.add(xp.asarray(0.5, dtype=xp.float64, device=device), xp.ones(2, device=device)).dtype == xp.float64
    assert xp.equal(xp.asarray(300, device=device), xp.asarray([44], dtype=xp.uint8, device=device)).tolist() == [False]
    w = xp.where(xp.asarray([True, False], device=device), big, small)
    assert w.dtype == xp.int64 and w.tolist() == [25258, 2]


# ---- the standard's special cases where PyTorch differs: only the namespace's functions change ----

def test_floor_divide_with_infinities_follows_the_standard(device):
    inf, nan = math.inf, math.nan
    a = [inf, -inf, inf, -inf, -1.0, 1.0, 1.0, -1.0, inf, 7.5, -7.5, nan]
    b = [2.0, 2.0, -3.0, -3.0, inf, -inf, inf, -inf, inf, -2.0, 2.0, 1.0]
    r = xp.floor_divide(xp.asarray(a, device=device), xp.asarray(b, device=device))
    # the standard's floor(x1 / x2): an infinite x1 keeps its infinity; a finite x1 over an infinity is a signed 0
    want = [inf, -inf, -inf, inf, -0.0, -0.0, 0.0, 0.0, nan, -4.0, -4.0, nan]
    got = r.tolist()
    assert [math.copysign(1, g) for g in got[:8]] == [math.copysign(1, w) for w in want[:8]]
    np.testing.assert_array_equal(got, want)
    finite = np.array([7.5, -7.5, 3.0, -0.5])
    np.testing.assert_array_equal(xp.floor_divide(xp.asarray(finite, device=device), 2.0).tolist(),
                                  np.floor_divide(finite, 2.0))
    assert (xp.asarray([inf], device=device) // 2.0).tolist() != [inf]  # the operator keeps PyTorch's NaN
    ints = xp.floor_divide(xp.asarray([7, -7], dtype=xp.int16, device=device), 2)
    assert ints.dtype == xp.int16 and ints.tolist() == [3, -4]


def test_remainder_zero_takes_the_divisors_sign(device):
    a = np.array([-0.0, 0.0, 4.0, -4.0, 5.5, -5.5, -1.0, 3.0])
    b = np.array([1.0, -1.0, -2.0, 2.0, 2.0, 2.0, math.inf, -math.inf])
    got = xp.remainder(xp.asarray(a, device=device), xp.asarray(b, device=device))
    want = np.remainder(a, b)  # NumPy's remainder has the standard's signed zeros
    np.testing.assert_array_equal(got.tolist(), want)
    assert np.signbit(got.tolist()).tolist() == np.signbit(want).tolist()
    assert np.signbit((xp.asarray([-0.0], device=device) % 1.0).tolist()).tolist() == [True]  # operator: PyTorch's
    i = xp.remainder(xp.asarray([-7, 7], dtype=xp.int8, device=device), 3)
    assert i.dtype == xp.int8 and i.tolist() == [2, 1]


def test_sign_of_nan_is_nan(device):
    a = np.array([math.nan, -2.0, 0.0, -0.0, 3.0, math.inf])
    got = xp.sign(xp.asarray(a, device=device))
    np.testing.assert_array_equal(got.tolist(), np.sign(a))
    assert xp.sign(xp.asarray([-3, 0, 4], device=device)).tolist() == [-1, 0, 1]
    assert xp.asarray([math.nan], device=device).sign().tolist() == [0.0]  # the Tensor method keeps PyTorch's


def test_acosh_below_minus_one_is_nan(device):
    x = np.array([-5.0, -1.0, 0.5, 3.0])
    with np.errstate(invalid="ignore"):
        want = np.arccosh(x)
    np.testing.assert_allclose(xp.acosh(xp.asarray(x, device=device)).tolist(), want, rtol=1e-15)


# ---- promotion, broadcasting and axis conventions the standard asks of the namespace ----

def test_matrix_products_promote(device):
    a = np.arange(6).reshape(2, 3)
    b = np.arange(3)
    ta = xp.asarray(a, dtype=xp.int64, device=device)
    tb = xp.asarray(b, dtype=xp.uint8, device=device)
    for fn, ref in ((xp.matmul, np.matmul), (xp.linalg.matmul, np.matmul), (xp.vecdot, None),
                    (xp.linalg.vecdot, None)):
        r = fn(ta, tb)
        assert r.dtype == xp.int64 and r.device == tandem.device(device)
        assert r.tolist() == (a @ b).tolist()
    u8 = xp.asarray([200, 100], dtype=xp.uint8, device=device)
    v = xp.vecdot(u8, xp.asarray([2, 1], dtype=xp.uint8, device=device))
    assert v.dtype == xp.uint8 and v.item() == np.uint8(244)  # wraps in uint8, as NumPy's vecdot
    f = xp.tensordot(xp.asarray([1.0, 2.0], dtype=xp.float32, device=device),
                     xp.asarray([3.0, 4.0], dtype=xp.float64, device=device), axes=1)
    assert f.dtype == xp.float64 and f.item() == 11.0


def test_expand_dims_takes_axis_positionally(device):
    x = xp.ones((2, 3), device=device)
    assert xp.expand_dims(x, 1).shape == (2, 1, 3) and xp.expand_dims(x, axis=-1).shape == (2, 3, 1)


def test_take_along_axis_broadcasts_and_wraps(device):
    x = np.arange(12.0).reshape(3, 4)
    idx = np.array([[-1, 0, 2]])  # one row of indices for all three rows of x
    got = xp.take_along_axis(xp.asarray(x, device=device), xp.asarray(idx, device=device), axis=1)
    np.testing.assert_array_equal(got.tolist(), np.take_along_axis(x, idx, axis=1))
    col = np.array([[2], [-3]])  # one column of indices for all four columns of x
    got = xp.take_along_axis(xp.asarray(x, device=device), xp.asarray(col, device=device), axis=0)
    np.testing.assert_array_equal(got.tolist(), np.take_along_axis(x, col, axis=0))
    with pytest.raises(ValueError, match="x has 2 dimensions but indices has 1"):
        xp.take_along_axis(xp.asarray(x, device=device), xp.asarray([0], device=device), axis=0)


def test_prod_over_several_axes(device):
    n = np.arange(1.0, 25.0).reshape(2, 3, 4)
    a = xp.asarray(n, dtype=xp.float64, device=device)
    np.testing.assert_allclose(xp.prod(a, axis=(0, 2)).tolist(), n.prod(axis=(0, 2)))
    assert xp.prod(a, axis=(-1, 0), keepdims=True).shape == (1, 3, 1)
    i = xp.prod(xp.asarray([[1, 2], [3, 4]], dtype=xp.int8, device=device), axis=(0, 1))
    assert i.dtype == xp.int64 and i.item() == 24


def test_std_var_over_no_axes(device):
    n = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])
    a = xp.asarray(n, dtype=xp.float64, device=device)
    for fn, ref in ((xp.std, np.std), (xp.var, np.var)):
        r = fn(a, axis=(), correction=0.5, keepdims=True)
        assert r.shape == (2, 3)
        np.testing.assert_array_equal(r.tolist(), ref(n[..., None], axis=-1, ddof=0.5))


# ---- the linalg extension ----

LINALG_NAMES = ("cholesky cross det diagonal eigh eigvalsh inv matmul matrix_norm matrix_power matrix_rank "
                "matrix_transpose outer pinv qr slogdet solve svd svdvals tensordot trace vecdot vector_norm")

LINALG_SIGNATURES = {
    "cholesky": "(x, /, *, upper=False)",
    "cross": "(x1, x2, /, *, axis=-1)",
    "diagonal": "(x, /, *, offset=0)",
    "matrix_norm": "(x, /, *, keepdims=False, ord='fro')",
    "matrix_power": "(x, n, /)",
    "matrix_rank": "(x, /, *, rtol=None)",
    "pinv": "(x, /, *, rtol=None)",
    "qr": "(x, /, *, mode='reduced')",
    "solve": "(x1, x2, /)",
    "svd": "(x, /, *, full_matrices=True)",
    "trace": "(x, /, *, offset=0, dtype=None)",
    "vecdot": "(x1, x2, /, *, axis=-1)",
    "vector_norm": "(x, /, *, axis=None, keepdims=False, ord=2)",
}


def test_linalg_extension_names_and_signatures():
    assert [n for n in LINALG_NAMES.split() if not callable(getattr(xp.linalg, n, None))] == []
    for name, sig in LINALG_SIGNATURES.items():
        assert str(inspect.signature(getattr(xp.linalg, name))) == sig, name
    assert xp.linalg.matmul is xp.matmul and xp.linalg.vecdot is xp.vecdot  # the standard's aliases


def _spd(rng, n, batch=()):
    a = rng.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linalg_matches_numpy(device, dtype):
    rng = np.random.default_rng(3)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)
    A = _spd(rng, 4, (2,)).astype(dtype)
    B = rng.standard_normal((2, 4, 3)).astype(dtype)
    M = rng.standard_normal((2, 5, 3)).astype(dtype)
    t = lambda a: xp.asarray(a, device=device)  # noqa: E731
    L = xp.linalg

    def same(got, want):
        assert got.device == tandem.device(device) and got.dtype == getattr(xp, dtype)
        np.testing.assert_allclose(np.asarray(got.tolist()), want, **tol)

    same(L.cholesky(t(A)), np.linalg.cholesky(A))
    same(L.cholesky(t(A), upper=True), np.swapaxes(np.linalg.cholesky(A), -1, -2))
    same(L.det(t(A)), np.linalg.det(A))
    same(L.inv(t(A)), np.linalg.inv(A))
    same(L.solve(t(A), t(B)), np.linalg.solve(A, B))
    sign, logabs = L.slogdet(t(A))
    same(sign, np.linalg.slogdet(A).sign)
    same(logabs, np.linalg.slogdet(A).logabsdet)
    same(L.eigvalsh(t(A)), np.linalg.eigvalsh(A))
    w, v = L.eigh(t(A))
    same(w, np.linalg.eigh(A).eigenvalues)
    same(xp.matmul(v * w[..., None, :], xp.matrix_transpose(v)), A)
    same(L.svdvals(t(M)), np.linalg.svd(M, compute_uv=False))
    U, S, Vh = L.svd(t(M), full_matrices=False)
    assert U.shape == (2, 5, 3) and L.svd(t(M)).U.shape == (2, 5, 5)
    same(xp.matmul(U * S[..., None, :], Vh), M)
    Q, R = L.qr(t(M))
    same(xp.matmul(Q, R), M)
    assert L.qr(t(M), mode="complete").Q.shape == (2, 5, 5)
    same(L.pinv(t(M)), np.linalg.pinv(M))
    assert L.matrix_rank(t(M)).tolist() == np.linalg.matrix_rank(M).tolist()
    same(L.matrix_power(t(A), 3), np.linalg.matrix_power(A, 3))
    same(L.matrix_power(t(A), -1), np.linalg.inv(A))
    same(L.matrix_norm(t(M)), np.linalg.norm(M, "fro", axis=(-2, -1)))
    same(L.matrix_norm(t(M), ord=1, keepdims=True), np.linalg.norm(M, 1, axis=(-2, -1), keepdims=True))
    same(L.matrix_norm(t(M), ord="nuc"), np.linalg.norm(M, "nuc", axis=(-2, -1)))
    same(L.vector_norm(t(M)), np.linalg.norm(M.reshape(-1)))
    same(L.vector_norm(t(M), axis=(0, 2), keepdims=True, ord=3), (np.abs(M) ** 3).sum((0, 2), keepdims=True) ** (1 / 3))
    assert L.vector_norm(t(M), keepdims=True).shape == (1, 1, 1)
    same(L.vector_norm(t(M), axis=1, ord=math.inf), np.abs(M).max(1))
    same(L.diagonal(t(M), offset=1), np.diagonal(M, 1, -2, -1))
    same(L.trace(t(M), offset=-1), np.trace(M, -1, -2, -1))
    same(L.outer(t(M[0, 0]), t(M[0, 1])), np.outer(M[0, 0], M[0, 1]))
    same(L.cross(t(M[:, :2]), t(M[0, 4])), np.cross(M[:, :2], M[0, 4]))  # broadcast, as the standard asks
    same(L.tensordot(t(M), t(M), axes=([1, 2], [1, 2])), np.tensordot(M, M, axes=([1, 2], [1, 2])))


def test_linalg_argument_adaptations(device):
    rng = np.random.default_rng(4)
    A = _spd(rng, 3, (3,))
    # a 3x3 right-hand side beside three 3x3 matrices is one matrix to the standard (and NumPy 2), broadcast over
    # the stack; PyTorch reads it as a batch of three vectors since its shape is A.shape[:-1]
    b = rng.standard_normal((3, 3))
    got = xp.linalg.solve(xp.asarray(A, device=device), xp.asarray(b, device=device))
    assert got.shape == (3, 3, 3)
    np.testing.assert_allclose(got.tolist(), np.linalg.solve(A, b), rtol=1e-10)
    one = xp.linalg.solve(xp.asarray(A[0], device=device), xp.asarray(b[0], device=device))  # 1-d: a vector
    np.testing.assert_allclose(one.tolist(), np.linalg.solve(A[0], b[0]), rtol=1e-10)
    # an array rtol gives one tolerance per matrix
    M = np.stack([np.diag([1.0, 1e-3, 1e-8]), np.diag([1.0, 0.5, 0.1])])
    rtol = xp.asarray([1e-2, 1e-9], dtype=xp.float64, device=device)
    assert xp.linalg.matrix_rank(xp.asarray(M, device=device), rtol=rtol).tolist() == [1, 3]
    np.testing.assert_allclose(xp.linalg.pinv(xp.asarray(M, device=device), rtol=rtol).tolist(),
                               np.linalg.pinv(M, rtol=np.array([1e-2, 1e-9])), rtol=1e-10)
    # trace: integers narrower than int64 sum in int64; an explicit dtype wins
    i = xp.asarray([[100, 1], [2, 100]], dtype=xp.int8, device=device)
    assert xp.linalg.trace(i).dtype == xp.int64 and xp.linalg.trace(i).item() == 200
    assert xp.linalg.trace(i, dtype=xp.float64).dtype == xp.float64
    # mixed dtypes promote
    o = xp.linalg.outer(xp.asarray([1, 2], dtype=xp.int8, device=device),
                        xp.asarray([1.5], dtype=xp.float64, device=device))
    assert o.dtype == xp.float64 and o.tolist() == [[1.5], [3.0]]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_unique_complex_matches_numpy(device, dtype):
    """Complex unique in NumPy's order (real part, then imaginary part); tandem.unique refuses complex as
    PyTorch does."""
    g = np.random.default_rng(1)
    a = (g.integers(-2, 3, size=(4, 6)) + 1j * g.integers(-2, 3, size=(4, 6))).astype(dtype)
    a[0, 0], a[1, 1] = -0.0 + 1j, 0.0 + 1j  # -0.0 and 0.0 are one value
    x = xp.asarray(a.tolist(), dtype=getattr(xp, dtype), device=device)
    values, indices, inverse, counts = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    r = xp.unique_all(x)
    assert r.values.dtype == x.dtype and r.values.device == tandem.device(device)
    assert r.values.tolist() == values.tolist() and r.counts.tolist() == counts.tolist()
    assert r.indices.tolist() == indices.tolist()
    assert r.inverse_indices.tolist() == inverse.reshape(a.shape).tolist()
    assert xp.unique_inverse(x).inverse_indices.tolist() == inverse.reshape(a.shape).tolist()
    assert xp.unique_counts(x).counts.tolist() == counts.tolist()
    assert xp.unique_values(x).tolist() == values.tolist()
    with pytest.raises(NotImplementedError, match="\"unique\" not implemented for 'Complex"):
        tandem.unique(x)


def test_unique_complex_nans_and_empty(device):
    nan = math.nan
    x = xp.asarray([complex(nan, 0), 1 + 1j, complex(1, nan), 1 + 1j, complex(nan, nan), 1 - 1j], device=device)
    r = xp.unique_all(x)
    v = r.values.tolist()
    # NumPy's order: R + Rj < R + nanj < nan + Rj < nan + nanj; every NaN its own value
    assert v[:2] == [1 - 1j, 1 + 1j] and len(v) == 5 and r.counts.tolist() == [1, 2, 1, 1, 1]
    assert v[2].real == 1 and math.isnan(v[2].imag) and math.isnan(v[3].real) and v[3].imag == 0
    assert r.indices.tolist() == [5, 1, 2, 0, 4]
    assert r.inverse_indices.tolist() == [3, 1, 2, 1, 4, 0]
    e = xp.unique_all(xp.asarray([], dtype=xp.complex64, device=device))
    assert e.values.shape == (0,) and e.counts.shape == (0,) and e.indices.shape == (0,)
    assert e.inverse_indices.shape == (0,) and e.values.dtype == xp.complex64
