"""The Array API standard namespace (tandem.array_api, x.__array_namespace__()) with hostile arguments. PyTorch is
not this namespace's oracle: NumPy 2's main namespace is (it implements the 2024.12 standard), so when the harness
runs a case with torch, the case runs on NumPy and its result comes back as torch tensors. The standard leaves
exception types open except where it names one, so an error NumPy raises reaches the harness as a plain Exception
(any exception of tandem's matches it) unless the case says the standard requires ValueError; messages are not
compared. Inputs always name their dtype (the default float differs: float64 in NumPy, float32 in tandem). Covered:
the standard's special cases of the elementwise functions (NaN, +-inf, +-0, halves) for two dozen functions and
their binary pairs as a table; the promotion table across kinds the standard defines; reductions with axis tuples,
negative axes, axis=(), keepdims, correction past N, empty and 0-d inputs, dtype=; manipulation with copy=False
that cannot be honoured, squeeze of a non-1 axis, tuple axes, concat(axis=None), roll/tile/repeat/unstack edges;
searching and sets with NaNs and -0.0; sort/argsort with NaN, descending and stable; creation with empty and
fractional arange ranges, linspace(endpoint=False) with num 0/1, eye offsets past the matrix, asarray copy=False
from a list; the dtype functions (can_cast, isdtype kinds, finfo/iinfo values, astype copy=False)."""
import math

from . import Case

NAN, INF = math.nan, math.inf
EDGES = [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, 1e300]


def _np():
    import numpy  # noqa: PLC0415  (the oracle; the harness's worker has it)
    return numpy


def _is_torch(L):
    return L.__name__ == "torch"


def _to_torch(L, value):
    """NumPy's result as the harness compares it: arrays and NumPy scalars as torch tensors, containers kept."""
    np = _np()
    if isinstance(value, (np.ndarray, np.generic)):
        return L.from_numpy(np.array(value, copy=True))
    if isinstance(value, tuple):
        return tuple(_to_torch(L, v) for v in value)
    if isinstance(value, list):
        return [_to_torch(L, v) for v in value]
    return value


def xp_case(fn, mode="any-message", raises=None):
    """fn(xp, d) over the namespace: tandem.array_api on device d, or NumPy as the oracle (raises: the exception
    type the standard requires, kept from NumPy; any other NumPy error becomes a plain Exception)."""
    def case(L, d):
        if not _is_torch(L):
            return fn(L.array_api, d)
        try:
            return _to_torch(L, fn(_np(), "cpu"))
        except Exception as e:  # noqa: BLE001 - the oracle's error, typed as the standard types it
            if raises is not None and isinstance(e, raises):
                raise raises(str(e)) from None
            # a plain Exception: the harness's type check accepts any exception of tandem's for it
            raise Exception(f"{type(e).__name__}: {e}") from None  # noqa: TRY002
    return Case(case, mode)


def A(xp, d, values, dtype):
    """An array of the named dtype on device d (NumPy has no devices)."""
    if xp.__name__ == "numpy":
        return xp.asarray(values, dtype=getattr(xp, dtype))
    return xp.asarray(values, dtype=getattr(xp, dtype), device=d)


def col(xp, d, dtype="float64"):
    return xp.reshape(A(xp, d, EDGES, dtype), (-1, 1))


def row(xp, d, dtype="float64"):
    return xp.reshape(A(xp, d, EDGES, dtype), (1, -1))


CASES = {}

UNARY = ("abs", "ceil", "floor", "round", "trunc", "sign", "sqrt", "square", "exp", "expm1", "log", "log1p", "log2",
         "log10", "sin", "tan", "tanh", "asinh", "atanh", "acosh", "reciprocal", "signbit", "isnan", "isinf",
         "isfinite", "negative", "positive")
