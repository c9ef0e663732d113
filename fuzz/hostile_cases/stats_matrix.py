"""The order statistics, counts and moments as a matrix, beyond statistics.py, scans_sorting.py and
histograms_search.py (one case per hostile value there): median, nanmedian, mode, kthvalue, quantile and nanquantile
(each interpolation; q as a float, list, tensor, 0-d tensor, past [0, 1], NaN; dims and keepdim), histc, histogram
(bins as an int or a tensor, range, weight, density), bincount (weights, minlength, negatives), count_nonzero,
aminmax, var_mean and std_mean (correction= and unbiased=, dims), cov and corrcoef (fweights/aweights), each crossed
with one list of inputs: float with and without NaN, with infs, all-NaN, integer, bool, float16, 0-d, empty and 2-d
(3, 4). Ties are kept out of the index results, whose tie order PyTorch does not specify (mode's values only)."""
import math

from . import R, T

NAN, INF = math.nan, math.inf

INPUTS = {
    "float": lambda L, d: T(L, [3.5, -1.0, 2.25, 0.0, 7.0, -4.5], d),
    "float_nan": lambda L, d: T(L, [3.5, NAN, 2.25, 0.0, NAN, -4.5], d),
    "float_inf": lambda L, d: T(L, [INF, -1.0, -INF, 0.5, 7.0], d),
    "all_nan": lambda L, d: T(L, [NAN, NAN, NAN], d),
    "float64": lambda L, d: T(L, [3.5, -1.0, 2.25, 0.0, 7.0], d, "float64"),
    "int64": lambda L, d: T(L, [5, -3, 2, 9, 0, 11], d, "int64"),
    "uint8": lambda L, d: T(L, [5, 3, 200, 9], d, "uint8"),
    "bool": lambda L, d: T(L, [True, False, True], d, "bool"),
    "float16": lambda L, d: T(L, [3.5, -1.0, 2.25, 0.0, 7.0], d, "float16"),
    "bfloat16": lambda L, d: T(L, [3.5, -1.0, 2.25, 0.0, 7.0], d, "bfloat16"),
    "scalar_0d": lambda L, d: T(L, 2.5, d),
    "empty": lambda L, d: L.empty(0, device=d),
    "empty_2d": lambda L, d: L.empty(0, 3, device=d),
    "matrix": lambda L, d: R(L, (3, 4), d, "float32"),
    "matrix_nan": lambda L, d: R(L, (3, 4), d, "float32").index_fill(1, L.tensor([1], device=d), NAN),
    "complex": lambda L, d: T(L, [1j, 2.0], d),
}

REDUCTIONS = {
    "median": lambda L, x: x.median(),
    "median_dim": lambda L, x: tuple(x.median(dim=-1)),
    "median_dim0_keepdim": lambda L, x: tuple(L.median(x, 0, keepdim=True)),
    "nanmedian": lambda L, x: x.nanmedian(),
    "nanmedian_dim": lambda L, x: tuple(x.nanmedian(-1)),
    "mode_values": lambda L, x: x.mode(-1)[0],
    "kthvalue_1": lambda L, x: tuple(x.kthvalue(1, -1)),
    "kthvalue_last": lambda L, x: tuple(x.kthvalue(x.shape[-1] if x.dim() else 1, -1)),
    "kthvalue_0": lambda L, x: tuple(x.kthvalue(0)),
    "kthvalue_past": lambda L, x: tuple(x.kthvalue(100)),
    "kthvalue_keepdim": lambda L, x: tuple(L.kthvalue(x, 2, 0, True)),
    "count_nonzero": lambda L, x: L.count_nonzero(x),
    "count_nonzero_dim": lambda L, x: L.count_nonzero(x, dim=-1),
    "count_nonzero_dims": lambda L, x: x.count_nonzero(dim=(0, -1)),
    "aminmax": lambda L, x: tuple(L.aminmax(x)),
    "aminmax_dim": lambda L, x: tuple(x.aminmax(dim=0, keepdim=True)),
    "var_mean": lambda L, x: L.var_mean(x),
    "var_mean_dim_corr0": lambda L, x: L.var_mean(x, dim=-1, correction=0),
    "var_mean_corr_past": lambda L, x: L.var_mean(x, correction=10),
    "var_mean_corr_float": lambda L, x: L.var_mean(x, 0, correction=0.5),
    "var_mean_unbiased_false": lambda L, x: L.var_mean(x, unbiased=False),
    "var_mean_dim_unbiased": lambda L, x: L.var_mean(x, 0, True, keepdim=True),
    "std_mean": lambda L, x: L.std_mean(x),
    "std_mean_corr_negative": lambda L, x: L.std_mean(x, dim=0, correction=-1),
    "std_mean_dim_none_keepdim": lambda L, x: L.std_mean(x, dim=None, keepdim=True),
    "std_mean_unbiased_and_correction": lambda L, x: L.std_mean(x, unbiased=True, correction=1),
}

