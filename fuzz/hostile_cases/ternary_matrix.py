"""The elementwise ops with two or three operands as a matrix, beyond binary_promotion.py and masked_where_put.py (one
case per hostile value there): where, lerp, addcmul, addcdiv, clamp, clip and masked_fill, and the binary fmod,
remainder, copysign, hypot, nextafter and heaviside, each crossed with operands of every kind: float32, float64,
float16, int64, int32, uint8, bool and complex tensors of shape (2, 3), a (2, 1) column that broadcasts, a (4,) row
that does not, an empty tensor, 0-d float and int tensors, and Python ints, floats, bools and complex numbers; the
value= keyword of addcmul/addcdiv; out= of the right dtype, of a narrower one and of the wrong shape; the in-place
forms, whose result dtype cannot change."""
import math

from . import T

NAN, INF = math.nan, math.inf
_FLOATS = [[-2.5, 0.0, 3.0], [1.5, -0.0, 7.0]]
_INTS = [[-3, 0, 4], [5, -7, 2]]

OPERANDS = {
    "f32": lambda L, d: T(L, _FLOATS, d, "float32"),
    "f64": lambda L, d: T(L, [[0.5, -1.0, 2.0], [NAN, INF, -3.0]], d, "float64"),
    "f16": lambda L, d: T(L, [[1.0, -2.0, 0.5], [4.0, 0.0, -0.25]], d, "float16"),
    "i64": lambda L, d: T(L, _INTS, d, "int64"),
    "i32": lambda L, d: T(L, [[2, -1, 0], [3, 3, -4]], d, "int32"),
    "u8": lambda L, d: T(L, [[200, 0, 3], [7, 255, 1]], d, "uint8"),
    "bool": lambda L, d: T(L, [[True, False, True], [False, False, True]], d, "bool"),
    "c64": lambda L, d: T(L, [[1 + 2j, -1j, 0], [3, 2 - 2j, -1]], d, "complex64"),
    "col": lambda L, d: T(L, [[2.0], [-1.5]], d, "float32"),
    "bad_row": lambda L, d: T(L, [1.0, 2.0, 3.0, 4.0], d, "float32"),
    "empty": lambda L, d: L.empty(0, 3, device=d),
    "0d_f64": lambda L, d: T(L, 1.5, d, "float64"),
    "0d_i64": lambda L, d: T(L, 3, d, "int64"),
    "py_int": lambda L, d: 2,
    "py_float": lambda L, d: -0.75,
    "py_bool": lambda L, d: True,
    "py_complex": lambda L, d: 1 - 1j,
}
FIRST = ("f32", "f64", "f16", "i64", "u8", "bool", "c64", "0d_f64", "0d_i64", "py_int", "py_float")

BINARY = ("fmod", "remainder", "copysign", "hypot", "nextafter", "heaviside")

CASES = {}
for _op in BINARY:
    for _a in FIRST:
        for _b in OPERANDS:
            CASES[f"{_op}/{_a}/{_b}"] = lambda L, d, op=_op, a=OPERANDS[_a], b=OPERANDS[_b]: getattr(L, op)(
                a(L, d), b(L, d))
    for _a, _b in (("f32", "f32"), ("i64", "i64"), ("f32", "0d_f64"), ("f16", "f32")):
        CASES[f"{_op}/inplace/{_a}/{_b}"] = lambda L, d, op=_op, a=OPERANDS[_a], b=OPERANDS[_b]: getattr(
            a(L, d), op + "_")(b(L, d))
    CASES[f"{_op}/inplace/i64/f32"] = lambda L, d, op=_op: getattr(OPERANDS["i64"](L, d), op + "_")(
        OPERANDS["f32"](L, d))
    CASES[f"{_op}/inplace/col/f32"] = lambda L, d, op=_op: getattr(OPERANDS["col"](L, d), op + "_")(
        OPERANDS["f32"](L, d))
    CASES[f"{_op}/method/py_float"] = lambda L, d, op=_op: getattr(OPERANDS["f32"](L, d), op)(0.5)
    for _out, _dtype, _shape in (("right", "float32", (2, 3)), ("float64", "float64", (2, 3)),
                                 ("int64", "int64", (2, 3)), ("float16", "float16", (2, 3)),
                                 ("wrong_shape", "float32", (5,)), ("bool", "bool", (2, 3))):
        CASES[f"{_op}/out_{_out}"] = lambda L, d, op=_op, dt=_dtype, sh=_shape: (lambda out: (getattr(L, op)(
            OPERANDS["f32"](L, d), OPERANDS["col"](L, d), out=out), out))(L.empty(sh, dtype=getattr(L, dt),
                                                                                device=d))
    CASES[f"{_op}/out_int_from_ints"] = lambda L, d, op=_op: (lambda out: (getattr(L, op)(
        OPERANDS["i64"](L, d), OPERANDS["i32"](L, d), out=out), out))(L.empty((2, 3), dtype=L.int32, device=d))