for _f in UNARY:
    for _dt in ("float32", "float64"):
        CASES[f"unary/{_f}/{_dt}"] = xp_case(lambda xp, d, f=_f, dt=_dt: getattr(xp, f)(A(xp, d, EDGES, dt)))
    CASES[f"unary/{_f}/int16"] = xp_case(lambda xp, d, f=_f: getattr(xp, f)(A(xp, d, [-3, 0, 7], "int16")))
    CASES[f"unary/{_f}/bool"] = xp_case(lambda xp, d, f=_f: getattr(xp, f)(A(xp, d, [True, False], "bool")))
    CASES[f"unary/{_f}/0d"] = xp_case(lambda xp, d, f=_f: getattr(xp, f)(A(xp, d, -2.5, "float64")))

BINARY = ("add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow", "atan2", "copysign", "hypot",
          "logaddexp", "maximum", "minimum", "nextafter", "equal", "less", "greater_equal")
for _f in BINARY:
    for _dt in ("float32", "float64"):
        CASES[f"binary/{_f}/{_dt}"] = xp_case(lambda xp, d, f=_f, dt=_dt: getattr(xp, f)(col(xp, d, dt),
                                                                                       row(xp, d, dt)))
    CASES[f"binary/{_f}/array_scalar"] = xp_case(lambda xp, d, f=_f: getattr(xp, f)(A(xp, d, EDGES, "float32"), 2.0))
    CASES[f"binary/{_f}/scalar_array"] = xp_case(lambda xp, d, f=_f: getattr(xp, f)(-0.0, A(xp, d, EDGES, "float32")))
    CASES[f"binary/{_f}/int_scalar_int8"] = xp_case(lambda xp, d, f=_f: getattr(xp, f)(
        A(xp, d, [-3, 0, 7, 100], "int8"), 3) if f not in ("atan2", "copysign", "hypot", "logaddexp", "nextafter")
        else getattr(xp, f)(A(xp, d, [-3.0, 0.0, 7.0], "float32"), 3))
    CASES[f"binary/{_f}/broadcast_fail"] = xp_case(lambda xp, d, f=_f: getattr(xp, f)(A(xp, d, [1.0, 2.0], "float32"),
                                                                                     A(xp, d, [1.0, 2.0, 3.0],
                                                                                       "float32")))

INT_DIV = ("floor_divide", "remainder")
for _f in INT_DIV:
    for _dt in ("int8", "int32", "int64", "uint8"):
        CASES[f"integer/{_f}/{_dt}"] = xp_case(lambda xp, d, f=_f, dt=_dt: getattr(xp, f)(
            xp.reshape(A(xp, d, [7, -7, 1, 0, 100] if dt != "uint8" else [7, 1, 0, 200], dt), (-1, 1)),
            xp.reshape(A(xp, d, [3, -3, 2, -1] if dt != "uint8" else [3, 2, 1, 255], dt), (1, -1))))
for _f in ("bitwise_left_shift", "bitwise_right_shift", "bitwise_and", "bitwise_xor"):
    for _dt in ("int8", "int64", "uint8"):
        CASES[f"integer/{_f}/{_dt}"] = xp_case(lambda xp, d, f=_f, dt=_dt: getattr(xp, f)(
            A(xp, d, [1, 5, 100, 0] if dt == "uint8" else [1, -5, 100, -128 if dt == "int8" else -(2 ** 62)], dt),
            A(xp, d, [0, 1, 3, 7], dt)))
CASES["integer/bitwise_invert/int8"] = xp_case(lambda xp, d: xp.bitwise_invert(A(xp, d, [0, -1, 127, -128], "int8")))
CASES["integer/bitwise_invert/bool"] = xp_case(lambda xp, d: xp.bitwise_invert(A(xp, d, [True, False], "bool")))
CASES["integer/bitwise_invert/float"] = xp_case(lambda xp, d: xp.bitwise_invert(A(xp, d, [1.0], "float32")))
CASES["integer/pow_int_negative_exponent"] = xp_case(lambda xp, d: xp.pow(A(xp, d, [2, 1, -1], "int32"),
                                                                         A(xp, d, [-1, -2, -3], "int32")))
CASES["integer/abs_min"] = xp_case(lambda xp, d: xp.abs(A(xp, d, [-128, 5], "int8")))

# ---- promotion: the standard's table within each kind, and float with complex
PROMOTE = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "float32", "float64", "complex64",
           "complex128")


