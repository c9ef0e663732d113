"""Set and search ops as a matrix, beyond histograms_search.py and scans_sorting.py (one case per hostile value
there): unique (sorted, return_inverse, return_counts, dim) and unique_consecutive crossed with one list of inputs
(NaN, +-0, infs, ints, bools, float16, 0-d, empty, 2-d with repeated rows, non-contiguous); searchsorted crossed
with sequences (sorted, unsorted, with NaN/inf, int, float16, 2-d, empty, 0-d) and values (tensor, Python scalar,
0-d, another dtype, 2-d of the wrong leading size, empty) and options (right, side, both disagreeing, a bad side,
sorter, out_int32, out=); bucketize with the same values; isin with elements and test elements as tensors or
scalars, assume_unique and invert, mixed dtypes; sort and argsort with stable=, descending= and dims; topk with k of
0, past the size, negative, on dims and with largest=False."""
import math

from . import R, T

NAN, INF = math.nan, math.inf

SET_INPUTS = {
    "float": lambda L, d: T(L, [3.0, 1.0, 3.0, -2.0, 1.0, 0.5], d),
    "nan": lambda L, d: T(L, [NAN, 1.0, NAN, 1.0, -INF, INF, INF], d),
    "signed_zero": lambda L, d: T(L, [0.0, -0.0, 0.0, 1.0], d),
    "int64": lambda L, d: T(L, [5, -3, 5, 2, -3, 2 ** 62], d),
    "int8": lambda L, d: T(L, [-128, 127, -128, 0], d, "int8"),
    "uint8": lambda L, d: T(L, [255, 0, 255, 7], d, "uint8"),
    "bool": lambda L, d: T(L, [True, False, True], d),
    "float16": lambda L, d: T(L, [1.5, NAN, 1.5, -0.5], d, "float16"),
    "bfloat16": lambda L, d: T(L, [1.5, 2.0, 1.5], d, "bfloat16"),
    "complex": lambda L, d: T(L, [1j, 1j, 2.0], d),
    "scalar_0d": lambda L, d: T(L, 4.0, d),
    "empty": lambda L, d: L.empty(0, device=d),
    "empty_2d": lambda L, d: L.empty(0, 3, device=d),
    "rows": lambda L, d: T(L, [[1, 2], [0, 5], [1, 2], [0, 5], [0, 4]], d),
    "rows_float_nan": lambda L, d: T(L, [[1.0, NAN], [1.0, NAN], [0.0, 1.0]], d),
    "strided": lambda L, d: T(L, [[3, 1], [3, 2], [1, 9]], d).t(),
}
UNIQUE = {
    "plain": lambda L, x: L.unique(x),
    "unsorted": lambda L, x: L.unique(x, sorted=False).sort().values,
    "inverse": lambda L, x: L.unique(x, return_inverse=True),
    "counts": lambda L, x: L.unique(x, return_counts=True),
    "inverse_counts": lambda L, x: L.unique(x, return_inverse=True, return_counts=True),
    "dim0": lambda L, x: L.unique(x, dim=0, return_inverse=True, return_counts=True),
    "dim1": lambda L, x: L.unique(x, dim=1),
    "dim_neg": lambda L, x: L.unique(x, dim=-1, return_counts=True),
    "dim_past": lambda L, x: L.unique(x, dim=2),
    "method": lambda L, x: x.unique(True, True),
    "consecutive": lambda L, x: L.unique_consecutive(x),
    "consecutive_inverse_counts": lambda L, x: L.unique_consecutive(x, return_inverse=True, return_counts=True),
    "consecutive_dim0": lambda L, x: L.unique_consecutive(x, return_counts=True, dim=0),
    "consecutive_dim_past": lambda L, x: L.unique_consecutive(x, dim=3),
    "consecutive_method": lambda L, x: x.unique_consecutive(return_inverse=True),
}

CASES = {}
for _u, _fn in UNIQUE.items():
    for _i, _x in SET_INPUTS.items():
        CASES[f"unique/{_u}/{_i}"] = lambda L, d, fn=_fn, x=_x: fn(L, x(L, d))

