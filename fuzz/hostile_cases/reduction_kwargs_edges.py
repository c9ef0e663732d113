"""Reductions given the same matrix of hostile dim/keepdim/dtype arguments and inputs, beyond reductions.py and
statistics.py (which hold one or two of each per op): sum, mean, nansum, nanmean, prod, amax, amin, aminmax,
logsumexp, std, var, std_mean, var_mean, median, nanmedian, mode, quantile, nanquantile, count_nonzero, all, any,
max, argmax, each with duplicate dims (directly and through a negative dim), empty dim lists, dims past the rank
either way, a float, bool or str dim, keepdim that is not a bool, integer, bool, complex, float16 and NaN inputs,
empty inputs reduced along the empty and the non-empty dim, 0-d inputs with dim 0, -1 and 1, and dtype= (integer and
bool targets, integer inputs). Then the per-op keywords: correction=/unbiased= (together, as floats, negative, past
the count, positionally in the old (dim, unbiased, keepdim) form), quantile's q (a list, 2-d, empty, out of range,
another dtype) and interpolation, and the method forms with dims given as varargs."""
import math

from . import R, T


def x(L, d, shape=(2, 3), dtype="float32"):
    return R(L, shape, d, dtype)


INPUTS = {
    "f2d": lambda L, d: x(L, d),
    "int": lambda L, d: R(L, (2, 3), d, "float64").round().long(),
    "bool": lambda L, d: x(L, d) > 0,
    "complex": lambda L, d: x(L, d, dtype="complex64"),
    "half": lambda L, d: x(L, d, dtype="float16"),
    "nan": lambda L, d: T(L, [[1.0, math.nan, 3.0], [4.0, 5.0, 6.0]], d),
    "empty": lambda L, d: L.zeros(0, 3, device=d),
    "scalar": lambda L, d: T(L, 2.5, d),
}

# (input, kwargs) patterns; each op adds its own required arguments.
PATTERNS = {
    "dims_duplicate": ("f2d", {"dim": (0, 0)}),
    "dims_negative_duplicate": ("f2d", {"dim": (1, -1)}),
    "dims_empty_list": ("f2d", {"dim": []}),
    "dims_list_ok": ("f2d", {"dim": [0, 1]}),
    "dim_past": ("f2d", {"dim": 2}),
    "dim_negative_past": ("f2d", {"dim": -3}),
    "dims_one_past": ("f2d", {"dim": (0, 5)}),
    "dim_float": ("f2d", {"dim": 1.0}),
    "dim_bool": ("f2d", {"dim": True}),
    "dim_str": ("f2d", {"dim": "x"}),
    "keepdim_int": ("f2d", {"dim": 1, "keepdim": 1}),
    "keepdim_none": ("f2d", {"dim": 1, "keepdim": None}),
    "keepdim_true": ("f2d", {"dim": 1, "keepdim": True}),
    "int_input": ("int", {"dim": 1}),
    "bool_input": ("bool", {"dim": 1}),
    "complex_input": ("complex", {"dim": 1}),
    "half_input": ("half", {"dim": 1}),
    "nan_input": ("nan", {"dim": 1}),
    "empty_dim0": ("empty", {"dim": 0}),
    "empty_dim1": ("empty", {"dim": 1}),
    "empty_all": ("empty", {}),
    "scalar_dim0": ("scalar", {"dim": 0}),
    "scalar_dim_minus1": ("scalar", {"dim": -1}),
    "scalar_dim1": ("scalar", {"dim": 1}),
    "dtype_int64": ("f2d", {"dim": 1, "dtype": "int64"}),
    "dtype_bool": ("f2d", {"dim": 1, "dtype": "bool"}),
    "int_dtype_float64": ("int", {"dim": 1, "dtype": "float64"}),
}