def _kind(dt):
    return "bool" if dt == "bool" else "int" if "int" in dt else "float"


for _a in PROMOTE:
    for _b in PROMOTE:
        if _kind(_a) == _kind(_b) and not ({_a, _b} & {"uint64"}):
            CASES[f"promote/{_a}/{_b}"] = xp_case(lambda xp, d, a=_a, b=_b: xp.add(A(xp, d, [1], a), A(xp, d, [1], b))
                                                  if a != "bool" or b != "bool" else
                                                  xp.logical_or(A(xp, d, [True], a), A(xp, d, [False], b)))
            CASES[f"result_type/{_a}/{_b}"] = xp_case(lambda xp, d, a=_a, b=_b: str(
                xp.result_type(getattr(xp, a), getattr(xp, b))).rsplit(".", 1)[-1])
CASES["result_type/int8_with_python_int"] = xp_case(lambda xp, d: str(xp.result_type(xp.int8, 1)).rsplit(".", 1)[-1])
CASES["result_type/float32_with_python_float"] = xp_case(lambda xp, d: str(xp.result_type(xp.float32, 1.0)).rsplit(
    ".", 1)[-1])
CASES["result_type/no_arguments"] = xp_case(lambda xp, d: xp.result_type())
CASES["can_cast/int64_float32"] = xp_case(lambda xp, d: xp.can_cast(xp.int64, xp.float32))
CASES["can_cast/uint8_int8"] = xp_case(lambda xp, d: xp.can_cast(xp.uint8, xp.int8))
CASES["can_cast/array_from"] = xp_case(lambda xp, d: xp.can_cast(A(xp, d, [1], "int8"), xp.int16))
for _kindname in ("bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating",
                  "numeric"):
    for _dt in ("bool", "int8", "uint8", "float32", "complex64"):
        CASES[f"isdtype/{_kindname.replace(' ', '_')}/{_dt}"] = xp_case(
            lambda xp, d, k=_kindname, dt=_dt: xp.isdtype(getattr(xp, dt), k))
CASES["isdtype/tuple"] = xp_case(lambda xp, d: xp.isdtype(xp.int8, ("real floating", xp.int8)))
CASES["isdtype/bad_kind"] = xp_case(lambda xp, d: xp.isdtype(xp.int8, "floating"))
for _dt in ("float32", "float64"):
    CASES[f"finfo/{_dt}"] = xp_case(lambda xp, d, dt=_dt: (lambda f: (f.bits, float(f.eps), float(f.max),
                                                                       float(f.min), float(f.smallest_normal)))(
        xp.finfo(getattr(xp, dt))))
for _dt in ("int8", "uint8", "int64"):
    CASES[f"iinfo/{_dt}"] = xp_case(lambda xp, d, dt=_dt: (lambda i: (i.bits, int(i.max), int(i.min)))(
        xp.iinfo(getattr(xp, dt))))
CASES["iinfo/float"] = xp_case(lambda xp, d: xp.iinfo(xp.float32).bits)
CASES["astype/copy_false_same"] = xp_case(lambda xp, d: (lambda x: xp.astype(x, xp.float32, copy=False) is x)(
    A(xp, d, [1.0], "float32")))
CASES["astype/float_to_int_nan"] = xp_case(lambda xp, d: xp.astype(A(xp, d, [1.7, -1.7], "float32"), xp.int32))
CASES["astype/complex_to_float"] = xp_case(lambda xp, d: xp.astype(A(xp, d, [1 + 2j], "complex64"), xp.float32))
CASES["astype/bool_to_int"] = xp_case(lambda xp, d: xp.astype(A(xp, d, [True, False], "bool"), xp.uint8))

