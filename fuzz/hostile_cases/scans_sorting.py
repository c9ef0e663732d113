"""Scans and sorting on values that expose their conventions: NaN and +-inf placement in sort/argsort/topk/
kthvalue/msort/median/unique, ties (stable order, which index cummax/cummin/kthvalue/mode report), descending and
stable together, integer/bool/uint8/float16 inputs, 0-d and empty inputs, negative and past-the-rank dims,
non-contiguous inputs, lengths past a kernel's small-size path, out= tuples of the wrong dtype, cumprod with zeros
and its gradient, logcumsumexp of -inf/inf, cumsum dtype= and the scans' gradients. reductions.py has the plain
dim checks; these are the values."""
import math

from . import R, T, Case

NAN, INF = math.nan, math.inf


def v(L, d, dtype=None):
    return T(L, [3.0, NAN, -1.0, INF, 2.0, -INF, NAN, 0.0], d, dtype)


def ties(L, d, dtype=None):
    return T(L, [2, 1, 2, 0, 1, 2, 0, 1], d, dtype)


def grad_of(L, d, fn, x):
    x = x.requires_grad_()
    fn(x).sum().backward()
    return x.grad


CASES = {
    # ---- sort / argsort / msort
    "sort/nan_inf": lambda L, d: L.sort(v(L, d)),
    "sort/nan_inf_descending": lambda L, d: L.sort(v(L, d), descending=True),
    "sort/stable_ties": lambda L, d: L.sort(ties(L, d), stable=True),
    "sort/stable_ties_descending": lambda L, d: L.sort(ties(L, d), stable=True, descending=True),
    "sort/stable_nan_ties": lambda L, d: L.sort(T(L, [NAN, 1.0, NAN, 1.0, NAN], d), stable=True),
    "sort/bool": lambda L, d: L.sort(T(L, [True, False, True, False], d), stable=True),
    "sort/uint8": lambda L, d: L.sort(T(L, [200, 3, 255, 0], d, "uint8")),
    "sort/int8_descending": lambda L, d: L.sort(T(L, [-128, 127, 0, -1], d, "int8"), descending=True),
    "sort/float16_nan": lambda L, d: L.sort(v(L, d, "float16")),
    "sort/bfloat16": lambda L, d: L.sort(R(L, (9,), d, "bfloat16"), stable=True),
    "sort/negative_zero": lambda L, d: L.sort(T(L, [0.0, -0.0, 0.0, -0.0], d), stable=True),
    "sort/0dim": lambda L, d: L.sort(T(L, 3.0, d)),
    "sort/0dim_dim_minus_one": lambda L, d: L.sort(T(L, 3.0, d), dim=-1),
    "sort/0dim_dim_1": lambda L, d: L.sort(T(L, 3.0, d), dim=1),
    "sort/dim_minus_past": lambda L, d: L.sort(R(L, (2, 3), d), dim=-3),
    "sort/empty_dim": lambda L, d: L.sort(L.ones(0, 3, device=d), dim=0),
    "sort/noncontiguous": lambda L, d: L.sort(R(L, (4, 5), d).t(), dim=1, stable=True),
    "sort/long_row": lambda L, d: L.sort(R(L, (3, 2500), d), dim=1, stable=True),
    "sort/long_row_int_ties": lambda L, d: L.sort((R(L, (2000,), d) * 3).long(), stable=True),
    "sort/dim_0_of_3d": lambda L, d: L.sort(R(L, (4, 3, 2), d), dim=0),
    "sort/out_tuple": lambda L, d: L.sort(R(L, (5,), d), out=(L.empty(5, device=d, dtype=L.float64),
                                                              L.empty(5, device=d, dtype=L.int64))),
    "sort/out_indices_int32": lambda L, d: L.sort(R(L, (5,), d), out=(L.empty(5, device=d, dtype=L.float64),
                                                                      L.empty(5, device=d, dtype=L.int32))),
    "sort/out_values_wrong_dtype": lambda L, d: L.sort(R(L, (5,), d), out=(L.empty(5, device=d),
                                                                           L.empty(5, device=d, dtype=L.int64))),
    "sort/out_one_tensor": lambda L, d: L.sort(R(L, (5,), d), out=L.empty(5, device=d)),
    "sort/stable_positional": lambda L, d: L.sort(R(L, (5,), d), 0, False, True),
    "sort/descending_int": lambda L, d: L.sort(R(L, (5,), d), descending=1),
    "sort/dim_str": lambda L, d: L.sort(R(L, (5,), d), dim="x"),
    "argsort/nan_inf": lambda L, d: L.argsort(v(L, d)),
    "argsort/stable_descending": lambda L, d: L.argsort(ties(L, d), descending=True, stable=True),
    "argsort/stable_keyword_only": lambda L, d: L.argsort(ties(L, d), 0, True, True),
    "argsort/bool": lambda L, d: L.argsort(T(L, [True, False, True], d), stable=True),
    "msort/nan": lambda L, d: L.msort(T(L, [[NAN, 1.0], [0.0, NAN], [-1.0, 2.0]], d)),
    "msort/1d": lambda L, d: L.msort(v(L, d)),
    "msort/empty": lambda L, d: L.msort(L.ones(0, 2, device=d)),
    "sort/grad": lambda L, d: grad_of(L, d, lambda x: L.sort(x).values * L.arange(6., device=d), R(L, (6,), d)),
    # ---- topk
    "topk/nan_largest": lambda L, d: L.topk(v(L, d), 3),
    "topk/nan_smallest": lambda L, d: L.topk(v(L, d), 3, largest=False),
    "topk/inf": lambda L, d: L.topk(T(L, [INF, -INF, 1.0, INF], d), 2),
    "topk/unsorted_values": lambda L, d: L.topk(R(L, (10,), d), 4, sorted=False).values.sort().values,
    "topk/int": lambda L, d: L.topk(T(L, [5, 1, 9, 3], d), 2),
    "topk/bool": lambda L, d: L.topk(T(L, [True, False, True], d), 2),
    "topk/uint8": lambda L, d: L.topk(T(L, [200, 3, 255, 0], d, "uint8"), 2),
    "topk/float16": lambda L, d: L.topk(R(L, (10,), d, "float16"), 3),
    "topk/0dim_k1": lambda L, d: L.topk(T(L, 3.0, d), 1),
    "topk/0dim_k0": lambda L, d: L.topk(T(L, 3.0, d), 0),
    "topk/0dim_k2": lambda L, d: L.topk(T(L, 3.0, d), 2),
    "topk/k_equals_size": lambda L, d: L.topk(R(L, (5,), d), 5),
    "topk/dim_0": lambda L, d: L.topk(R(L, (5, 3), d), 2, dim=0),
    "topk/dim_minus_past": lambda L, d: L.topk(R(L, (5, 3), d), 2, dim=-3),
    "topk/empty_other_dim": lambda L, d: L.topk(L.ones(0, 4, device=d), 2, dim=1),
    "topk/long_row": lambda L, d: L.topk(R(L, (3000,), d), 7),
    "topk/noncontiguous": lambda L, d: L.topk(R(L, (6, 5), d).t(), 2),
    "topk/k_bool": lambda L, d: L.topk(R(L, (5,), d), True),
    "topk/k_tensor": lambda L, d: L.topk(R(L, (5,), d), T(L, 2, d)),
    "topk/out_tuple": lambda L, d: L.topk(R(L, (5,), d), 2, out=(L.empty(2, device=d, dtype=L.float64),
                                                                 L.empty(2, device=d, dtype=L.int64))),
    "topk/out_wrong_dtype": lambda L, d: L.topk(R(L, (5,), d), 2, out=(L.empty(2, device=d, dtype=L.int64),
                                                                       L.empty(2, device=d, dtype=L.int64))),
    "topk/grad": lambda L, d: grad_of(L, d, lambda x: L.topk(x, 2).values, R(L, (6,), d)),
    # ---- kthvalue / median / mode
    "kthvalue/nan": lambda L, d: L.kthvalue(v(L, d), 2),
    "kthvalue/nan_last_k": lambda L, d: L.kthvalue(v(L, d), 8),
    "kthvalue/ties_index": lambda L, d: L.kthvalue(ties(L, d, "float64"), 4),
    "kthvalue/int": lambda L, d: L.kthvalue(T(L, [5, 1, 9, 3], d), 2),
    "kthvalue/bool": lambda L, d: L.kthvalue(T(L, [True, False, True], d), 1),
    "kthvalue/keepdim": lambda L, d: L.kthvalue(R(L, (3, 4), d), 2, dim=0, keepdim=True),
    "kthvalue/empty": lambda L, d: L.kthvalue(L.ones(0, device=d), 1),
    "kthvalue/float16": lambda L, d: L.kthvalue(R(L, (7,), d, "float16"), 3),
    "median/nan": lambda L, d: L.median(v(L, d)),
    "median/nan_dim": lambda L, d: L.median(T(L, [[1.0, NAN, 3.0], [2.0, 1.0, 0.0]], d), dim=1),
    "median/even_count_lower": lambda L, d: L.median(T(L, [4.0, 1.0, 3.0, 2.0], d)),
    "median/ties_index": lambda L, d: L.median(ties(L, d, "float64"), 0),
    "nanmedian/all_nan": lambda L, d: L.nanmedian(T(L, [NAN, NAN], d)),
    "nanmedian/dim_mixed": lambda L, d: L.nanmedian(T(L, [[1.0, NAN, 3.0], [NAN, NAN, NAN]], d), dim=1),
    "median/int": lambda L, d: L.median(T(L, [5, 1, 9, 3], d)),
    "median/bool": lambda L, d: L.median(T(L, [True, False, True], d)),
    "mode/ties_smallest": lambda L, d: L.mode(ties(L, d)),
    "mode/nan": lambda L, d: L.mode(T(L, [NAN, 1.0, NAN, 1.0], d)),
    "mode/bool": lambda L, d: L.mode(T(L, [True, False, True], d)),
    "mode/0dim": lambda L, d: L.mode(T(L, 3.0, d)),
    # ---- cumulative scans
    "cumsum/negative_dim": lambda L, d: L.cumsum(R(L, (3, 4), d), -1),
    "cumsum/dim_minus_past": lambda L, d: L.cumsum(R(L, (3, 4), d), -3),
    "cumsum/int_promotes": lambda L, d: L.cumsum(T(L, [1, 2, 3], d, "int32"), 0),
    "cumsum/bool_promotes": lambda L, d: L.cumsum(T(L, [True, True, False], d), 0),
    "cumsum/uint8_promotes": lambda L, d: L.cumsum(T(L, [200, 100], d, "uint8"), 0),
    "cumsum/dtype_uint8_wraps": lambda L, d: L.cumsum(T(L, [200, 100], d), 0, dtype=L.uint8),
    "cumsum/dtype_float16": lambda L, d: L.cumsum(R(L, (5,), d), 0, dtype=L.float16),
    "cumsum/nan_propagates": lambda L, d: L.cumsum(T(L, [1.0, NAN, 2.0], d), 0),
    "cumsum/inf_minus_inf": lambda L, d: L.cumsum(T(L, [INF, -INF, 1.0], d), 0),
    "cumsum/0dim": lambda L, d: L.cumsum(T(L, 3.0, d), 0),
    "cumsum/0dim_dim_minus_one": lambda L, d: L.cumsum(T(L, 3.0, d), -1),
    "cumsum/empty": lambda L, d: L.cumsum(L.ones(3, 0, device=d), 1),
    "cumsum/noncontiguous": lambda L, d: L.cumsum(R(L, (4, 5), d).t(), 1),
    "cumsum/long": lambda L, d: L.cumsum(R(L, (5000,), d), 0),
    "cumsum/out_wrong_dtype": lambda L, d: L.cumsum(R(L, (5,), d), 0, out=L.empty(5, device=d, dtype=L.int64)),
    "cumsum/out_dtype_given": lambda L, d: L.cumsum(R(L, (5,), d), 0, dtype=L.float32,
                                                    out=L.empty(5, device=d, dtype=L.float64)),
    "cumsum_/int_with_float_dtype": lambda L, d: T(L, [1, 2], d).cumsum_(0, dtype=L.float32),
    "cumsum/grad": lambda L, d: grad_of(L, d, lambda x: L.cumsum(x, 0) * L.arange(5., device=d), R(L, (5,), d)),
    "cumprod/zeros": lambda L, d: L.cumprod(T(L, [2.0, 0.0, 3.0, 0.0, 4.0], d), 0),
    "cumprod/grad_one_zero": lambda L, d: grad_of(L, d, lambda x: L.cumprod(x, 0),
                                                  T(L, [2.0, 0.0, 3.0, 4.0], d, "float64")),
    "cumprod/grad_two_zeros": lambda L, d: grad_of(L, d, lambda x: L.cumprod(x, 0),
                                                   T(L, [2.0, 0.0, 3.0, 0.0], d, "float64")),
    "cumprod/int_overflow": lambda L, d: L.cumprod(T(L, [2**40, 2**40, 3], d), 0),
    "cumprod/bool": lambda L, d: L.cumprod(T(L, [True, True, False], d), 0),
    "cumprod/dtype_float32": lambda L, d: L.cumprod(T(L, [1, 2, 3], d), 0, dtype=L.float32),
    "cumprod/2d_dim0": lambda L, d: L.cumprod(R(L, (3, 4), d, scale=1.5), 0),
    "cummax/nan": lambda L, d: L.cummax(v(L, d), 0),
    "cummin/nan": lambda L, d: L.cummin(v(L, d), 0),
    "cummax/ties_index": lambda L, d: L.cummax(ties(L, d), 0),
    "cummin/ties_index": lambda L, d: L.cummin(ties(L, d), 0),
    "cummax/float_ties": lambda L, d: L.cummax(ties(L, d, "float32"), 0),
    "cummax/bool": lambda L, d: L.cummax(T(L, [False, True, False, True], d), 0),
    "cummax/0dim": lambda L, d: L.cummax(T(L, 3.0, d), 0),
    "cummax/empty": lambda L, d: L.cummax(L.ones(0, device=d), 0),
    "cummax/2d_dim1": lambda L, d: L.cummax(R(L, (3, 4), d), 1),
    "cummax/grad": lambda L, d: grad_of(L, d, lambda x: L.cummax(x, 0).values, T(L, [1.0, 3.0, 2.0, 3.0, 5.0], d)),
    "cummin/out_tuple_int32_indices": lambda L, d: L.cummin(R(L, (4,), d), 0, out=(
        L.empty(4, device=d, dtype=L.float64), L.empty(4, device=d, dtype=L.int32))),
    "logcumsumexp/neg_inf": lambda L, d: L.logcumsumexp(T(L, [-INF, -INF, 0.0, -INF], d), 0),
    "logcumsumexp/inf": lambda L, d: L.logcumsumexp(T(L, [1.0, INF, 0.0, INF], d), 0),
    "logcumsumexp/nan": lambda L, d: L.logcumsumexp(T(L, [1.0, NAN, 0.0], d), 0),
    "logcumsumexp/large": lambda L, d: L.logcumsumexp(T(L, [1000.0, 1000.0, -1000.0], d), 0),
    "logcumsumexp/float16": lambda L, d: L.logcumsumexp(R(L, (6,), d, "float16"), 0),
    "logcumsumexp/0dim": lambda L, d: L.logcumsumexp(T(L, 3.0, d), 0),
    "logcumsumexp/empty": lambda L, d: L.logcumsumexp(L.ones(0, device=d), 0),
    "logcumsumexp/grad_neg_inf": lambda L, d: grad_of(L, d, lambda x: L.logcumsumexp(x, 0),
                                                      T(L, [-INF, 0.0, 1.0], d, "float64")),
    "logcumsumexp/dim_missing": lambda L, d: L.logcumsumexp(R(L, (3,), d)),
    # ---- unique / unique_consecutive
    "unique/sorted_inverse_counts": lambda L, d: L.unique(ties(L, d), return_inverse=True, return_counts=True),
    "unique/nan_each_distinct": lambda L, d: L.unique(T(L, [NAN, 1.0, NAN], d)),
    "unique/inf_and_negative_zero": lambda L, d: L.unique(T(L, [INF, -0.0, 0.0, -INF, INF], d)),
    "unique/dim0_rows": lambda L, d: L.unique(T(L, [[1, 2], [0, 1], [1, 2]], d), dim=0, return_inverse=True,
                                              return_counts=True),
    "unique/dim1_columns": lambda L, d: L.unique(T(L, [[1, 0, 1], [2, 1, 2]], d), dim=1),
    "unique/dim_negative": lambda L, d: L.unique(T(L, [[1, 0, 1], [2, 1, 2]], d), dim=-1),
    "unique/0dim": lambda L, d: L.unique(T(L, 3.0, d), return_inverse=True, return_counts=True),
    "unique/0dim_dim0": lambda L, d: L.unique(T(L, 3.0, d), dim=0),
    "unique/empty": lambda L, d: L.unique(L.ones(0, device=d), return_inverse=True, return_counts=True),
    "unique/2d_inverse_shape": lambda L, d: L.unique(T(L, [[3, 1], [1, 3]], d), return_inverse=True),
    "unique/float16": lambda L, d: L.unique(T(L, [1.5, 0.5, 1.5], d, "float16")),
    "unique/uint8": lambda L, d: L.unique(T(L, [255, 0, 255], d, "uint8"), return_counts=True),
    "unique_consecutive/nan": lambda L, d: L.unique_consecutive(T(L, [NAN, NAN, 1.0, 1.0], d),
                                                                return_counts=True),
    "unique_consecutive/dim0": lambda L, d: L.unique_consecutive(T(L, [[1, 2], [1, 2], [0, 1]], d), dim=0,
                                                                 return_inverse=True, return_counts=True),
    "unique_consecutive/0dim": lambda L, d: L.unique_consecutive(T(L, 3.0, d), return_counts=True),
    "unique_consecutive/empty": lambda L, d: L.unique_consecutive(L.ones(0, device=d), return_inverse=True),
    "Tensor.unique/sorted_false_values": Case(lambda L, d: ties(L, d).unique(sorted=False).sort().values),
    # ---- searching sorted sequences with NaN and ties
    "searchsorted/nan_values": lambda L, d: L.searchsorted(T(L, [0.0, 1.0, 2.0], d), T(L, [NAN, 1.0], d)),
    "searchsorted/ties_right": lambda L, d: L.searchsorted(T(L, [0, 1, 1, 1, 2], d), T(L, [1], d), right=True),
    "searchsorted/side_and_right_conflict": lambda L, d: L.searchsorted(T(L, [0, 1, 2], d), T(L, [1], d),
                                                                        right=False, side="right"),
    "searchsorted/sorter": lambda L, d: L.searchsorted(T(L, [3, 1, 2], d), T(L, [2], d), sorter=T(L, [1, 2, 0], d)),
}

_PARSER = "PyTorch's message lists its argument parser's overloads; the exception type is PyTorch's"
_TIES = ("which of several equal elements' index is reported is not specified by PyTorch; tandem reports another "
         "(the values agree)")
KNOWN = {
    "argsort/stable_keyword_only": _PARSER, "logcumsumexp/dim_missing": _PARSER, "sort/descending_int": _PARSER,
    "sort/dim_str": _PARSER, "sort/out_one_tensor": _PARSER, "sort/stable_positional": _PARSER,
    "kthvalue/ties_index": _TIES, "topk/inf": _TIES,
    "mode/nan": "PyTorch's CPU mode of [nan, 1, nan, 1] answers nan, an artefact of its kernel's run counting "
                "(NaN != NaN); tandem counts NaNs as equal and answers the smallest of the tied modes, 1",
}