# op -> (callable(L, t, **kw), the patterns it gets). Ops taking one int dim get the list patterns too: their
# parser errors are part of what PyTorch users see.
DTYPE = ("dtype_int64", "dtype_bool", "int_dtype_float64")
COMMON = tuple(p for p in PATTERNS if p not in DTYPE)
FEW = ("dims_duplicate", "dim_past", "int_input", "bool_input", "complex_input", "empty_dim0", "scalar_dim1")
OPS = {
    "sum": (lambda L, t, **kw: L.sum(t, **kw), COMMON + DTYPE),
    "mean": (lambda L, t, **kw: L.mean(t, **kw), FEW + ("keepdim_int", "half_input", "empty_all") + DTYPE),
    "nansum": (lambda L, t, **kw: L.nansum(t, **kw), FEW + DTYPE),
    "nanmean": (lambda L, t, **kw: L.nanmean(t, **kw), FEW + DTYPE),
    "prod": (lambda L, t, **kw: L.prod(t, **kw), FEW + DTYPE),
    "amax": (lambda L, t, **kw: L.amax(t, **kw), FEW + ("dims_empty_list", "empty_all", "nan_input")),
    "amin": (lambda L, t, **kw: L.amin(t, **kw), FEW),
    "aminmax": (lambda L, t, **kw: L.aminmax(t, **kw), FEW),
    "logsumexp": (lambda L, t, **kw: L.logsumexp(t, **kw), FEW),
    "std": (lambda L, t, **kw: L.std(t, **kw), FEW),
    "var": (lambda L, t, **kw: L.var(t, **kw), FEW),
    "std_mean": (lambda L, t, **kw: L.std_mean(t, **kw), FEW),
    "var_mean": (lambda L, t, **kw: L.var_mean(t, **kw), FEW),
    "median": (lambda L, t, **kw: L.median(t, **kw), FEW),
    "nanmedian": (lambda L, t, **kw: L.nanmedian(t, **kw), FEW),
    "mode": (lambda L, t, **kw: L.mode(t, **kw), FEW),
    "quantile": (lambda L, t, **kw: L.quantile(t, 0.5, **kw), FEW),
    "nanquantile": (lambda L, t, **kw: L.nanquantile(t, 0.5, **kw), FEW),
    "count_nonzero": (lambda L, t, **kw: L.count_nonzero(t, **kw), FEW),
    "argmax": (lambda L, t, **kw: L.argmax(t, **kw), FEW),
    "max": (lambda L, t, **kw: L.max(t, **kw), FEW),
}


def case(op, pattern):
    fn, _ = OPS[op]
    source, kw = PATTERNS[pattern]

    def run(L, d):
        args = {k: getattr(L, v) if k == "dtype" else v for k, v in kw.items()}
        return fn(L, INPUTS[source](L, d), **args)
    return run


def sample(L, d):
    return T(L, [[1.0, 2.0, 4.0, 7.0], [0.5, -1.0, 3.0, 2.0]], d)