# ---- reductions
RED_INPUTS = {
    "matrix": lambda xp, d: xp.reshape(A(xp, d, [1.0, NAN, 3.0, -2.0, 5.0, 0.5], "float64"), (2, 3)),
    "int8": lambda xp, d: A(xp, d, [100, 100, 100], "int8"),
    "uint8": lambda xp, d: A(xp, d, [200, 100], "uint8"),
    "bool": lambda xp, d: A(xp, d, [True, True, False], "bool"),
    "empty": lambda xp, d: xp.reshape(A(xp, d, [], "float64"), (0, 3)),
    "0d": lambda xp, d: A(xp, d, 2.5, "float32"),
    "float32": lambda xp, d: A(xp, d, [1.5, -0.0, 4.0], "float32"),
}
REDUCTIONS = {
    "sum": lambda xp, x: xp.sum(x),
    "sum_axis_tuple": lambda xp, x: xp.sum(x, axis=(0, -1)),
    "sum_axis_empty_tuple": lambda xp, x: xp.sum(x, axis=()),
    "sum_dtype_float64": lambda xp, x: xp.sum(x, dtype=xp.float64),
    "sum_keepdims": lambda xp, x: xp.sum(x, axis=0, keepdims=True),
    "sum_axis_past": lambda xp, x: xp.sum(x, axis=2),
    "sum_axis_repeated": lambda xp, x: xp.sum(x, axis=(0, 0)),
    "prod": lambda xp, x: xp.prod(x),
    "prod_axis_empty_tuple": lambda xp, x: xp.prod(x, axis=()),
    "mean": lambda xp, x: xp.mean(x),
    "mean_axis_neg": lambda xp, x: xp.mean(x, axis=-1),
    "max": lambda xp, x: xp.max(x),
    "min_axis0": lambda xp, x: xp.min(x, axis=0),
    "var": lambda xp, x: xp.var(x),
    "var_correction_past": lambda xp, x: xp.var(x, correction=10),
    "std_correction_float": lambda xp, x: xp.std(x, axis=0, correction=0.5),
    "all": lambda xp, x: xp.all(x),
    "any_axis_empty_tuple": lambda xp, x: xp.any(x, axis=()),
    "count_nonzero": lambda xp, x: xp.count_nonzero(x),
    "count_nonzero_axis": lambda xp, x: xp.count_nonzero(x, axis=-1, keepdims=True),
    "argmax": lambda xp, x: xp.argmax(x),
    "argmin_axis_keepdims": lambda xp, x: xp.argmin(x, axis=0, keepdims=True),
    "cumulative_sum": lambda xp, x: xp.cumulative_sum(x, axis=0 if x.ndim else None),
    "cumulative_sum_initial": lambda xp, x: xp.cumulative_sum(x, axis=0 if x.ndim else None, include_initial=True),
    "cumulative_prod_initial": lambda xp, x: xp.cumulative_prod(x, axis=-1 if x.ndim else None,
                                                                include_initial=True),
    "diff": lambda xp, x: xp.diff(x),
    "diff_n2_prepend": lambda xp, x: xp.diff(x, n=2, prepend=x),
}
for _r, _fn in REDUCTIONS.items():
    for _i, _x in RED_INPUTS.items():
        CASES[f"reduce/{_r}/{_i}"] = xp_case(lambda xp, d, fn=_fn, x=_x: fn(xp, x(xp, d)))

