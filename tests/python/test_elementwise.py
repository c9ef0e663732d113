"""Elementwise ops against PyTorch: values, dtypes, shapes, promotion, broadcasting, in-place rules, errors."""
import math
import zlib

import pytest
import torch

import tandem
from oracle import DTYPE_NAMES, FLOAT_NAMES, INT_NAMES, assert_same, from_torch, random_torch, tdtype, torch_dtype

# The op list itself (src/kernels/op_list.def through tandem._C), by dtype rule: a new op is tested here
# without editing a table.
_UNARY_BY_RULE = {}
for _name, _rule, _node in tandem._C._unary_ops():
    _UNARY_BY_RULE.setdefault(_rule, []).append(_name)
UNARY_SAME = _UNARY_BY_RULE.get("Same", [])
UNARY_NO_BOOL = _UNARY_BY_RULE.get("NoBool", [])
UNARY_FLOAT = _UNARY_BY_RULE.get("Float", []) + _UNARY_BY_RULE.get("FloatOnly", [])
PREDICATES = _UNARY_BY_RULE.get("Predicate", [])
UNARY_INTEGRAL = _UNARY_BY_RULE.get("Integral", [])

# Ops that PyTorch has only in torch.nn.functional, for floats (tandem promotes integers as for sigmoid).
_TORCH_FLOAT_ONLY = {
    "silu": lambda x: torch.nn.functional.silu(x),
    "gelu": lambda x: torch.nn.functional.gelu(x),
    "gelu_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
}


def torch_fn(name):
    """torch.name, or torch.special.name for the functions PyTorch has only there (i0e, erfcx, zeta, ...)."""
    return getattr(torch, name) if hasattr(torch, name) else getattr(torch.special, name)


# PyTorch's CPU kernels of these have no float16/bfloat16 version ("not implemented for 'Half'"); tandem's compute
# them in float32 or float64 and round once, as for its other 16-bit special functions.
TORCH_CPU_LACKS_16BIT = {"erfcx", "ndtri", "log_ndtr", "zeta"}