SEQUENCES = {
    "sorted": lambda L, d: T(L, [-1.0, 0.0, 0.0, 2.5, 7.0], d),
    "unsorted": lambda L, d: T(L, [3.0, -1.0, 2.0], d),
    "nan_inf": lambda L, d: T(L, [-INF, 0.0, INF, NAN], d),
    "int64": lambda L, d: T(L, [-5, 0, 3, 3, 9], d),
    "float16": lambda L, d: T(L, [-1.0, 0.5, 2.0], d, "float16"),
    "bool": lambda L, d: T(L, [False, True], d),
    "rows": lambda L, d: T(L, [[0.0, 1.0, 2.0], [-3.0, 5.0, 6.0]], d),
    "empty": lambda L, d: L.empty(0, device=d),
    "scalar_0d": lambda L, d: T(L, 1.0, d),
    "complex": lambda L, d: T(L, [1j, 2j], d),
}
VALUES = {
    "tensor": lambda L, d: T(L, [-2.0, 0.0, 2.5, 8.0, NAN], d),
    "python_float": lambda L, d: 0.0,
    "python_int": lambda L, d: 3,
    "python_bool": lambda L, d: True,
    "scalar_0d": lambda L, d: T(L, 2.5, d),
    "int64": lambda L, d: T(L, [-1, 0, 3, 10], d),
    "float64": lambda L, d: T(L, [0.1, 2.5], d, "float64"),
    "float16": lambda L, d: T(L, [0.1, 2.5], d, "float16"),
    "rows": lambda L, d: T(L, [[0.5], [5.5]], d),
    "rows_wrong_leading": lambda L, d: T(L, [[0.5], [5.5], [1.0]], d),
    "empty": lambda L, d: L.empty(0, device=d),
    "complex": lambda L, d: T(L, [1j], d),
}
SEARCH_OPTIONS = {
    "plain": {},
    "right": {"right": True},
    "side_right": {"side": "right"},
    "side_left_right_true": {"side": "left", "right": True},
    "side_bad": {"side": "middle"},
    "out_int32": {"out_int32": True},
    "sorter": {"sorter": "argsort"},
    "sorter_wrong_len": {"sorter": "short"},
    "sorter_float": {"sorter": "float"},
}


def _searchsorted(L, d, seq, values, options):
    kw = dict(options)
    if "sorter" in kw:
        kind = kw["sorter"]
        kw["sorter"] = seq.argsort(dim=-1) if kind == "argsort" else \
            L.zeros(1, dtype=L.int64, device=d) if kind == "short" else seq.argsort(dim=-1).float()
    return L.searchsorted(seq, values, **kw)


for _s, _seq in SEQUENCES.items():
    for _v, _val in VALUES.items():
        CASES[f"searchsorted/{_s}/{_v}"] = lambda L, d, s=_seq, v=_val: L.searchsorted(s(L, d), v(L, d))
        if _s in ("sorted", "int64", "rows") or _v in ("tensor", "int64"):
            CASES[f"bucketize/{_s}/{_v}"] = lambda L, d, s=_seq, v=_val: L.bucketize(v(L, d), s(L, d))
    for _o, _opt in SEARCH_OPTIONS.items():
        CASES[f"searchsorted_opt/{_s}/{_o}"] = lambda L, d, s=_seq, o=_opt: _searchsorted(
            L, d, s(L, d), VALUES["tensor"](L, d) if s(L, d).dim() < 2 else VALUES["rows"](L, d), o)
for _o in ("right", "out_int32"):
    for _v in ("tensor", "python_float", "scalar_0d", "int64", "rows"):
        CASES[f"bucketize_opt/{_o}/{_v}"] = lambda L, d, o=_o, v=_v: L.bucketize(
            VALUES[v](L, d), SEQUENCES["sorted"](L, d), **{o: True})
CASES["searchsorted/out"] = lambda L, d: L.searchsorted(SEQUENCES["sorted"](L, d), VALUES["tensor"](L, d),
                                                        out=L.empty(5, dtype=L.int64, device=d))
CASES["searchsorted/out_wrong_dtype"] = lambda L, d: L.searchsorted(SEQUENCES["sorted"](L, d), VALUES["tensor"](L, d),
                                                                    out=L.empty(5, dtype=L.int32, device=d))
CASES["searchsorted/out_int32_out_int32"] = lambda L, d: L.searchsorted(
    SEQUENCES["sorted"](L, d), VALUES["tensor"](L, d), out_int32=True, out=L.empty(5, dtype=L.int32, device=d))
CASES["bucketize/out_float"] = lambda L, d: L.bucketize(VALUES["tensor"](L, d), SEQUENCES["sorted"](L, d),
                                                        out=L.empty(5, device=d))