# ---- manipulation
M = lambda xp, d: xp.reshape(A(xp, d, list(range(6)), "int64"), (2, 3))  # noqa: E731
MANIPULATION = {
    "reshape_copy_false_view": xp_case(lambda xp, d: xp.reshape(M(xp, d), (3, 2), copy=False)),
    "reshape_copy_false_needs_copy": xp_case(lambda xp, d: xp.reshape(xp.permute_dims(M(xp, d), (1, 0)), (6,),
                                                                      copy=False), raises=ValueError),
    "reshape_two_minus_one": xp_case(lambda xp, d: xp.reshape(M(xp, d), (-1, -1))),
    "reshape_bad_size": xp_case(lambda xp, d: xp.reshape(M(xp, d), (4, 2))),
    "squeeze_non_one": xp_case(lambda xp, d: xp.squeeze(M(xp, d), axis=0), raises=ValueError),
    "squeeze_tuple": xp_case(lambda xp, d: xp.squeeze(xp.reshape(M(xp, d), (1, 2, 1, 3)), axis=(0, 2))),
    "expand_dims_tuple": xp_case(lambda xp, d: xp.expand_dims(M(xp, d), axis=(0, -1))),
    "expand_dims_past": xp_case(lambda xp, d: xp.expand_dims(M(xp, d), axis=4)),
    "expand_dims_negative_end": xp_case(lambda xp, d: xp.expand_dims(M(xp, d), axis=-1)),
    "concat_axis_none": xp_case(lambda xp, d: xp.concat((M(xp, d), M(xp, d)[:1]), axis=None)),
    "concat_mixed_dtypes": xp_case(lambda xp, d: xp.concat((M(xp, d), A(xp, d, [[1, 2, 3]], "int8")))),
    "concat_0d": xp_case(lambda xp, d: xp.concat((A(xp, d, 1, "int64"), A(xp, d, 2, "int64")))),
    "stack_mismatch": xp_case(lambda xp, d: xp.stack((M(xp, d), M(xp, d)[:1]))),
    "stack_axis_neg": xp_case(lambda xp, d: xp.stack((M(xp, d), M(xp, d)), axis=-1)),
    "stack_mixed_dtypes": xp_case(lambda xp, d: xp.stack((A(xp, d, [1], "int8"), A(xp, d, [1.5], "float32")))),
    "roll_tuple": xp_case(lambda xp, d: xp.roll(M(xp, d), shift=(1, -1), axis=(0, 1))),
    "roll_no_axis": xp_case(lambda xp, d: xp.roll(M(xp, d), shift=-7)),
    "roll_mismatched": xp_case(lambda xp, d: xp.roll(M(xp, d), shift=(1, 2), axis=0)),
    "flip_tuple": xp_case(lambda xp, d: xp.flip(M(xp, d), axis=(0, 1))),
    "flip_axis_empty": xp_case(lambda xp, d: xp.flip(M(xp, d), axis=())),
    "moveaxis_tuple": xp_case(lambda xp, d: xp.moveaxis(xp.reshape(M(xp, d), (1, 2, 3)), (0, 1), (2, 0))),
    "moveaxis_repeated": xp_case(lambda xp, d: xp.moveaxis(M(xp, d), (0, 0), (1, 0))),
    "permute_dims_bad": xp_case(lambda xp, d: xp.permute_dims(M(xp, d), (0, 0))),
    "repeat_int": xp_case(lambda xp, d: xp.repeat(M(xp, d), 2, axis=1)),
    "repeat_array": xp_case(lambda xp, d: xp.repeat(M(xp, d), A(xp, d, [0, 2], "int64"), axis=0)),
    "repeat_no_axis": xp_case(lambda xp, d: xp.repeat(M(xp, d), 2)),
    "repeat_negative": xp_case(lambda xp, d: xp.repeat(M(xp, d), -1)),
    "tile_short": xp_case(lambda xp, d: xp.tile(M(xp, d), (2,))),
    "tile_long": xp_case(lambda xp, d: xp.tile(M(xp, d), (2, 1, 2))),
    "tile_zero": xp_case(lambda xp, d: xp.tile(M(xp, d), (0, 1))),
    "unstack_axis1": xp_case(lambda xp, d: xp.unstack(M(xp, d), axis=1)),
    "unstack_0d": xp_case(lambda xp, d: xp.unstack(A(xp, d, 1, "int64"))),
    "broadcast_to_fail": xp_case(lambda xp, d: xp.broadcast_to(M(xp, d), (3, 3))),
    "broadcast_arrays_three": xp_case(lambda xp, d: xp.broadcast_arrays(M(xp, d), A(xp, d, [1, 2, 3], "int64"),
                                                                        A(xp, d, 5, "int64"))),
    "take_negative": xp_case(lambda xp, d: xp.take(A(xp, d, [1.0, 2.0, 3.0], "float64"), A(xp, d, [-1, 0], "int64"))),
    "take_axis": xp_case(lambda xp, d: xp.take(M(xp, d), A(xp, d, [2, 0], "int64"), axis=1)),
    "take_2d_no_axis": xp_case(lambda xp, d: xp.take(M(xp, d), A(xp, d, [1], "int64"))),
    "take_along_axis": xp_case(lambda xp, d: xp.take_along_axis(M(xp, d), A(xp, d, [[2, 0, 1]], "int64"), axis=1)),
    "take_along_axis_default": xp_case(lambda xp, d: xp.take_along_axis(M(xp, d), A(xp, d, [[1], [0]], "int64"))),
    "matrix_transpose_1d": xp_case(lambda xp, d: xp.matrix_transpose(A(xp, d, [1, 2], "int64"))),
    "vecdot_complex": xp_case(lambda xp, d: xp.vecdot(A(xp, d, [1j, 2.0], "complex128"),
                                                      A(xp, d, [1j, 1.0], "complex128"))),
    "vecdot_mismatch": xp_case(lambda xp, d: xp.vecdot(A(xp, d, [1.0, 2.0], "float64"), A(xp, d, [1.0], "float64"))),
    "tensordot_axes_0": xp_case(lambda xp, d: xp.tensordot(A(xp, d, [1.0, 2.0], "float64"),
                                                           A(xp, d, [3.0, 4.0], "float64"), axes=0)),
    "matmul_0d": xp_case(lambda xp, d: xp.matmul(A(xp, d, 2.0, "float64"), A(xp, d, 3.0, "float64"))),
}
CASES.update({f"manipulation/{k}": v for k, v in MANIPULATION.items()})