# PyTorch 2.15's float64 J0/J1/Y0/Y1 and Ai drop the leading 1 of Cephes's denominators: up to ~1e-6 (Ai ~3e-6)
# off on these inputs; tandem's are exact to double rounding and checked against mpmath in test_special_bessel.py.
TORCH_FLOAT64_INACCURATE = {"bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "airy_ai"}


def torch_unary(name, x):
    if name in _TORCH_FLOAT_ONLY:
        return _TORCH_FLOAT_ONLY[name](x if x.is_floating_point() else x.float())
    return torch_fn(name)(x)


def tolerance(name):
    return {"float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2)}.get(name, (1.3e-6, 1e-5) if name == "float32" else (1e-10, 1e-12))


@pytest.mark.parametrize("op", UNARY_SAME + UNARY_NO_BOOL + UNARY_FLOAT + PREDICATES + UNARY_INTEGRAL)
@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_unary_matches_torch(op, name, device):
    gen = torch.Generator().manual_seed(zlib.crc32(f"{op}{name}".encode()))
    x = random_torch((3, 4), name, gen)
    if op in ("log", "sqrt", "rsqrt", "log1p") and name not in ("bool", "uint8"):
        x = x.abs() if name != "int8" else x.clamp(min=0)
    try:
        expected = torch_unary(op, x)
    except RuntimeError:
        if op in TORCH_CPU_LACKS_16BIT and name in ("float16", "bfloat16"):
            expected = torch_unary(op, x.float()).to(x.dtype)
            assert_same(getattr(tandem, op)(from_torch(x, device)), expected, rtol=1e-2, atol=1e-3)
            return
        with pytest.raises(RuntimeError):
            getattr(tandem, op)(from_torch(x, device))
        return
    got = getattr(tandem, op)(from_torch(x, device))
    rtol, atol = tolerance(str(expected.dtype).split(".")[-1])
    if op in TORCH_FLOAT64_INACCURATE and expected.dtype == torch.float64:
        rtol, atol = 1e-5, 5e-6
    assert_same(got, expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_matches_torch(approximate):
    x = torch.linspace(-6, 6, 101, dtype=torch.float64)
    expected = torch.nn.functional.gelu(x, approximate=approximate)
    got = tandem.gelu(from_torch(x)) if approximate == "none" else tandem.gelu_tanh(from_torch(x))
    assert_same(got, expected)


BINARY = [n for n, rule, _ in tandem._C._binary_ops() if rule != "Bitwise" and n != "pow"]
BITWISE = [n for n, rule, _ in tandem._C._binary_ops() if rule == "Bitwise"]


FLOAT_FOR_INTEGERS = {"hypot", "logaddexp", "logaddexp2"}


def call_torch(op, a, b):
    return torch_fn(op)(a, b)


@pytest.mark.parametrize("op", BINARY + BITWISE + ["pow"])
@pytest.mark.parametrize("na,nb", [(a, b) for a in DTYPE_NAMES for b in DTYPE_NAMES if a <= b or a == "bool"])
def test_binary_promotion_and_values_match_torch(op, na, nb, device):
    gen = torch.Generator().manual_seed(7)
    a = random_torch((2, 3), na, gen)
    b = random_torch((3,), nb, gen)
    if op in ("floor_divide", "remainder", "div"):
        b = torch.where(b == 0, torch.ones_like(b), b)
    if op == "pow":
        b = b.abs() if nb not in ("bool", "uint8") else b
    try:
        expected = call_torch(op, a, b)
    except RuntimeError:
        if op in FLOAT_FOR_INTEGERS and not (a.is_floating_point() or b.is_floating_point()):
            # PyTorch has no integer kernel for these ("not implemented for 'Long'"); tandem computes them in the
            # default float dtype, as for atan2 and as NumPy does (docs/compat.md)
            expected = call_torch(op, a.float(), b.float())
        elif op in TORCH_CPU_LACKS_16BIT and torch.promote_types(a.dtype, b.dtype) in (torch.float16, torch.bfloat16):
            dtype = torch.promote_types(a.dtype, b.dtype)
            expected = call_torch(op, a.to(torch.float32), b.to(torch.float32)).to(dtype)
        else:
            with pytest.raises(RuntimeError):
                getattr(tandem, op)(from_torch(a, device), from_torch(b, device))
            return
    got = getattr(tandem, op)(from_torch(a, device), from_torch(b, device))
    rtol, atol = tolerance(str(expected.dtype).split(".")[-1])
    if op == "pow" and not expected.dtype.is_floating_point:
        # integer overflow wraps identically in both, compare exactly
        rtol = atol = None
    assert_same(got, expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("scalar", [2, -3, 2.5, True, 0.0])
@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow", "maximum", "eq", "lt"])
def test_tensor_scalar_weak_promotion(op, name, scalar, device):
    gen = torch.Generator().manual_seed(3)
    a = random_torch((5,), name, gen, low=1, high=4)
    tscalar = torch.tensor(scalar) if op in ("maximum",) else scalar
    try:
        expected = getattr(torch, op)(a, tscalar)
    except (RuntimeError, TypeError):
        with pytest.raises((RuntimeError, TypeError)):
            getattr(tandem, op)(from_torch(a, device), tandem.tensor(scalar) if op == "maximum" else scalar)
        return
    got = getattr(tandem, op)(from_torch(a, device), tandem.tensor(scalar) if op == "maximum" else scalar)
    rtol, atol = tolerance(str(expected.dtype).split(".")[-1])
    assert_same(got, expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("expr", [
    lambda m, a: a + 1, lambda m, a: 1 + a, lambda m, a: a - 2.5, lambda m, a: 2.5 - a,
    lambda m, a: a * 3, lambda m, a: 3 * a, lambda m, a: a / 4, lambda m, a: 4 / (a + 10),
    lambda m, a: a // 3, lambda m, a: 7 // (a + 10), lambda m, a: a % 3, lambda m, a: 7 % (a + 10),
    lambda m, a: a ** 2, lambda m, a: 2 ** a, lambda m, a: -a, lambda m, a: abs(a),
    lambda m, a: a > 1, lambda m, a: 1 < a, lambda m, a: a == 2, lambda m, a: a != 2,
])
@pytest.mark.parametrize("name", ["int64", "float32", "int32", "float64"])
def test_operators_and_reflected_operators(expr, name, device):
    gen = torch.Generator().manual_seed(11)
    a = random_torch((4, 3), name, gen, low=0, high=6)
    assert_same(expr(tandem, from_torch(a, device)), expr(torch, a))


def test_broadcasting_noncontiguous_and_zero_dim(device):
    gen = torch.Generator().manual_seed(5)
    a = torch.randn(4, 1, 3, generator=gen)
    b = torch.randn(3, 5, generator=gen).t()  # (5, 3), non-contiguous
    assert_same(tandem.add(from_torch(a, device), from_torch(b, device).t().t()), a + b)
    ta = from_torch(torch.randn(3, 5, generator=gen), device)
    tt = ta.t()
    assert not tt.is_contiguous()
    assert_same(tt * 2, torch.tensor(ta.tolist()).t() * 2)
    z = tandem.tensor(2.0)
    assert z.dim() == 0
    assert_same(z * from_torch(a, device), 2.0 * a)
    assert_same(tandem.tensor([]) + 1, torch.tensor([]) + 1)
    e = tandem.zeros(0, 3) + tandem.ones(3)
    assert tuple(e.shape) == (0, 3)


def test_zero_dim_tensor_does_not_promote_within_category():
    a = tandem.ones(3, dtype=tandem.int32)
    assert (a + tandem.tensor(5)).dtype is tandem.int32  # 0-dim int64 does not widen
    assert (a + tandem.tensor(5.0)).dtype is tandem.float32  # but a higher category lifts
    h = tandem.ones(3, dtype=tandem.float16)
    assert (h + tandem.tensor(1.0, dtype=tandem.float64)).dtype is tandem.float16
    assert (h + 1e10).dtype is tandem.float16


@pytest.mark.parametrize("na", DTYPE_NAMES)
@pytest.mark.parametrize("nb", DTYPE_NAMES)
def test_promote_types_and_result_type_match_torch(na, nb):
    assert repr(tandem.promote_types(tdtype(na), tdtype(nb))) == repr(
        torch.promote_types(torch_dtype(na), torch_dtype(nb))).replace("torch.", "tandem.")
    a = tandem.zeros(2, dtype=tdtype(na))
    for scalar in (1, 1.5, True):
        expected = torch.result_type(torch.zeros(2, dtype=torch_dtype(na)), scalar)
        assert repr(tandem.result_type(a, scalar)) == repr(expected).replace("torch.", "tandem.")
    z = tandem.zeros((), dtype=tdtype(nb))
    expected = torch.result_type(torch.zeros(2, dtype=torch_dtype(na)), torch.zeros((), dtype=torch_dtype(nb)))
    assert repr(tandem.result_type(a, z)) == repr(expected).replace("torch.", "tandem.")


def test_default_dtype_controls_python_floats():
    assert tandem.get_default_dtype() is tandem.float32
    tandem.set_default_dtype(tandem.float64)
    try:
        assert tandem.tensor([1.0]).dtype is tandem.float64
        assert (tandem.tensor([1]) / 2).dtype is tandem.float64
    finally:
        tandem.set_default_dtype(tandem.float32)
    with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
        tandem.set_default_dtype(tandem.int64)


def test_inplace_ops_write_through_and_bump_version():
    a = tandem.ones(2, 3)
    v = a._version
    r = a.add_(2)
    assert r is not None and a.tolist() == [[3.0] * 3] * 2
    assert a._version > v
    a.mul_(tandem.tensor([1.0, 2.0, 3.0]))
    assert a.tolist() == [[3.0, 6.0, 9.0]] * 2
    b = a
    b += 1
    assert a.tolist() == [[4.0, 7.0, 10.0]] * 2
    i = tandem.tensor([1, 2, 3])
    i += 2
    assert i.dtype is tandem.int64 and i.tolist() == [3, 4, 5]
    a.exp_()
    assert abs(a.tolist()[0][0] - math.exp(4.0)) < 1e-3
    a.clamp_(max=5.0)
    assert a.tolist()[0] == [5.0, 5.0, 5.0]


ERRORS = [
    (lambda: tandem.ones(2, 3) + tandem.ones(4), RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    (lambda: tandem.tensor([1, 2]).add_(1.5), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    (lambda: tandem.tensor([True]).add_(1), RuntimeError,
     "result type Long can't be cast to the desired output type Bool"),
    (lambda: tandem.ones(3).add_(tandem.ones(2, 3)), RuntimeError,
     "output with shape [3] doesn't match the broadcast shape [2, 3]"),
    (lambda: -tandem.tensor([True]), RuntimeError,
     "Negation, the `-` operator, on a bool tensor is not supported."),
    (lambda: tandem.tensor([True]) - tandem.tensor([False]), RuntimeError,
     "Subtraction, the `-` operator, with two bool tensors is not supported."),
    (lambda: tandem.tensor([1, 2]) // tandem.tensor([1, 0]), RuntimeError, "ZeroDivisionError"),
    (lambda: tandem.tensor([1, 2]) % 0, RuntimeError, "ZeroDivisionError"),
    (lambda: tandem.tensor([2, 3]) ** -1, RuntimeError, "Integers to negative integer powers are not allowed."),
    (lambda: tandem.ones(2) & tandem.ones(2), RuntimeError, "\"bitwise_and_cpu\" not implemented for 'Float'"),
    (lambda: tandem.add(tandem.ones(2), "x"), TypeError,
     "add(): argument 'other' (position 2) must be Tensor, not str"),
    (lambda: tandem.ones(2).expand(2, 2).add_(1), RuntimeError,
     "unsupported operation: more than one element of the written-to tensor refers to a single memory location."),
    (lambda: tandem.clamp(tandem.ones(2)), RuntimeError, "torch.clamp: At least one of 'min' or 'max' must not be None"),
    (lambda: tandem.where(tandem.ones(2), tandem.ones(2), tandem.ones(2)), RuntimeError,
     "where expected condition to be a boolean tensor"),
]


@pytest.mark.parametrize("fn,exc,first_line", ERRORS)
def test_error_table(fn, exc, first_line):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value).splitlines()[0].startswith(first_line)
    # every tandem error with a PyTorch first line also names a fix
    if exc is RuntimeError and "hint:" not in str(info.value):
        assert first_line.startswith(("torch.clamp", "Negation", "Subtraction", "unsupported operation",
                                      "Integers", "result type"))


def test_where_and_clamp_match_torch(device):
    gen = torch.Generator().manual_seed(2)
    x = torch.randn(3, 4, generator=gen)
    y = torch.randn(4, generator=gen)
    c = x > 0
    assert_same(tandem.where(from_torch(c, device), from_torch(x, device), from_torch(y, device)), torch.where(c, x, y))
    assert_same(tandem.where(from_torch(c, device), from_torch(x, device), 0.0), torch.where(c, x, 0.0))
    assert_same(tandem.clamp(from_torch(x, device), -0.5, 0.5), torch.clamp(x, -0.5, 0.5))
    assert_same(tandem.clamp(from_torch(x, device), min=0.1), torch.clamp(x, min=0.1))
    i = torch.arange(-5, 5)
    assert_same(tandem.clamp(from_torch(i, device), -2, 3), torch.clamp(i, -2, 3))
    assert_same(tandem.clamp(from_torch(i, device), -2.5, 3), torch.clamp(i, -2.5, 3))
    assert_same(tandem.clamp(from_torch(x, device), from_torch(y, device), None), torch.clamp(x, y, None))
    # min > max: every result is max (min(max(x, lo), hi)); one-sided integer bounds; long rows (vector loop)
    assert_same(tandem.clamp(from_torch(x, device), 0.5, -0.5), torch.clamp(x, 0.5, -0.5))
    assert_same(tandem.clamp(from_torch(i, device), max=2), torch.clamp(i, max=2))
    big = torch.randn(1037, generator=gen) * 3
    big[::7] = float("nan")
    assert_same(tandem.clamp(from_torch(big, device), -1.0, 2.0), torch.clamp(big, -1.0, 2.0))
    assert_same(tandem.clamp(from_torch(big, device), max=0.25), torch.clamp(big, max=0.25))


def test_nan_propagation(device):
    x = torch.tensor([float("nan"), 1.0, -2.0])
    y = torch.tensor([0.0, float("nan"), 3.0])
    assert_same(tandem.maximum(from_torch(x, device), from_torch(y, device)), torch.maximum(x, y))
    assert_same(tandem.minimum(from_torch(x, device), from_torch(y, device)), torch.minimum(x, y))
    assert_same(tandem.relu(from_torch(x, device)), torch.relu(x))
    assert_same(tandem.clamp(from_torch(x, device), 0, 0.5), torch.clamp(x, 0, 0.5))
    assert_same(tandem.sign(from_torch(x, device)), torch.sign(x))


def test_float_floor_divide_and_remainder_signs_match_python(device):
    a = torch.tensor([7.0, -7.0, 7.0, -7.0, 0.5, -0.0])
    b = torch.tensor([2.0, 2.0, -2.0, -2.0, 0.0, 3.0])
    assert_same(tandem.floor_divide(from_torch(a, device), from_torch(b, device)), torch.floor_divide(a, b))
    assert_same(tandem.remainder(from_torch(a, device), from_torch(b, device)), torch.remainder(a, b))
    ia = torch.tensor([7, -7, 7, -7])
    ib = torch.tensor([2, 2, -2, -2])
    assert_same(from_torch(ia, device) // from_torch(ib, device), ia // ib)
    assert_same(from_torch(ia, device) % from_torch(ib, device), ia % ib)


def test_inplace_methods_return_the_same_object_like_pytorch(device):
    # `x.add_(1) is x` in PyTorch, and `x += 1` keeps x's identity: tensors hash by identity, so a tensor stays
    # a dict key across in-place updates.
    x = tandem.ones(4, device=device)
    idx = tandem.tensor([0], device=device)
    calls = [
        lambda: x.add_(1), lambda: x.mul_(2), lambda: x.relu_(), lambda: x.exp_(), lambda: x.clamp_(0, 10),
        lambda: x.copy_(tandem.ones(4)), lambda: x.fill_(2), lambda: x.zero_(), lambda: x.uniform_(),
        lambda: x.normal_(), lambda: x.bernoulli_(0.5), lambda: x.masked_fill_(x > 0.5, 1.0),
        lambda: x.index_fill_(0, idx, 3.0), lambda: x.scatter_(0, idx, 4.0), lambda: x.index_add_(0, idx, x[:1]),
        lambda: x.index_put_((idx,), tandem.tensor(5.0, device=device)), lambda: x.requires_grad_(False),
    ]
    for call in calls:
        assert call() is x
    assert x.tolist()[0] == 5.0
    table = {x: "x"}
    y = x
    x += 1
    x *= 2
    assert x is y and table[x] == "x"
    p = tandem.nn.Parameter(tandem.zeros(2))
    with tandem.no_grad():
        assert p.add_(1) is p and type(p.add_(1)) is tandem.nn.Parameter
    with pytest.raises(TypeError, match=r"add_\(\): argument 'other' \(position 1\) must be Tensor, not str"):
        x.add_("a")