CASES["bucketize/boundaries_2d"] = lambda L, d: L.bucketize(VALUES["tensor"](L, d), SEQUENCES["rows"](L, d))
CASES["searchsorted/scalar_sorter"] = lambda L, d: L.searchsorted(SEQUENCES["unsorted"](L, d), 2.0,
                                                                  sorter=T(L, [1, 2, 0], d))

ISIN_ARGS = {
    "tensors": lambda L, d: (T(L, [1.0, 2.0, NAN, 4.0], d), T(L, [2.0, NAN, 5.0], d)),
    "int_float": lambda L, d: (T(L, [1, 2, 3], d), T(L, [2.0, 2.5], d)),
    "float_int": lambda L, d: (T(L, [1.0, 2.5, 3.0], d), T(L, [1, 3], d)),
    "scalar_elements": lambda L, d: (2, T(L, [1, 2], d)),
    "scalar_test": lambda L, d: (T(L, [1, 2, 3], d), 2),
    "float_scalar_test": lambda L, d: (T(L, [1, 2, 3], d), 2.0),
    "two_scalars": lambda L, d: (1, 2),
    "bool": lambda L, d: (T(L, [True, False], d), T(L, [True], d)),
    "uint8_int8": lambda L, d: (T(L, [255, 1], d, "uint8"), T(L, [-1, 1], d, "int8")),
    "empty_test": lambda L, d: (T(L, [1.0, 2.0], d), L.empty(0, device=d)),
    "empty_elements": lambda L, d: (L.empty(0, 2, device=d), T(L, [1.0], d)),
    "2d": lambda L, d: (T(L, [[1, 2], [3, 4]], d), T(L, [[4], [1]], d)),
    "0d": lambda L, d: (T(L, 3, d), T(L, 3, d)),
    "complex": lambda L, d: (T(L, [1j], d), T(L, [1j], d)),
    "float16": lambda L, d: (T(L, [1.0, 2.0], d, "float16"), T(L, [2.0], d)),
    "large_test": lambda L, d: (T(L, [3, 17, 40], d), L.arange(0, 60, 3, device=d)),
    "duplicates_assumed_unique": lambda L, d: (T(L, [1, 1, 2], d), T(L, [1, 1], d)),
}
for _a, _args in ISIN_ARGS.items():
    for _kn, _kw in {"plain": {}, "invert": {"invert": True}, "assume_unique": {"assume_unique": True},
                     "both": {"assume_unique": True, "invert": True}}.items():
        CASES[f"isin/{_a}/{_kn}"] = lambda L, d, args=_args, kw=_kw: L.isin(*args(L, d), **kw)
CASES["isin/kwarg_names"] = lambda L, d: L.isin(elements=T(L, [1], d), test_elements=T(L, [1], d))
CASES["isin/invert_int"] = lambda L, d: L.isin(T(L, [1], d), T(L, [1], d), invert=1)

SORT_INPUTS = {k: SET_INPUTS[k] for k in ("float", "nan", "signed_zero", "int64", "int8", "uint8", "bool", "float16",
                                          "bfloat16", "complex", "scalar_0d", "empty", "empty_2d", "rows", "strided")}
SORTS = {
    "sort": lambda L, x: tuple(L.sort(x)),
    "sort_stable": lambda L, x: tuple(L.sort(x, stable=True)),
    "sort_stable_desc": lambda L, x: tuple(L.sort(x, stable=True, descending=True)),
    "sort_dim0_stable": lambda L, x: tuple(x.sort(0, stable=True)),
    "sort_dim_past": lambda L, x: tuple(x.sort(2)),
    "sort_stable_none": lambda L, x: tuple(L.sort(x, stable=None)),
    "sort_stable_int": lambda L, x: tuple(L.sort(x, stable=1)),
    "argsort_stable": lambda L, x: L.argsort(x, stable=True),
    "argsort_stable_desc": lambda L, x: x.argsort(dim=0, descending=True, stable=True),
    "argsort_positional_stable": lambda L, x: L.argsort(x, -1, True, True),
    "msort": lambda L, x: L.msort(x),
    "topk_1": lambda L, x: tuple(L.topk(x, 1)),
    "topk_0": lambda L, x: tuple(L.topk(x, 0)),
    "topk_all": lambda L, x: tuple(x.topk(x.shape[-1] if x.dim() else 1, largest=False)),
    "topk_past": lambda L, x: tuple(x.topk(100)),
    "topk_negative": lambda L, x: tuple(x.topk(-1)),
    "topk_dim0": lambda L, x: tuple(x.topk(1, dim=0)),
    "topk_dim_past": lambda L, x: tuple(x.topk(1, dim=3)),
    "topk_smallest_2": lambda L, x: tuple(x.topk(2, largest=False)),
}
for _s, _fn in SORTS.items():
    for _i, _x in SORT_INPUTS.items():
        CASES[f"sort/{_s}/{_i}"] = lambda L, d, fn=_fn, x=_x: fn(L, x(L, d))