# where(condition, input, other)
CONDITIONS = {
    "bool": lambda L, d: OPERANDS["bool"](L, d),
    "u8": lambda L, d: T(L, [[1, 0, 2], [0, 0, 1]], d, "uint8"),
    "f32": lambda L, d: OPERANDS["f32"](L, d),
    "0d_bool": lambda L, d: T(L, True, d, "bool"),
    "col_bool": lambda L, d: T(L, [[True], [False]], d, "bool"),
    "bad_bool": lambda L, d: T(L, [True, False, True, False], d, "bool"),
    "py_bool": lambda L, d: True,
}
WHERE_VALUES = ("f32", "f64", "f16", "i64", "u8", "bool", "c64", "col", "bad_row", "0d_f64", "0d_i64", "py_int",
                "py_float", "py_bool", "py_complex")
for _c, _cond in CONDITIONS.items():
    for _x in WHERE_VALUES:
        for _y in WHERE_VALUES if _c in ("bool", "u8") else ("f32", "py_float", "i64"):
            CASES[f"where/{_c}/{_x}/{_y}"] = lambda L, d, c=_cond, x=OPERANDS[_x], y=OPERANDS[_y]: L.where(
                c(L, d), x(L, d), y(L, d))
CASES["where/condition_only"] = lambda L, d: L.where(OPERANDS["i64"](L, d))
CASES["where/one_value"] = lambda L, d: L.where(OPERANDS["bool"](L, d), OPERANDS["f32"](L, d))
CASES["where/method"] = lambda L, d: OPERANDS["f32"](L, d).where(OPERANDS["bool"](L, d), 9)
CASES["where/method_py_float_other"] = lambda L, d: OPERANDS["i64"](L, d).where(OPERANDS["bool"](L, d), 0.5)
CASES["where/out_f32"] = lambda L, d: (lambda out: (L.where(OPERANDS["bool"](L, d), OPERANDS["f32"](L, d), 2,
                                                            out=out), out))(L.empty(2, 3, device=d))
CASES["where/out_i64"] = lambda L, d: (lambda out: (L.where(OPERANDS["bool"](L, d), OPERANDS["f32"](L, d), 2,
                                                            out=out), out))(L.empty(2, 3, dtype=L.int64, device=d))
CASES["where/out_f64"] = lambda L, d: (lambda out: (L.where(OPERANDS["bool"](L, d), OPERANDS["f32"](L, d), 2,
                                                            out=out), out))(L.empty(2, 3, dtype=L.float64,
                                                                                   device=d))

# lerp(start, end, weight)
LERP_TENSORS = ("f32", "f64", "f16", "i64", "c64", "col", "bad_row", "0d_f64")
LERP_WEIGHTS = {"py_float": 0.25, "py_int": 2, "py_bool": True, "py_complex": 0.5j, "nan": NAN, "f32": "f32",
                "f64": "f64", "0d_f64": "0d_f64", "i64": "i64", "col": "col", "c64": "c64"}