# ---- searching, sets, sorting
S = {
    "nan": lambda xp, d: A(xp, d, [3.0, NAN, -0.0, 0.0, NAN, -INF, 1.0], "float64"),
    "int8": lambda xp, d: A(xp, d, [5, -128, 5, 127, 0], "int8"),
    "bool": lambda xp, d: A(xp, d, [True, False, True], "bool"),
    "empty": lambda xp, d: A(xp, d, [], "float32"),
    "0d": lambda xp, d: A(xp, d, 1.0, "float32"),
    "matrix": lambda xp, d: xp.reshape(A(xp, d, [2.0, 1.0, 2.0, NAN, 1.0, 0.0], "float64"), (2, 3)),
}
SEARCH = {
    "unique_values": lambda xp, x: xp.sort(xp.unique_values(x)) if x.ndim else xp.unique_values(x),
    "unique_counts": lambda xp, x: (lambda r: (r.values, r.counts))(xp.unique_counts(x)),
    "unique_inverse": lambda xp, x: (lambda r: (r.values, r.inverse_indices))(xp.unique_inverse(x)),
    "unique_all": lambda xp, x: tuple(xp.unique_all(x)),
    "sort": lambda xp, x: xp.sort(x),
    "sort_descending": lambda xp, x: xp.sort(x, descending=True),
    "sort_axis0": lambda xp, x: xp.sort(x, axis=0),
    "argsort_stable": lambda xp, x: xp.argsort(x, stable=True),
    "argsort_descending_stable": lambda xp, x: xp.argsort(x, descending=True, stable=True),
    "nonzero": lambda xp, x: xp.nonzero(x),
    "argmax": lambda xp, x: xp.argmax(x),
    "where_scalars": lambda xp, x: xp.where(x > 0 if x.dtype != xp.bool else x, 1.5, -1.5),
    "where_scalar_array": lambda xp, x: xp.where(x == x, x, 0),
    "searchsorted": lambda xp, x: xp.searchsorted(xp.sort(x), A(xp, "cpu" if xp.__name__ == "numpy" else x.device,
                                                              [0.0, 1.0, NAN], "float64")),
    "searchsorted_right_sorter": lambda xp, x: xp.searchsorted(x, x, side="right", sorter=xp.argsort(x)),
    "searchsorted_bad_side": lambda xp, x: xp.searchsorted(x, x, side="middle"),
}
for _s, _fn in SEARCH.items():
    for _i, _x in S.items():
        CASES[f"search/{_s}/{_i}"] = xp_case(lambda xp, d, fn=_fn, x=_x: fn(xp, x(xp, d)))