QUANTILE_Q = {
    "half": 0.5, "zero": 0.0, "one": 1.0, "past": 1.5, "negative": -0.1, "nan": NAN,
    "list": [0.1, 0.9], "tensor": "tensor", "tensor_0d": "tensor_0d", "tensor_past": "tensor_past",
    "tensor_2d": "tensor_2d", "int": 1,
}


def _q(L, x, q):
    if not isinstance(q, str):
        return q
    return {"tensor": lambda: L.tensor([0.25, 0.75], device=x.device, dtype=x.dtype if x.is_floating_point() else
                                       None),
            "tensor_0d": lambda: L.tensor(0.3, device=x.device),
            "tensor_past": lambda: L.tensor([0.2, 1.2], device=x.device),
            "tensor_2d": lambda: L.tensor([[0.2]], device=x.device)}[q]()


CASES = {}
for _r, _fn in REDUCTIONS.items():
    for _i, _x in INPUTS.items():
        CASES[f"{_r}/{_i}"] = lambda L, d, fn=_fn, x=_x: fn(L, x(L, d))

for _name in ("quantile", "nanquantile"):
    for _qn, _qv in QUANTILE_Q.items():
        for _i in ("float", "float_nan", "all_nan", "float64", "int64", "float16", "scalar_0d", "empty", "matrix"):
            CASES[f"{_name}/q_{_qn}/{_i}"] = lambda L, d, n=_name, q=_qv, x=INPUTS[_i]: getattr(L, n)(
                x(L, d), _q(L, x(L, d), q))
    for _mode in ("linear", "lower", "higher", "midpoint", "nearest", "bogus"):
        for _i in ("float", "float_nan", "matrix_nan", "empty_2d"):
            CASES[f"{_name}/{_mode}/{_i}"] = lambda L, d, n=_name, m=_mode, x=INPUTS[_i]: getattr(L, n)(
                x(L, d), L.tensor([0.0, 0.3, 0.5, 1.0], device=d), dim=-1, interpolation=m)
        CASES[f"{_name}/{_mode}/keepdim"] = lambda L, d, n=_name, m=_mode: getattr(L, n)(
            INPUTS["matrix"](L, d), 0.4, dim=0, keepdim=True, interpolation=m)
    CASES[f"{_name}/dim_past"] = lambda L, d, n=_name: getattr(L, n)(INPUTS["matrix"](L, d), 0.5, dim=2)
    CASES[f"{_name}/out"] = lambda L, d, n=_name: getattr(L, n)(INPUTS["float"](L, d), 0.5, out=L.empty(0, device=d))
    CASES[f"{_name}/out_float64"] = lambda L, d, n=_name: getattr(L, n)(
        INPUTS["float"](L, d), 0.5, out=L.empty((), device=d, dtype=L.float64))
    CASES[f"{_name}/q_float64_x_float32"] = lambda L, d, n=_name: getattr(L, n)(
        INPUTS["float"](L, d), L.tensor([0.5], device=d, dtype=L.float64))
    CASES[f"{_name}/q_cpu"] = lambda L, d, n=_name: getattr(L, n)(INPUTS["float"](L, d), L.tensor([0.5]))
    CASES[f"{_name}/interp_none"] = lambda L, d, n=_name: getattr(L, n)(INPUTS["float"](L, d), 0.5,
                                                                        interpolation=None)