CASES = {f"{op}/{pattern}": case(op, pattern) for op, (_, patterns) in OPS.items() for pattern in patterns}
CASES.update({
    # ---- std/var: correction and unbiased
    "std/correction_two": lambda L, d: L.std(sample(L, d), dim=1, correction=2),
    "std/correction_count": lambda L, d: L.std(sample(L, d), dim=1, correction=4),
    "std/correction_past_count": lambda L, d: L.std(sample(L, d), dim=1, correction=5),
    "std/correction_negative": lambda L, d: L.std(sample(L, d), dim=1, correction=-1),
    "std/correction_float": lambda L, d: L.std(sample(L, d), dim=1, correction=0.5),
    "std/correction_bool": lambda L, d: L.std(sample(L, d), dim=1, correction=True),
    "std/correction_str": lambda L, d: L.std(sample(L, d), dim=1, correction="1"),
    "std/correction_none": lambda L, d: L.std(sample(L, d), dim=1, correction=None),
    "std/unbiased_and_correction": lambda L, d: L.std(sample(L, d), dim=1, unbiased=False, correction=0),
    "std/unbiased_positional": lambda L, d: L.std(sample(L, d), False),
    "std/dim_unbiased_keepdim_positional": lambda L, d: L.std(sample(L, d), 1, False, True),
    "std/unbiased_int": lambda L, d: L.std(sample(L, d), dim=1, unbiased=1),
    "std/one_element_dim": lambda L, d: L.std(sample(L, d)[:, :1], dim=1),
    "var/correction_count_all": lambda L, d: L.var(sample(L, d), correction=8),
    "var/dim_none_correction": lambda L, d: L.var(sample(L, d), dim=None, correction=0),
    "var/unbiased_kw_only": lambda L, d: L.var(sample(L, d), unbiased=False),
    "var/int_correction": lambda L, d: L.var(T(L, [1, 2, 4], d), correction=0),
    "var/bool": lambda L, d: L.var(T(L, [True, False], d)),
    "var/complex_correction": lambda L, d: L.var(T(L, [1j, 1 + 0j, 2 - 1j], d), correction=0),
    "var_mean/correction_past": lambda L, d: L.var_mean(sample(L, d), dim=1, correction=10),
    "std_mean/unbiased_positional_dim": lambda L, d: L.std_mean(sample(L, d), 1, False),
    "std_mean/keepdim_dims_list": lambda L, d: L.std_mean(sample(L, d), dim=[0, 1], keepdim=True),
    "var/method_dims_varargs": lambda L, d: sample(L, d).var(0, 1),
    "std/method_correction_kw": lambda L, d: sample(L, d).std(1, correction=0),
    # ---- quantile/nanquantile: q and interpolation
    "quantile/q_list": lambda L, d: L.quantile(sample(L, d), [0.25, 0.75]),
    "quantile/q_tensor_1d": lambda L, d: L.quantile(sample(L, d), T(L, [0.25, 0.75], d), dim=1),
    "quantile/q_tensor_2d": lambda L, d: L.quantile(sample(L, d), T(L, [[0.5]], d)),
    "quantile/q_tensor_empty": lambda L, d: L.quantile(sample(L, d), L.zeros(0, device=d), dim=1),
    "quantile/q_tensor_float64": lambda L, d: L.quantile(sample(L, d), T(L, [0.5], d, "float64")),
    "quantile/q_above_one_tensor": lambda L, d: L.quantile(sample(L, d), T(L, [0.5, 1.5], d)),
    "quantile/q_int": lambda L, d: L.quantile(sample(L, d), 1),
    "quantile/q_bool": lambda L, d: L.quantile(sample(L, d), True),
    "quantile/interpolation_upper": lambda L, d: L.quantile(sample(L, d), 0.4, dim=1, interpolation="higher"),
    "quantile/interpolation_nearest_half": lambda L, d: L.quantile(T(L, [1.0, 2.0, 3.0, 4.0], d), 0.5,
                                                                   interpolation="nearest"),
    "quantile/interpolation_none": lambda L, d: L.quantile(sample(L, d), 0.5, interpolation=None),
    "quantile/interpolation_upper_case": lambda L, d: L.quantile(sample(L, d), 0.5, interpolation="Linear"),
    "quantile/keepdim_no_dim": lambda L, d: L.quantile(sample(L, d), 0.5, keepdim=True),
    "quantile/dims_tuple": lambda L, d: L.quantile(sample(L, d), 0.5, dim=(0, 1)),
    "quantile/float64_input_float32_q": lambda L, d: L.quantile(sample(L, d).double(), T(L, [0.5], d)),
    "quantile/half": lambda L, d: L.quantile(sample(L, d).half(), 0.5),
    "quantile/q_tensor_0d": lambda L, d: L.quantile(sample(L, d), T(L, 0.5, d), dim=1),
    "nanquantile/all_nan": lambda L, d: L.nanquantile(T(L, [math.nan, math.nan], d), 0.5),
    "nanquantile/q_list_dim": lambda L, d: L.nanquantile(T(L, [[1.0, math.nan], [2.0, 3.0]], d), [0.0, 1.0],
                                                         dim=1),
    "quantile/method_out_of_range": lambda L, d: sample(L, d).quantile(-0.1),
    # ---- method forms with varargs dims and odd keywords
    "sum/method_dims_varargs": lambda L, d: sample(L, d).sum(0, 1),
    "sum/method_dims_varargs_duplicate": lambda L, d: sample(L, d).sum(1, 1),
    "mean/method_dims_varargs_keepdim": lambda L, d: sample(L, d).mean(0, 1, keepdim=True),
    "amax/method_dims_varargs": lambda L, d: sample(L, d).amax(0, 1),
    "logsumexp/method_dims_list": lambda L, d: sample(L, d).logsumexp([0, 1]),
    "count_nonzero/method_dims_varargs": lambda L, d: sample(L, d).count_nonzero(0, 1),
    "count_nonzero/dims_list_duplicate": lambda L, d: L.count_nonzero(sample(L, d), [1, -1]),
    "nansum/dims_duplicate": lambda L, d: L.nansum(sample(L, d), (0, 0)),
    "prod/dim_tuple_one": lambda L, d: L.prod(sample(L, d), (1,)),
    "aminmax/dim_positional": lambda L, d: L.aminmax(sample(L, d), 1),
    "aminmax/dim_list": lambda L, d: L.aminmax(sample(L, d), dim=[1]),
    "median/dim_none": lambda L, d: L.median(sample(L, d), dim=None),
    "mode/keepdim_no_dim": lambda L, d: L.mode(sample(L, d), keepdim=True),
    "max/dim_and_other": lambda L, d: L.max(sample(L, d), 1, sample(L, d)),
    "all/dims_duplicate_tuple": lambda L, d: L.all(sample(L, d), (0, 0)),
    "any/dims_list": lambda L, d: L.any(sample(L, d), dim=[0, 1]),
    "mean/dtype_positional": lambda L, d: L.mean(sample(L, d), L.float64),
    "sum/dtype_and_keepdim_positional": lambda L, d: L.sum(sample(L, d), 1, True, L.float64),
    "sum/unknown_kw": lambda L, d: L.sum(sample(L, d), axis=1, axes=0),
    "mean/axis_alias": lambda L, d: L.mean(sample(L, d), axis=1),
    "std/axis_alias": lambda L, d: L.std(sample(L, d), axis=1),
    "amax/axis_alias": lambda L, d: L.amax(sample(L, d), axis=(0, 1)),
})