for _s in LERP_TENSORS:
    for _e in LERP_TENSORS:
        for _w, _wv in LERP_WEIGHTS.items():
            if _s != _e and _s not in ("f32", "f64") and _e not in ("f32", "f64"):
                continue  # the pairs without a float32/float64 side add little
            CASES[f"lerp/{_s}/{_e}/{_w}"] = lambda L, d, s=OPERANDS[_s], e=OPERANDS[_e], w=_wv: L.lerp(
                s(L, d), e(L, d), OPERANDS[w](L, d) if isinstance(w, str) else w)
for _w in ("py_float", "f32", "f64", "0d_f64", "col"):
    CASES[f"lerp/inplace/f32/{_w}"] = lambda L, d, w=_w: OPERANDS["f32"](L, d).lerp_(
        OPERANDS["col"](L, d), OPERANDS[w](L, d) if w != "py_float" else 0.3)
    CASES[f"lerp/inplace/col/{_w}"] = lambda L, d, w=_w: OPERANDS["col"](L, d).lerp_(
        OPERANDS["f32"](L, d), OPERANDS[w](L, d) if w != "py_float" else 0.3)
CASES["lerp/out_f64"] = lambda L, d: L.lerp(OPERANDS["f32"](L, d), OPERANDS["col"](L, d), 0.5,
                                            out=L.empty(2, 3, dtype=L.float64, device=d))
CASES["lerp/out_wrong_shape"] = lambda L, d: (lambda out: (L.lerp(OPERANDS["f32"](L, d), OPERANDS["col"](L, d), 0.5,
                                                                  out=out), out))(L.empty(4, device=d))
CASES["lerp/weight_keyword"] = lambda L, d: L.lerp(OPERANDS["f32"](L, d), end=OPERANDS["col"](L, d), weight=0.5)
CASES["lerp/missing_weight"] = lambda L, d: L.lerp(OPERANDS["f32"](L, d), OPERANDS["col"](L, d))
CASES["lerp/py_start"] = lambda L, d: L.lerp(1.0, OPERANDS["f32"](L, d), 0.5)

# addcmul / addcdiv(input, tensor1, tensor2, value=)
ADDC_INPUTS = ("f32", "f64", "f16", "i64", "bool", "c64", "col", "bad_row", "0d_f64", "empty", "py_float")
ADDC_PAIRS = {"f32_f32": ("f32", "f32"), "f32_col": ("f32", "col"), "i64_i64": ("i64", "i64"),
              "i64_f32": ("i64", "f32"), "f16_f32": ("f16", "f32"), "bool_bool": ("bool", "bool"),
              "c64_f32": ("c64", "f32"), "bad": ("bad_row", "f32"), "0d_0d": ("0d_f64", "0d_i64"),
              "py_f32": ("py_float", "f32")}
ADDC_VALUES = {"default": None, "int": 2, "float": 0.5, "bool": True, "complex": 1j, "0d": "0d_f64", "nan": NAN}
for _op in ("addcmul", "addcdiv"):
    for _i in ADDC_INPUTS:
        for _p, (_t1, _t2) in ADDC_PAIRS.items():
            for _v, _vv in ADDC_VALUES.items():
                if _v != "default" and _p not in ("f32_f32", "i64_i64", "i64_f32", "c64_f32") and \
                        _i not in ("f32", "i64"):
                    continue
                CASES[f"{_op}/{_i}/{_p}/{_v}"] = lambda L, d, op=_op, i=OPERANDS[_i], t1=OPERANDS[_t1], \
                    t2=OPERANDS[_t2], v=_vv: getattr(L, op)(
                        i(L, d), t1(L, d), t2(L, d), **({} if v is None else {
                            "value": OPERANDS[v](L, d) if isinstance(v, str) else v}))
    CASES[f"{_op}/value_positional"] = lambda L, d, op=_op: getattr(L, op)(
        OPERANDS["f32"](L, d), 2, OPERANDS["f32"](L, d), OPERANDS["col"](L, d))
    CASES[f"{_op}/inplace_f32"] = lambda L, d, op=_op: getattr(OPERANDS["f32"](L, d), op + "_")(
        OPERANDS["col"](L, d), OPERANDS["f32"](L, d), value=3)
    CASES[f"{_op}/inplace_i64_f32"] = lambda L, d, op=_op: getattr(OPERANDS["i64"](L, d), op + "_")(
        OPERANDS["f32"](L, d), OPERANDS["f32"](L, d))
    CASES[f"{_op}/inplace_col"] = lambda L, d, op=_op: getattr(OPERANDS["col"](L, d), op + "_")(
        OPERANDS["f32"](L, d), OPERANDS["f32"](L, d))
    CASES[f"{_op}/inplace_i64_value_float"] = lambda L, d, op=_op: getattr(OPERANDS["i64"](L, d), op + "_")(
        OPERANDS["i64"](L, d), OPERANDS["i64"](L, d), value=0.5)
    for _out, _dtype in (("f32", "float32"), ("f64", "float64"), ("i64", "int64"), ("f16", "float16")):
        CASES[f"{_op}/out_{_out}"] = lambda L, d, op=_op, dt=_dtype: (lambda out: (getattr(L, op)(
            OPERANDS["f32"](L, d), OPERANDS["col"](L, d), OPERANDS["f32"](L, d), value=2, out=out), out))(
            L.empty(2, 3, dtype=getattr(L, dt), device=d))
    CASES[f"{_op}/out_wrong_shape"] = lambda L, d, op=_op: (lambda out: (getattr(L, op)(
        OPERANDS["f32"](L, d), OPERANDS["col"](L, d), OPERANDS["f32"](L, d), out=out), out))(L.empty(7, device=d))