HISTC = {
    "default": lambda L, x: L.histc(x),
    "bins4_range": lambda L, x: L.histc(x, bins=4, min=-2, max=3),
    "bins0": lambda L, x: L.histc(x, bins=0),
    "bins_negative": lambda L, x: L.histc(x, bins=-3),
    "min_gt_max": lambda L, x: L.histc(x, bins=3, min=5, max=1),
    "range_nan": lambda L, x: L.histc(x, bins=3, min=NAN, max=1),
    "range_inf": lambda L, x: L.histc(x, bins=3, min=0, max=INF),
    "min_eq_max": lambda L, x: L.histc(x, bins=3, min=2, max=2),
    "out": lambda L, x: L.histc(x, bins=3, out=L.empty(7, device=x.device, dtype=x.dtype)),
}
HISTOGRAM = {
    "bins_int": lambda L, x: tuple(L.histogram(x, 3)),
    "bins_int_range": lambda L, x: tuple(L.histogram(x, 4, range=(-2.0, 3.0))),
    "bins_int_range_reversed": lambda L, x: tuple(L.histogram(x, 4, range=(3.0, -2.0))),
    "bins_int_range_inf": lambda L, x: tuple(L.histogram(x, 4, range=(0.0, INF))),
    "bins_int_density": lambda L, x: tuple(L.histogram(x, 3, density=True)),
    "bins_int_weight": lambda L, x: tuple(L.histogram(x, 3, weight=L.ones(x.shape, device=x.device,
                                                                          dtype=x.dtype) * 2)),
    "bins_int_weight_density": lambda L, x: tuple(L.histogram(x, 3, weight=L.ones(x.shape, device=x.device,
                                                                                  dtype=x.dtype), density=True)),
    "bins_tensor": lambda L, x: tuple(L.histogram(x, L.tensor([-5.0, 0.0, 1.0, 8.0], device=x.device,
                                                             dtype=x.dtype))),
    "bins_tensor_unsorted": lambda L, x: tuple(L.histogram(x, L.tensor([1.0, 0.0, 8.0], device=x.device,
                                                                      dtype=x.dtype))),
    "bins_tensor_density": lambda L, x: tuple(L.histogram(x, L.tensor([-5.0, 0.0, 1.0, 8.0], device=x.device,
                                                                     dtype=x.dtype), density=True)),
    "bins_tensor_range": lambda L, x: tuple(L.histogram(x, L.tensor([-5.0, 8.0], device=x.device, dtype=x.dtype),
                                                        range=(0.0, 1.0))),
    "bins_zero": lambda L, x: tuple(L.histogram(x, 0)),
    "bins_float": lambda L, x: tuple(L.histogram(x, 2.5)),
    "weight_wrong_dtype": lambda L, x: tuple(L.histogram(x, 3, weight=L.ones(x.shape, device=x.device,
                                                                             dtype=L.float64))),
}
for _i in ("float", "float_nan", "float_inf", "all_nan", "float64", "int64", "bool", "float16", "scalar_0d", "empty",
           "matrix"):
    for _h, _fn in HISTC.items():
        CASES[f"histc/{_h}/{_i}"] = lambda L, d, fn=_fn, x=INPUTS[_i]: fn(L, x(L, d))
    for _h, _fn in HISTOGRAM.items():
        CASES[f"histogram/{_h}/{_i}"] = lambda L, d, fn=_fn, x=INPUTS[_i]: fn(L, x(L, d))

BIN_INPUTS = {
    "ok": lambda L, d: T(L, [0, 3, 1, 3, 5], d),
    "negative": lambda L, d: T(L, [0, -1, 2], d),
    "empty": lambda L, d: L.empty(0, dtype=L.int64, device=d),
    "int8": lambda L, d: T(L, [0, 3, 1], d, "int8"),
    "uint8": lambda L, d: T(L, [0, 255, 1], d, "uint8"),
    "bool": lambda L, d: T(L, [True, False, True], d),
    "float": lambda L, d: T(L, [0.0, 1.0], d),
    "2d": lambda L, d: T(L, [[0, 1]], d),
    "0d": lambda L, d: T(L, 2, d),
}
BIN_ARGS = {
    "plain": {},
    "minlength": {"minlength": 8},
    "minlength_zero": {"minlength": 0},
    "minlength_negative": {"minlength": -1},
    "weights_float": {"weights": "float32"},
    "weights_float64": {"weights": "float64"},
    "weights_int": {"weights": "int64"},
    "weights_half": {"weights": "float16"},
    "weights_short": {"weights": "short"},
    "weights_minlength": {"weights": "float32", "minlength": 9},
}


def _bincount(L, d, x, kw):
    kw = dict(kw)
    if kw.get("weights") == "short":
        kw["weights"] = L.ones(1, device=d)
    elif "weights" in kw:
        kw["weights"] = L.arange(x.numel() if x.dim() else 1, device=d).to(getattr(L, kw["weights"])).reshape(
            x.shape) + 0.5 if kw["weights"].startswith("float") else L.arange(
                x.numel() if x.dim() else 1, device=d, dtype=getattr(L, kw["weights"])).reshape(x.shape)
    return L.bincount(x, **kw)