_NANSUM_CUDA = ("PyTorch's CUDA nansum says \"nansum does not support complex inputs\" (as tandem's cuda does); the "
                "oracle runs PyTorch's CPU kernel, which says \"nansum on CPU ...\"")
KNOWN = {
    # keepdim is a bool since session 43 (sum/keepdim_int, sum/method_dims_varargs(_duplicate),
    # amax/method_dims_varargs, mean/method_dims_varargs_keepdim, sum/keepdim_none match PyTorch); since session 45
    # a refused sum/mean call is explained from PyTorch's overloads (python/src/parser_errors.h,
    # register_parser_signatures): mean/keepdim_int's listing, sum/dtype_and_keepdim_positional's "takes from 2 to 3",
    # sum/unknown_kw's 'axis' (NumPy's alias, which PyTorch's errors do not know)
    # a dim of another type (sum/dim_bool, dim_float, dim_str, mean/dtype_positional) gets PyTorch's listing since
    # session 44 (refuse_as_invalid_combination)
    # the one-int-dim reductions' dim errors (argmax/max/median/mode/nanmedian/prod dims_duplicate, median/dim_none,
    # prod/dim_tuple_one) match PyTorch since session 44: a keyword dim names no position, prod's and max's are
    # worded from the call (python/src/parser_errors.cpp, refuse_as_invalid_combination)
    # quantile's and std's refusals (q lists, tuple dims, interpolation=None; unbiased numbers, unbiased with
    # correction, str corrections) are PyTorch's listings since session 44
    # max/dim_and_other (max(t, 1, other) read the tensor's truth value) is PyTorch's TypeError since session 43
    "nansum/complex_input": _NANSUM_CUDA, "nanmean/complex_input": _NANSUM_CUDA,
}