# ---- creation
CREATION = {
    "arange_empty": lambda xp, d: xp.arange(5, 1, dtype=xp.int64),
    "arange_fraction": lambda xp, d: xp.arange(0.0, 1.0, 0.3, dtype=xp.float64),
    "arange_negative_step": lambda xp, d: xp.arange(3, -3, -2, dtype=xp.int64),
    "arange_step_zero": lambda xp, d: xp.arange(0, 3, 0, dtype=xp.int64),
    "arange_stop_only_float": lambda xp, d: xp.arange(2.5, dtype=xp.float64),
    "linspace_no_endpoint": lambda xp, d: xp.linspace(0.0, 1.0, 4, endpoint=False, dtype=xp.float64),
    "linspace_num_0": lambda xp, d: xp.linspace(0.0, 1.0, 0, dtype=xp.float64),
    "linspace_num_1_no_endpoint": lambda xp, d: xp.linspace(2.0, 5.0, 1, endpoint=False, dtype=xp.float64),
    "linspace_complex": lambda xp, d: xp.linspace(0j, 1 + 1j, 3, dtype=xp.complex128),
    "eye_k_past": lambda xp, d: xp.eye(3, 4, k=5, dtype=xp.float64),
    "eye_k_negative": lambda xp, d: xp.eye(3, k=-1, dtype=xp.int64),
    "eye_zero": lambda xp, d: xp.eye(0, dtype=xp.float64),
    "full_bool": lambda xp, d: xp.full((2,), True, dtype=xp.bool),
    "full_float_into_int": lambda xp, d: xp.full((2,), 1.5, dtype=xp.int64),
    "full_like_dtype": lambda xp, d: xp.full_like(A(xp, d, [1, 2], "int64"), 3.7, dtype=xp.float64),
    "zeros_negative": lambda xp, d: xp.zeros((-1,), dtype=xp.float64),
    "ones_int_shape": lambda xp, d: xp.ones(3, dtype=xp.int8),
    "tril_k": lambda xp, d: xp.tril(M(xp, d), k=-1),
    "triu_k_past": lambda xp, d: xp.triu(M(xp, d), k=5),
    "tril_1d": lambda xp, d: xp.tril(A(xp, d, [1, 2], "int64")),
    "meshgrid_xy": lambda xp, d: xp.meshgrid(A(xp, d, [1, 2], "int64"), A(xp, d, [3, 4, 5], "int64")),
    "meshgrid_ij": lambda xp, d: xp.meshgrid(A(xp, d, [1, 2], "int64"), A(xp, d, [3, 4, 5], "int64"), indexing="ij"),
    "meshgrid_bad_indexing": lambda xp, d: xp.meshgrid(A(xp, d, [1], "int64"), indexing="xx"),
    "asarray_nested_ragged": lambda xp, d: A(xp, d, [[1, 2], [3]], "int64"),
    "asarray_bool_to_float": lambda xp, d: A(xp, d, [True, False], "float32"),
}
CASES.update({f"creation/{k}": xp_case(v) for k, v in CREATION.items()})
CASES["creation/asarray_list_copy_false"] = xp_case(
    lambda xp, d: xp.asarray([1.0, 2.0], dtype=xp.float64, copy=False), raises=ValueError)
CASES["creation/asarray_array_copy_false_other_dtype"] = xp_case(
    lambda xp, d: xp.asarray(A(xp, d, [1.0], "float32"), dtype=xp.float64, copy=False), raises=ValueError)
CASES["creation/asarray_copy_false_same"] = xp_case(
    lambda xp, d: (lambda x: xp.asarray(x, copy=False) is x or bool(xp.all(xp.asarray(x, copy=False) == x)))(
        A(xp, d, [1.0], "float32")))

_UNSPECIFIED_DTYPE = ("implementation-defined: the standard asks for a numeric (or floating-point) dtype here and "
                      "leaves bool/integer inputs unspecified; NumPy computes (float16 for bool, int16 reciprocal, "
                      "float means of integers), tandem keeps PyTorch's rules (float32, or its dtype refusal)")