for _i, _x in BIN_INPUTS.items():
    for _a, _kw in BIN_ARGS.items():
        CASES[f"bincount/{_a}/{_i}"] = lambda L, d, x=_x, kw=_kw: _bincount(L, d, x(L, d), kw)

COV_INPUTS = {
    "ok": lambda L, d: R(L, (2, 5), d, "float32"),
    "nan": lambda L, d: T(L, [[1.0, NAN, 3.0], [2.0, 1.0, 0.0]], d),
    "int": lambda L, d: T(L, [[1, 4, 3], [2, 1, 0]], d),
    "bool": lambda L, d: T(L, [[True, False, True]], d),
    "half": lambda L, d: T(L, [[1.0, 4.0, 3.0]], d, "float16"),
    "0d": lambda L, d: T(L, 2.0, d),
    "empty": lambda L, d: L.empty(2, 0, device=d),
    "one_obs": lambda L, d: T(L, [[1.0], [2.0]], d),
}
COV_ARGS = {
    "plain": lambda L, d, n: {},
    "correction0": lambda L, d, n: {"correction": 0},
    "correction_n": lambda L, d, n: {"correction": n},
    "correction_float": lambda L, d, n: {"correction": 0.5},
    "fweights": lambda L, d, n: {"fweights": L.arange(1, n + 1, device=d)},
    "fweights_zero": lambda L, d, n: {"fweights": L.zeros(n, dtype=L.int64, device=d)},
    "fweights_float": lambda L, d, n: {"fweights": L.ones(n, device=d)},
    "aweights": lambda L, d, n: {"aweights": L.arange(1, n + 1, device=d).double()},
    "aweights_int": lambda L, d, n: {"aweights": L.arange(1, n + 1, device=d)},
    "aweights_zero": lambda L, d, n: {"aweights": L.zeros(n, device=d)},
    "aweights_nan": lambda L, d, n: {"aweights": L.full((n,), NAN, device=d)},
    "both": lambda L, d, n: {"fweights": L.ones(n, dtype=L.int64, device=d), "aweights": L.ones(n, device=d)},
}


def _nobs(x):
    return x.shape[-1] if x.dim() else 1


for _i, _x in COV_INPUTS.items():
    for _a, _kw in COV_ARGS.items():
        CASES[f"cov/{_a}/{_i}"] = lambda L, d, x=_x, kw=_kw: (lambda t: L.cov(t, **kw(L, d, _nobs(t))))(x(L, d))
    CASES[f"corrcoef/{_i}"] = lambda L, d, x=_x: L.corrcoef(x(L, d))

_CUDA_ONLY = ("cuda-only: a CPU q with a GPU input is refused (PyTorch's quantile() has the same device check); the "
              "oracle runs on the CPU, where nothing mismatches")
_ONE_OBSERVATION = ("PyTorch's cov with one observation and float64 aweights on a float32 input fails in its mm "
                    "('expected m1 and m2 to have the same dtype'); tandem computes in the promoted dtype, as PyTorch "
                    "does for two or more observations")
_NEGATIVE_NAN = ("PyTorch prints its NaN range as [-nan, -nan] (the sign bit its min/max reduction leaves on the NaN); "
                 "tandem's reads [nan, nan]")
_NAN_TIES = "which NaN kthvalue reports (its index) among equal NaNs: the tie order is not specified; the values match"
# histogram's parser listings (a float or bool bins, range= with bin edges), its dtype checks in PyTorch's order
# (range search, linspace, weights, kernel) and float16 inputs are PyTorch's since session 47
# (python/src/order_stats.cpp, src/ops/histogram.cpp).
# The variance of an empty reduction is NaN whatever the correction (a negative one gave 0) since session 46
# (src/ops/reduce_composite.cpp, dof).
KNOWN = {}
for _name in CASES:
    _parts = _name.split("/")
    if _parts[0] == "histc" and _parts[1] in ("default", "min_eq_max", "out") and _parts[2] in ("all_nan",
                                                                                                  "float_nan"):
        KNOWN[_name] = _NEGATIVE_NAN
KNOWN.update({
    "cov/aweights/0d": _ONE_OBSERVATION, "cov/aweights/one_obs": _ONE_OBSERVATION,
    "kthvalue_1/all_nan": _NAN_TIES, "kthvalue_keepdim/all_nan": _NAN_TIES, "kthvalue_keepdim/matrix_nan": _NAN_TIES,
    "quantile/q_cpu": _CUDA_ONLY, "nanquantile/q_cpu": _CUDA_ONLY,
})
