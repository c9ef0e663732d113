"""The reductions' dim arguments as a matrix, beyond reductions.py, method_kwargs.py and stats_matrix.py (one case
per hostile value there): sum, mean, prod, amax, amin, aminmax, logsumexp, norm, std, var, std_mean, var_mean,
count_nonzero, all, any, nansum, nanmean, median and mode, each given dim as None, an int, a negative int, an empty
list and tuple, a list with a duplicate (also one that repeats after wrapping), a dim past the rank, a tuple of
bools, a float, a two-dim tuple and a string, with and without keepdim, crossed with one list of inputs: float32
(2, 3) with a NaN-free and a NaN row, float64, float16, int64, uint8, bool, complex, 0-d, (0, 3) and a 1-d vector;
and the dtype= keyword (float64, int32 into mean, bool, a complex dtype for a real input) and out= of the wrong
dtype."""
import math

from . import R, T

NAN = math.nan

INPUTS = {
    "f32": lambda L, d: R(L, (2, 3), d, "float32"),
    "f32_nan": lambda L, d: T(L, [[1.0, NAN, 3.0], [-2.0, 0.5, 4.0]], d, "float32"),
    "f64": lambda L, d: R(L, (2, 3), d, "float64"),
    "f16": lambda L, d: R(L, (2, 3), d, "float16"),
    "i64": lambda L, d: T(L, [[1, -2, 3], [4, 0, -6]], d, "int64"),
    "u8": lambda L, d: T(L, [[1, 200, 3], [4, 0, 255]], d, "uint8"),
    "bool": lambda L, d: T(L, [[True, False, True], [True, True, True]], d, "bool"),
    "c64": lambda L, d: R(L, (2, 3), d, "float32").to(L.complex64) * (1 - 1j),
    "scalar": lambda L, d: T(L, 2.5, d),
    "empty": lambda L, d: L.empty(0, 3, device=d),
    "vec": lambda L, d: T(L, [3.0, -1.0, 2.0, 5.0], d, "float32"),
}

DIMS = {
    "none": {"dim": None},
    "int0": {"dim": 0},
    "neg1": {"dim": -1},
    "empty_list": {"dim": []},
    "empty_tuple": {"dim": ()},
    "dup": {"dim": [0, 0]},
    "dup_wrapped": {"dim": [1, -1]},
    "past": {"dim": 2},
    "past_negative": {"dim": -3},
    "bools": {"dim": (True, False)},
    "float": {"dim": 0.5},
    "pair": {"dim": (0, 1)},
    "str": {"dim": "a"},
    "keep_neg1": {"dim": -1, "keepdim": True},
    "keep_pair": {"dim": (1, 0), "keepdim": True},
    "keep_empty_list": {"dim": [], "keepdim": True},
    "keep_none": {"dim": None, "keepdim": True},
}


def _t(result):
    return tuple(result) if isinstance(result, tuple) else result


OPS = {
    "sum": lambda L, x, kw: L.sum(x, **kw),
    "mean": lambda L, x, kw: L.mean(x, **kw),
    "nansum": lambda L, x, kw: L.nansum(x, **kw),
    "nanmean": lambda L, x, kw: L.nanmean(x, **kw),
    "prod": lambda L, x, kw: L.prod(x, **kw),
    "amax": lambda L, x, kw: L.amax(x, **kw),
    "amin": lambda L, x, kw: x.amin(**kw),
    "aminmax": lambda L, x, kw: _t(L.aminmax(x, **kw)),
    "logsumexp": lambda L, x, kw: L.logsumexp(x, **kw),
    "norm": lambda L, x, kw: L.norm(x, 2, **kw),
    "vector_norm": lambda L, x, kw: L.linalg.vector_norm(x, 2, **kw),
    "std": lambda L, x, kw: L.std(x, **kw),
    "var": lambda L, x, kw: x.var(**kw),
    "std_mean": lambda L, x, kw: L.std_mean(x, **kw),
    "var_mean": lambda L, x, kw: L.var_mean(x, **kw),
    "count_nonzero": lambda L, x, kw: L.count_nonzero(x, **kw),
    "all": lambda L, x, kw: L.all(x, **kw),
    "any": lambda L, x, kw: x.any(**kw),
    "median": lambda L, x, kw: _t(L.median(x, **kw)),
    "nanmedian": lambda L, x, kw: _t(x.nanmedian(**kw)),
    "mode": lambda L, x, kw: _t(L.mode(x, **kw)),
}

CASES = {}
for _op, _fn in OPS.items():
    for _dn, _kw in DIMS.items():
        for _i, _x in INPUTS.items():
            CASES[f"{_op}/{_dn}/{_i}"] = lambda L, d, fn=_fn, x=_x, kw=_kw: fn(L, x(L, d), dict(kw))

# dtype= (the reductions that take it) and out= of another dtype
DTYPES = {"f64": "float64", "i32": "int32", "bool": "bool", "c128": "complex128", "f16": "float16"}
for _op in ("sum", "mean", "nansum", "nanmean", "prod", "logsumexp", "norm", "vector_norm"):
    for _dn, _dt in DTYPES.items():
        for _i in ("f32", "i64", "bool", "c64", "scalar", "empty"):
            if _op in ("logsumexp", "norm"):
                continue  # no dtype= keyword in PyTorch's signatures (their TypeError is checked once below)
            CASES[f"{_op}/dtype_{_dn}/{_i}"] = lambda L, d, op=_op, dt=_dt, x=INPUTS[_i]: OPS[op](
                L, x(L, d), {"dtype": getattr(L, dt)})
            CASES[f"{_op}/dim_dtype_{_dn}/{_i}"] = lambda L, d, op=_op, dt=_dt, x=INPUTS[_i]: OPS[op](
                L, x(L, d), {"dim": -1, "dtype": getattr(L, dt)})
    CASES[f"{_op}/dtype_str"] = lambda L, d, op=_op: OPS[op](L, INPUTS["f32"](L, d), {"dim": 0, "dtype": "float64"})
    for _on, _dt in (("f64", "float64"), ("i64", "int64"), ("f16", "float16")):
        CASES[f"{_op}/out_{_on}"] = lambda L, d, op=_op, dt=_dt: (lambda out: (getattr(L, op.replace(
            "vector_norm", "sum"))(INPUTS["f32"](L, d), 0, out=out) if op not in ("norm", "vector_norm") else
            L.linalg.vector_norm(INPUTS["f32"](L, d), 2, 0, out=out), out))(
            L.empty(3, dtype=getattr(L, dt), device=d))
