"""Bitwise and integer arithmetic as a matrix, beyond integer_arith_edges.py, binary_promotion.py and
scalar_edges.py (one case per edge there): bitwise_and/or/xor (functions, operators, in place) on bool, uint8,
int8, int16, int32 and int64 tensors crossed with one list of second operands (the same dtype, int64, bool, float,
0-d tensors, Python ints inside, below and past the dtype's range and past int64/uint64, Python bools and floats);
shifts (<<, >>, bitwise_left_shift/right_shift, in place, a scalar shifted by a tensor) by negative counts, counts
at and past the bit width and huge ones; bitwise_not/~, abs and neg of every dtype's minimum; gcd/lcm with zeros,
negatives, the minimum, mixed dtypes and scalars; floor_divide, remainder, fmod, div with rounding_mode=None/
'trunc'/'floor' crossed over every sign of numerator and denominator (a table of all pairs), by zero tensors and
Python zeros, by Python ints past the dtype, by ints that wrap to zero in the dtype and by floats. int32/int64
MIN // -1 and lcm(MIN, 5) are left out: PyTorch's CPU kernels die with SIGFPE there (integer_arith_edges.py keeps
the small dtypes' forms)."""
import operator

from . import T

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64")
BITS = {"bool": 1, "uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64}
MINS = {"bool": False, "uint8": 0, "int8": -128, "int16": -32768, "int32": -2 ** 31, "int64": -2 ** 63}
MAXS = {"bool": True, "uint8": 255, "int8": 127, "int16": 32767, "int32": 2 ** 31 - 1, "int64": 2 ** 63 - 1}


def vals(L, d, dt):
    """Each dtype's edge values: its minimum and maximum, -1 (or 1), 0 and a small value."""
    if dt == "bool":
        return T(L, [True, False, True], d, dt)
    return T(L, [MINS[dt], MAXS[dt], -1 if MINS[dt] else 1, 0, 5], d, dt)


SECOND = {
    "same": lambda L, d, dt: vals(L, d, dt).flip(0),
    "int64": lambda L, d, dt: T(L, [3] * len(vals(L, d, dt)), d, "int64"),
    "bool": lambda L, d, dt: T(L, [True, False, True, False, True][:len(vals(L, d, dt))], d, "bool"),
    "float": lambda L, d, dt: T(L, [1.0] * len(vals(L, d, dt)), d, "float32"),
    "0d_int64": lambda L, d, dt: T(L, 6, d, "int64"),
    "0d_float": lambda L, d, dt: T(L, 1.5, d, "float32"),
    "py_small": lambda L, d, dt: 3,
    "py_negative": lambda L, d, dt: -1,
    "py_past_dtype": lambda L, d, dt: 300,
    "py_below_dtype": lambda L, d, dt: -300,
    "py_past_int64": lambda L, d, dt: 2 ** 63,
    "py_past_uint64": lambda L, d, dt: 2 ** 64,
    "py_bool": lambda L, d, dt: True,
    "py_float": lambda L, d, dt: 1.5,
}
BITWISE = {
    "and": lambda L, a, b: L.bitwise_and(a, b),
    "or": lambda L, a, b: L.bitwise_or(a, b),
    "xor": lambda L, a, b: L.bitwise_xor(a, b),
    "op_and": lambda L, a, b: a & b,
    "op_ror": lambda L, a, b: b | a,
    "op_xor": lambda L, a, b: operator.xor(a, b),
    "iand": lambda L, a, b: operator.iand(a, b),
    "method_or_": lambda L, a, b: a.bitwise_or_(b),
}

CASES = {}
for _dt in DTYPES:
    for _o, _op in BITWISE.items():
        for _s, _second in SECOND.items():
            CASES[f"bitwise/{_o}/{_dt}/{_s}"] = lambda L, d, op=_op, dt=_dt, s=_second: op(L, vals(L, d, dt),
                                                                                         s(L, d, dt))

_COUNTS = {
    "tensor_mixed": lambda L, d, dt: T(L, [-1, 0, 1, BITS[dt] - 1 if dt != "bool" else 1][:3] + [
        min(BITS[dt], MAXS[dt]), min(BITS[dt] + 1, MAXS[dt])], d, dt),
    "tensor_int64_huge": lambda L, d, dt: T(L, [64, 100, -64, 2 ** 40, -(2 ** 40)], d, "int64"),
    "py_negative": lambda L, d, dt: -1,
    "py_zero": lambda L, d, dt: 0,
    "py_width": lambda L, d, dt: BITS[dt],
    "py_64": lambda L, d, dt: 64,
    "py_huge": lambda L, d, dt: 2 ** 40,
    "py_past_int64": lambda L, d, dt: 2 ** 63,
    "py_float": lambda L, d, dt: 1.0,
    "py_bool": lambda L, d, dt: True,
}
SHIFTS = {
    "lshift": lambda L, a, b: a << b,
    "rshift": lambda L, a, b: a >> b,
    "left_shift": lambda L, a, b: L.bitwise_left_shift(a, b),
    "right_shift": lambda L, a, b: L.bitwise_right_shift(a, b),
    "ilshift": lambda L, a, b: operator.ilshift(a, b),
    "right_shift_": lambda L, a, b: a.bitwise_right_shift_(b),
}
for _dt in DTYPES:
    for _o, _op in SHIFTS.items():
        for _c, _count in _COUNTS.items():
            CASES[f"shift/{_o}/{_dt}/{_c}"] = lambda L, d, op=_op, dt=_dt, c=_count: op(L, vals(L, d, dt)[:5],
                                                                                      c(L, d, dt))
    CASES[f"shift/scalar_lshift_tensor/{_dt}"] = lambda L, d, dt=_dt: 1 << vals(L, d, dt)
    CASES[f"shift/scalar_rshift_tensor/{_dt}"] = lambda L, d, dt=_dt: -1024 >> vals(L, d, dt)
    CASES[f"shift/left_shift_scalar_first/{_dt}"] = lambda L, d, dt=_dt: L.bitwise_left_shift(3, vals(L, d, dt))

UNARY = {
    "bitwise_not": lambda L, a: L.bitwise_not(a),
    "invert": lambda L, a: ~a,
    "abs": lambda L, a: L.abs(a),
    "abs_": lambda L, a: a.abs_(),
    "neg": lambda L, a: L.neg(a),
    "op_neg": lambda L, a: -a,
    "neg_": lambda L, a: a.neg_(),
    "sign": lambda L, a: a.sign(),
    "sgn": lambda L, a: a.sgn(),
    "square": lambda L, a: a.square(),
    "positive": lambda L, a: L.positive(a),
}
for _dt in DTYPES:
    for _u, _fn in UNARY.items():
        CASES[f"unary/{_u}/{_dt}"] = lambda L, d, fn=_fn, dt=_dt: fn(L, vals(L, d, dt))
    CASES[f"unary/bitwise_not_out_bool/{_dt}"] = lambda L, d, dt=_dt: L.bitwise_not(
        vals(L, d, dt), out=L.empty(len(vals(L, d, dt)), dtype=L.bool, device=d))

GCD_SECOND = {
    "same": lambda L, d, dt: vals(L, d, dt).flip(0),
    "zeros": lambda L, d, dt: L.zeros(len(vals(L, d, dt)), dtype=getattr(L, dt), device=d),
    "int64": lambda L, d, dt: T(L, [6, -4, 0, 9, 12][:len(vals(L, d, dt))], d, "int64"),
    "uint8": lambda L, d, dt: T(L, [6, 4, 0][:len(vals(L, d, dt))] + [9, 12][:max(len(vals(L, d, dt)) - 3, 0)], d,
                                "uint8"),
    "float": lambda L, d, dt: T(L, [6.0] * len(vals(L, d, dt)), d, "float32"),
    "py_int": lambda L, d, dt: 4,
    "0d": lambda L, d, dt: T(L, -6, d, "int64"),
}
for _dt in DTYPES:
    for _g in ("gcd", "lcm"):
        for _s, _second in GCD_SECOND.items():
            if _g == "lcm" and _s == "same" and _dt in ("int32", "int64"):
                continue  # PyTorch's CPU kernel dies with SIGFPE on lcm(MIN, 5) and its neighbours
            CASES[f"{_g}/{_dt}/{_s}"] = lambda L, d, g=_g, dt=_dt, s=_second: getattr(L, g)(vals(L, d, dt),
                                                                                          s(L, d, dt))
        CASES[f"{_g}_/{_dt}/int64"] = lambda L, d, g=_g, dt=_dt: getattr(vals(L, d, dt), g + "_")(
            GCD_SECOND["int64"](L, d, dt))


def _nums(L, d, dt):
    """Numerators as a column: every sign, no MIN for int32/int64 (MIN // -1 kills PyTorch's CPU kernel)."""
    if dt == "uint8":
        v = [255, 7, 1, 0]
    elif dt == "bool":
        v = [True, False]
    else:
        v = [MAXS[dt], 7, -7, 1, -1, 0] + ([MINS[dt]] if dt in ("int8", "int16") else [])
    return T(L, v, d, dt).reshape(-1, 1)


def _dens(L, d, dt):
    v = [True] if dt == "bool" else [3, 2, 1, 255] if dt == "uint8" else [3, -3, 2, -2, 1, -1, MAXS[dt]]
    return T(L, v, d, dt).reshape(1, -1)


DIVISIONS = {
    "floor_divide": lambda L, a, b: L.floor_divide(a, b),
    "op_floordiv": lambda L, a, b: a // b,
    "remainder": lambda L, a, b: L.remainder(a, b),
    "op_mod": lambda L, a, b: a % b,
    "fmod": lambda L, a, b: L.fmod(a, b),
    "div_none": lambda L, a, b: L.div(a, b),
    "div_trunc": lambda L, a, b: L.div(a, b, rounding_mode="trunc"),
    "div_floor": lambda L, a, b: L.div(a, b, rounding_mode="floor"),
    "div_bad_mode": lambda L, a, b: L.div(a, b, rounding_mode="round"),
    "true_divide": lambda L, a, b: L.true_divide(a, b),
}
DIVISORS = {
    "table": lambda L, d, dt: _dens(L, d, dt),
    "zero_tensor": lambda L, d, dt: T(L, [1, 0] if dt != "bool" else [True, False], d, dt),
    "py_zero": lambda L, d, dt: 0,
    "py_negative": lambda L, d, dt: -4,
    "py_past_dtype": lambda L, d, dt: 1000,
    "py_past_int64": lambda L, d, dt: 2 ** 63,
    "py_wraps_to_zero": lambda L, d, dt: 2 ** BITS[dt] if dt not in ("bool", "int64") else 2,
    "0d_wraps_to_zero": lambda L, d, dt: T(L, 2 ** BITS[dt] if dt not in ("bool", "int64") else 2, d, "int64"),
    "py_float": lambda L, d, dt: 2.5,
    "py_float_zero": lambda L, d, dt: 0.0,
    "0d_int64_zero": lambda L, d, dt: T(L, 0, d, "int64"),
    "float_tensor": lambda L, d, dt: T(L, [2.0, -0.0], d, "float32"),
}
for _dt in DTYPES:
    for _o, _op in DIVISIONS.items():
        for _s, _divisor in DIVISORS.items():
            def _case(L, d, op=_op, dt=_dt, s=_divisor, name=_s):
                num = _nums(L, d, dt)
                if name in ("zero_tensor", "float_tensor"):
                    num = num[:2].reshape(2)
                return op(L, num, s(L, d, dt))
            CASES[f"division/{_o}/{_dt}/{_s}"] = _case
    for _o in ("floor_divide_", "remainder_", "fmod_", "div_"):
        CASES[f"division_inplace/{_o}/{_dt}/table"] = lambda L, d, o=_o, dt=_dt: getattr(
            _nums(L, d, dt).expand(-1, 7 if dt not in ("uint8", "bool") else (4 if dt == "uint8" else 1)).clone(),
            o)(_dens(L, d, dt))
        CASES[f"division_inplace/{_o}/{_dt}/py_float"] = lambda L, d, o=_o, dt=_dt: getattr(_nums(L, d, dt), o)(2.5)
    CASES[f"division_inplace/div_trunc_/{_dt}/py_float"] = lambda L, d, dt=_dt: _nums(L, d, dt).div_(
        2.5, rounding_mode="trunc")
    CASES[f"division_inplace/div_floor_/{_dt}/table"] = lambda L, d, dt=_dt: _nums(L, d, dt).div_(
        _dens(L, d, dt)[:, :1], rounding_mode="floor")

_PAST_INT64 = ("deliberate (docs/dtypes.md, uint64 and Python ints; scalar_edges.py's int64/add_past_max): a Python "
               "int from 2**63 up is refused for an integer or bool tensor ('value cannot be converted to type int8 "
               "without overflow'), and divides a bool tensor as a float; PyTorch reads it as a uint64 number, "
               "wraps it into the tensor's dtype (to 0, or to int64's minimum: x & 2**63 is 0, x // 2**63 its "
               "ZeroDivisionError) and refuses it beside a bool tensor ('Promotion for uint16, uint32, uint64 types "
               "is not supported')")
# A divisor that wraps to 0 in the result's dtype (int8 // 256, int32 % 2**32, a 0-d int64 tensor of those) is
# PyTorch's ZeroDivisionError since session 46: the zero check reads the converted divisor (src/ops/elementwise.cpp,
# check_int_divisor).
KNOWN = {}
for _name in CASES:
    _last = _name.rsplit("/", 1)[1]
    if _last == "py_past_int64" and (_name.split("/")[1] not in ("div_none", "true_divide", "div_bad_mode") or
                                     _name.split("/")[2] == "bool" and _name.split("/")[1] != "div_bad_mode"):
        KNOWN[_name] = _PAST_INT64