# clamp / clip(input, min, max)
BOUNDS = {"none": None, "py_int": 1, "py_float": 0.5, "py_neg": -1.5, "nan": NAN, "inf": INF, "py_bool": True,
          "py_complex": 1j, "f32": "f32", "i64": "i64", "0d_f64": "0d_f64", "0d_i64": "0d_i64", "col": "col",
          "bad_row": "bad_row", "u8": "u8", "c64": "c64"}
CLAMP_INPUTS = ("f32", "f64", "f16", "i64", "u8", "bool", "c64", "0d_f64", "empty")


def _bound(L, d, b):
    return OPERANDS[b](L, d) if isinstance(b, str) else b


for _op in ("clamp", "clip"):
    for _x in CLAMP_INPUTS:
        for _lo, _lov in BOUNDS.items():
            CASES[f"{_op}/{_x}/min_{_lo}"] = lambda L, d, op=_op, x=OPERANDS[_x], lo=_lov: getattr(L, op)(
                x(L, d), min=_bound(L, d, lo))
            if _op == "clamp":
                CASES[f"{_op}/{_x}/max_{_lo}"] = lambda L, d, x=OPERANDS[_x], hi=_lov: L.clamp(
                    x(L, d), max=_bound(L, d, hi))
        for _lo, _hi in (("py_int", "py_neg"), ("py_float", "f32"), ("i64", "py_float"), ("0d_f64", "0d_i64"),
                         ("nan", "py_int"), ("f32", "none"), ("py_int", "i64")):
            CASES[f"{_op}/{_x}/{_lo}_{_hi}"] = lambda L, d, op=_op, x=OPERANDS[_x], lo=BOUNDS[_lo], hi=BOUNDS[_hi]: \
                getattr(L, op)(x(L, d), _bound(L, d, lo), _bound(L, d, hi))
    CASES[f"{_op}/no_bounds"] = lambda L, d, op=_op: getattr(L, op)(OPERANDS["f32"](L, d))
    CASES[f"{_op}/inplace_i64_float_bound"] = lambda L, d, op=_op: getattr(OPERANDS["i64"](L, d), op + "_")(0.5)
    CASES[f"{_op}/inplace_i64_tensor_bound"] = lambda L, d, op=_op: getattr(OPERANDS["i64"](L, d), op + "_")(
        OPERANDS["f32"](L, d))
    CASES[f"{_op}/inplace_col_tensor_bound"] = lambda L, d, op=_op: getattr(OPERANDS["col"](L, d), op + "_")(
        OPERANDS["f32"](L, d))
    CASES[f"{_op}/out_i64"] = lambda L, d, op=_op: (lambda out: (getattr(L, op)(
        OPERANDS["f32"](L, d), 0, 1, out=out), out))(L.empty(2, 3, dtype=L.int64, device=d))
    CASES[f"{_op}/out_f64"] = lambda L, d, op=_op: (lambda out: (getattr(L, op)(
        OPERANDS["f32"](L, d), OPERANDS["col"](L, d), out=out), out))(L.empty(2, 3, dtype=L.float64, device=d))
    CASES[f"{_op}/out_wrong_shape"] = lambda L, d, op=_op: (lambda out: (getattr(L, op)(
        OPERANDS["f32"](L, d), max=0, out=out), out))(L.empty(1, device=d))