for _op in ("amax", "amin", "all", "any", "count_nonzero"):
    CASES[f"{_op}/dtype_keyword"] = lambda L, d, op=_op: getattr(L, op)(INPUTS["f32"](L, d), 0, dtype=L.float64)
CASES["mean/int_no_dtype_dim"] = lambda L, d: L.mean(INPUTS["i64"](L, d), (0, 1))
CASES["mean/method_dtype_positional"] = lambda L, d: INPUTS["f32"](L, d).mean(0, False, L.float64)
CASES["sum/method_dtype_positional"] = lambda L, d: INPUTS["i64"](L, d).sum(0, True, L.float32)
CASES["std/correction_and_dims"] = lambda L, d: L.std(INPUTS["f32"](L, d), [0, 1], correction=2)
CASES["std/correction_past"] = lambda L, d: L.std(INPUTS["f32"](L, d), [], correction=7)
CASES["var/unbiased_dims_list"] = lambda L, d: L.var(INPUTS["f32"](L, d), [1], False, True)
CASES["logsumexp/no_dim"] = lambda L, d: L.logsumexp(INPUTS["f32"](L, d))
CASES["logsumexp/int_input"] = lambda L, d: L.logsumexp(INPUTS["i64"](L, d), 1)
CASES["median/dim_list"] = lambda L, d: L.median(INPUTS["f32"](L, d), [0])
CASES["mode/dim_none"] = lambda L, d: tuple(L.mode(INPUTS["f32"](L, d), None))
CASES["count_nonzero/dims_list_keepdim"] = lambda L, d: L.count_nonzero(INPUTS["f32"](L, d), [0], keepdim=True)

# Fixed in C++ in session 48 (tests/python/test_hostile_inputs21.py, test_fixed_in_cpp): a dim PyTorch's parser does not
# read (a tuple whose first item is a bool, a float, a str) is the listing of the overloaded reductions' (sum, mean, std,
# var, all, any) and "argument 'dim' must be tuple of ints, not tuple" for one signature's (amax, amin, logsumexp; given
# by position, "but found element of type bool at pos 0"); all/any's dtype= is their listing; torch.norm's dim and dtype
# errors name linalg_vector_norm and position 3; prod(x, dim=None) and logsumexp without a dim or with None are
# refused; sum/mean/prod take a str dtype only in a NumPy call (np.sum(t, dtype="float64")).
_FIXED = "fixed in C++ (session 48)"
# mean/prod of a complex input with a real or bool dtype= compute over the real parts (PyTorch's cast, with its
# warning) since session 47 (src/ops/reduce.cpp as_reduce_dtype); a float16/bfloat16 mean of a wider input is a
# float32 sum and division rounded once, as PyTorch's.
_EMPTY_LOGSUMEXP = ("PyTorch's logsumexp with an empty dim list fails inside its own composite (\"output with shape [] "
                    "doesn't match the broadcast shape\"); tandem reduces over every dim, as sum(x, []) does")
_NANSUM_CUDA = ("cuda-only: tandem's nansum refuses complex inputs on every device (PyTorch's CPU refusal, naming no "
                "device off the CPU); PyTorch's CUDA nansum sums them")
_MODE_NAN = "which value mode reports when every value occurs once and one is NaN (PyTorch's is its sort's last)"


def _known(name):
    parts = name.split("/")
    op, variant, x = parts[0], parts[1], parts[-1]
    if op in ("sum", "mean", "std", "var", "all", "any", "amax", "amin", "logsumexp") and variant in (
            "bools", "float", "str") and (op in ("std", "var", "all", "any") or variant == "bools"):
        return _FIXED
    if op in ("all", "any") and variant == "dtype_keyword":
        return _FIXED
    if op == "norm" and variant in ("bools", "float", "str", "dtype_str"):
        return _FIXED
    if op == "prod" and variant in ("none", "keep_none") or op == "logsumexp" and variant in (
            "none", "keep_none", "no_dim"):
        return _FIXED
    if op in ("sum", "mean", "prod") and variant == "dtype_str":
        return _FIXED
    if op == "logsumexp" and variant in ("empty_list", "empty_tuple") and x not in ("scalar", "empty"):
        return _EMPTY_LOGSUMEXP
    if op in ("nansum", "nanmean") and x == "c64" and variant not in (
            "bools", "float", "str", "dup", "dup_wrapped", "past", "past_negative") and not (
            op == "nanmean" and variant.endswith(("_bool", "_i32"))):
        return _NANSUM_CUDA
    if name == "mode/int0/f32_nan":
        return _MODE_NAN
    return None


def cpp_fixed_case(name):
    """The cases session 48's C++ change fixed (the reductions' dim and dtype parsing)."""
    return _known(name) == _FIXED


KNOWN = {name: reason for name in CASES if (reason := _known(name)) and reason != _FIXED}