_DEFAULT_FLOAT = ("implementation-defined: integer true division and where() with two Python floats give the "
                  "default floating dtype, float64 in NumPy and float32 in tandem")
_FLOOR_DIVIDE = ("the standard's floor_divide special cases (inf // a positive finite is +inf, a positive finite // "
                 "-inf is -0.0) are tandem's; NumPy's differ (NaN, -1.0: array-api-compat lists them as NumPy's "
                 "xfails)")
_NUMPY_DESCENDING = "NumPy's main namespace has no descending= for sort/argsort (the standard's since 2023.12)"
_NUMPY_LENIENT = ("the standard leaves these undefined or asks the caller for a valid form; tandem refuses or "
                  "decides where NumPy is lenient: take of a 2-d array without an axis (the standard requires "
                  "one; NumPy flattens), roll with a shift tuple and one axis (the standard asks for matching "
                  "tuples), tril of a 1-d array, a 2-d sorted sequence for searchsorted (PyTorch's batched form), "
                  "integers to negative powers (unspecified), a NaN searched in a sorted array with NaNs "
                  "(tandem's lands at the end, docs/array_api.md)")
_ZERO_D_AXIS = ("the standard's valid axes are [-N, N), none for a 0-d array, and 'if provided an invalid axis, the "
                "function must raise an exception': tandem's reductions raise (as NumPy's mean and std do); NumPy's "
                "sum/min/count_nonzero take axis 0 or -1 of a 0-d array, and its sort/argsort refuse it where "
                "tandem's sort returns the value (the sorting spec names no such error)")
KNOWN = {}
for _name in CASES:
    _parts = _name.split("/")
    if _parts[0] == "unary" and (_parts[2] == "bool" and _parts[1] not in (
            "negative", "isnan", "isinf", "isfinite", "signbit", "cos") or _name == "unary/reciprocal/int16"):
        KNOWN[_name] = _UNSPECIFIED_DTYPE
    elif _parts[0] in ("reduce", "search") and _parts[2] in ("bool", "int8", "uint8") and _parts[1] in (
            "argmax", "argmin_axis_keepdims", "mean", "mean_axis_neg", "std_correction_float", "var",
            "var_correction_past") and not (_parts[1].startswith(("argm",)) and _parts[2] != "bool"):
        KNOWN[_name] = _UNSPECIFIED_DTYPE
    elif _parts[0] == "search" and _parts[1] in ("sort_descending", "argsort_descending_stable") and _parts[2] in (
            "0d", "bool", "empty", "int8", "matrix", "nan"):
        KNOWN[_name] = _NUMPY_DESCENDING
    elif _parts[:2] == ["search", "where_scalars"] and _parts[2] in ("0d", "bool", "empty", "int8", "matrix", "nan"):
        KNOWN[_name] = _DEFAULT_FLOAT
KNOWN.update({
    "binary/divide/int_scalar_int8": _DEFAULT_FLOAT,
    "binary/floor_divide/array_scalar": _FLOOR_DIVIDE, "binary/floor_divide/float32": _FLOOR_DIVIDE,
    "binary/floor_divide/float64": _FLOOR_DIVIDE,
    "creation/tril_1d": _NUMPY_LENIENT, "integer/pow_int_negative_exponent": _NUMPY_LENIENT,
    "manipulation/roll_mismatched": _NUMPY_LENIENT, "manipulation/take_2d_no_axis": _NUMPY_LENIENT,
    "search/searchsorted/nan": _NUMPY_LENIENT, "search/searchsorted_right_sorter/matrix": _NUMPY_LENIENT,
    "search/searchsorted_right_sorter/bool": _UNSPECIFIED_DTYPE,
    "reduce/count_nonzero_axis/0d": _ZERO_D_AXIS, "reduce/min_axis0/0d": _ZERO_D_AXIS,
    "reduce/sum_keepdims/0d": _ZERO_D_AXIS, "search/argsort_stable/0d": _ZERO_D_AXIS, "search/sort/0d": _ZERO_D_AXIS,
    "search/sort_axis0/0d": _ZERO_D_AXIS,
})