# masked_fill(input, mask, value)
MASKS = {"bool": "bool", "u8": "u8_mask", "col_bool": "col_bool", "bad_bool": "bad_bool", "0d_bool": "0d_bool",
         "f32": "f32"}
FILL_VALUES = {"py_int": 7, "py_float": 2.5, "py_bool": True, "py_complex": 1j, "nan": NAN, "inf": INF,
               "big": 300, "huge": 2 ** 63, "0d_f64": "0d_f64", "0d_i64": "0d_i64", "1d": "1d", "0d_c64": "0d_c64"}
FILL_INPUTS = ("f32", "f16", "i64", "u8", "bool", "c64", "0d_f64", "empty")


def _mask(L, d, m):
    if m == "u8_mask":
        return T(L, [[1, 0, 1], [0, 0, 1]], d, "uint8")
    return CONDITIONS[m](L, d)


def _fill(L, d, v):
    if v == "1d":
        return T(L, [1.0], d)
    if v == "0d_c64":
        return T(L, 2j, d)
    return OPERANDS[v](L, d) if isinstance(v, str) else v


for _x in FILL_INPUTS:
    for _m, _mv in MASKS.items():
        for _v, _vv in FILL_VALUES.items():
            if _m not in ("bool",) and _v not in ("py_int", "0d_f64"):
                continue
            CASES[f"masked_fill/{_x}/{_m}/{_v}"] = lambda L, d, x=OPERANDS[_x], m=_mv, v=_vv: x(L, d).masked_fill(
                _mask(L, d, m), _fill(L, d, v))
            CASES[f"masked_fill_/{_x}/{_m}/{_v}"] = lambda L, d, x=OPERANDS[_x], m=_mv, v=_vv: x(L, d).masked_fill_(
                _mask(L, d, m), _fill(L, d, v))
CASES["masked_fill/function"] = lambda L, d: L.masked_fill(OPERANDS["f32"](L, d), OPERANDS["bool"](L, d), 1)
CASES["masked_fill/value_keyword"] = lambda L, d: OPERANDS["f32"](L, d).masked_fill(
    mask=OPERANDS["bool"](L, d), value=-1)
CASES["masked_fill/missing_value"] = lambda L, d: OPERANDS["f32"](L, d).masked_fill(OPERANDS["bool"](L, d))
CASES["masked_fill/value_str"] = lambda L, d: OPERANDS["f32"](L, d).masked_fill(OPERANDS["bool"](L, d), "a")
CASES["masked_fill/value_grad"] = lambda L, d: (lambda v: (lambda y: (y, L.autograd.grad(y.sum(), v)))(
    OPERANDS["f32"](L, d).masked_fill(OPERANDS["bool"](L, d), v)))(T(L, 2.0, d).requires_grad_())