CASES["sort/out"] = lambda L, d: L.sort(R(L, (5,), d, "float32"), stable=True,
                                        out=(L.empty(5, device=d), L.empty(5, dtype=L.int64, device=d)))
CASES["sort/out_wrong_index_dtype"] = lambda L, d: L.sort(R(L, (5,), d, "float32"),
                                                          out=(L.empty(5, device=d), L.empty(5, device=d)))
CASES["topk/out"] = lambda L, d: L.topk(R(L, (5,), d, "float32"), 2,
                                        out=(L.empty(2, device=d), L.empty(2, dtype=L.int64, device=d)))
CASES["topk/k_float"] = lambda L, d: L.topk(R(L, (5,), d, "float32"), 2.0)
CASES["topk/k_tensor"] = lambda L, d: L.topk(R(L, (5,), d, "float32"), T(L, 2, d))
CASES["topk/k_bool"] = lambda L, d: L.topk(R(L, (5,), d, "float32"), True)

_CUDA_NAMES = ("cuda-only: tandem's GPU sort and topk say 'on CUDA' in their complex refusal, as PyTorch's CUDA "
               "kernels do; the oracle runs on the CPU")
_TIES = ("which index topk reports among equal values (and between -0.0 and 0.0): PyTorch does not specify the order "
         "of ties; the values match")
_ARGSORT_PARSER = ("PyTorch's parser words argsort's four positional arguments 'takes from 2 to 1 positional arguments "
                   "but 4 were given' (its stable overload counts its keyword-only arguments); tandem says 'from 1 to "
                   "3'")
_SORTER_0D = ("PyTorch fails an internal check on a 0-d sorted sequence with a sorter ('ArrayRef: attempted to access "
              "back() of empty list'); tandem reads the sorter's range")
_UNIQUE_DIM = ("unique along dim 0 of a 1-d tensor with NaN: PyTorch's unique_dim sorts rows with a comparison NaN "
               "breaks, so its result follows std::sort's internals ([nan, 1., nan, -inf, 1., inf]: 1 twice, "
               "unsorted); tandem's is sorted, NaN last, each NaN its own row ([-inf, 1., inf, nan, nan])")
# isin's calls that fit none of its overloads are PyTorch's listing (registered overloads), the complex refusals of
# unique name PyTorch's kernels (unique, unique_dim), and topk checks dim and k before refusing complex, since
# session 46 (python/src/order_stats.cpp, src/ops/search_sets.cpp, src/ops/sort.cpp).
KNOWN = {}
for _name in CASES:
    _parts = _name.split("/")
    if _parts[:2] == ["sort", "argsort_positional_stable"]:
        KNOWN[_name] = _ARGSORT_PARSER
    elif _parts[0] == "sort" and _parts[1] in ("sort", "sort_stable", "sort_stable_desc", "sort_stable_none",
                                               "argsort_stable", "argsort_stable_desc", "msort", "topk_0", "topk_1",
                                               "topk_all", "topk_dim0", "topk_smallest_2") and _parts[2] == "complex":
        KNOWN[_name] = _CUDA_NAMES
    elif _parts[0] == "sort" and (_parts[1] == "topk_all" and _parts[2] in (
            "float", "float16", "nan", "signed_zero", "uint8") or _parts[1] == "topk_smallest_2" and _parts[2] in (
            "float16", "signed_zero")):
        KNOWN[_name] = _TIES
    elif _parts[0] == "unique" and _parts[1] in ("dim0", "dim_neg") and _parts[2] in ("nan", "float16"):
        KNOWN[_name] = _UNIQUE_DIM
KNOWN["searchsorted_opt/scalar_0d/sorter"] = _SORTER_0D
KNOWN["searchsorted_opt/complex/sorter"] = KNOWN["searchsorted_opt/complex/sorter_float"] = _CUDA_NAMES