# Fixed in C++ in session 48 (tests/python/test_hostile_inputs21.py, test_fixed_in_cpp): clamp with a Tensor bound
# beside a Number bound is PyTorch's listing of its overloads; a complex bound tensor is its NotImplementedError naming
# the kernel ("maximum_cpu", "minimum_cpu" or "clamp_cpu"), a Python complex bound of an integer or bool tensor "clamp is
# not supported for complex types", and clamp(complex, None, None) checks for a bound first; clamp(out=float64) of a
# float32 result with Tensor bounds is written with a cast; masked_fill reads a Python int past int64 as uint64 (a float,
# bool or complex tensor takes it; the conversion errors name PyTorch's C types, uint8_t and c10::Half), broadcasts
# self and mask before its other checks (masked_fill_: the value's dims, the mask's dtype, then the broadcast), and a
# call without a value is its listing.
_FIXED = "fixed in C++ (session 48)"
# Complex division by a zero whose sign is negative ((2-2j) / -0.0) divides each part by +0, as PyTorch's
# c10::complex, since session 47 (src/core/complex.h): inf-infj, was -inf-infj.
_NO_COMPLEX32 = ("tandem has no complex32 (ComplexHalf, docs/compat.md): a float16 tensor with a Python complex number "
                 "is complex64 (PyTorch: complex32), and fmod/remainder/copysign's refusals name ComplexFloat")
_NUMBER_OPERANDS = ("tandem's extension (docs/compat.md): a Python number as an operand of hypot, nextafter and "
                    "heaviside is taken, as NumPy and the Array API standard take it; PyTorch's parser refuses it")
_INTEGER_HYPOT = ("tandem's extension (docs/compat.md): hypot of integer or bool tensors computes in the default float "
                  "dtype (as atan2 does in PyTorch, and as NumPy does); PyTorch's kernel refuses them")
_INTEGERS = ("0d_i64", "bool", "i32", "i64", "u8")
_CUDA_KERNEL = "cuda-only: the kernel's name carries the device (addcmul_cuda_out); the oracle runs on the CPU"


def complex_division_case(name):
    """The addcdiv cases that divide complex values by signed zeros (session 47's fix)."""
    parts = name.split("/")
    return parts[0] == "addcdiv" and len(parts) == 4 and parts[2] == "c64_f32" and parts[-1] != "nan" and \
        parts[1] not in ("bad_row", "empty", "py_float")


def _known(name):
    """The reason a case differs from PyTorch, or None (the rules name the cases the round left, by their parts)."""
    parts = name.split("/")
    op, last = parts[0], parts[-1]
    if op in ("clamp", "clip"):
        if last in ("i64_py_float", "py_float_f32", "py_int_i64"):
            return _FIXED
        if last == "out_f64":
            return _FIXED
        if last in ("min_c64", "max_c64") and parts[1] not in ("c64", "empty") or \
                last.endswith("_py_complex") and parts[1] in ("bool", "i64", "u8") or \
                last in ("min_none", "max_none") and parts[1] == "c64":
            return _FIXED
    if op in ("masked_fill", "masked_fill_"):
        if last == "missing_value":
            return _FIXED
        if parts[1] == "empty" and (last in ("1d", "huge") or op == "masked_fill" and (
                parts[2] in ("f32", "u8") or last in ("0d_c64", "py_complex"))) or \
                last == "1d" and parts[1] == "0d_f64" and op == "masked_fill_":
            return _FIXED
        if last == "huge" and parts[1] != "i64" or parts[1] == "u8" and last in ("0d_c64", "py_complex"):
            return _FIXED
    if "f16" in parts and "py_complex" in parts and op in ("where", "fmod", "remainder", "copysign") and \
            parts[1] in ("bool", "u8", "f16"):
        return _NO_COMPLEX32
    if op in ("hypot", "nextafter", "heaviside") and any(p.startswith("py_") for p in parts[1:]) and \
            not all(p.startswith("py_") for p in parts[1:]):  # two numbers: both refuse
        return _NUMBER_OPERANDS
    if op == "hypot" and (name in ("hypot/inplace/i64/i64", "hypot/out_int_from_ints") or
                          len(parts) == 3 and parts[1] in _INTEGERS and parts[2] in _INTEGERS):
        return _INTEGER_HYPOT
    if name == "addcmul/bool/bool_bool/default":
        return _CUDA_KERNEL
    return None


def cpp_fixed_case(name):
    """The cases session 48's C++ change fixed (clamp's bounds and out=, masked_fill's value and order)."""
    return _known(name) == _FIXED


KNOWN = {name: reason for name in CASES if (reason := _known(name)) and reason != _FIXED}
