"""Hostile inputs to the order statistics, search/set ops, histograms, scans, scatter reductions, unfold, the Python
compositions (_compositions_more, _creation_more, _random_fills) and distributions, table-driven with PyTorch (on
the CPU) as the oracle. Each case is one expression `case(lib, device)` written once for both libraries and run on
every device: where PyTorch raises, tandem raises the same exception type with PyTorch's first line (tandem may add
a `hint:` line); where PyTorch returns, tandem returns the same values, dtype and shape."""
import math
import re

import pytest
import torch

import tandem
from oracle import assert_same_result

pytestmark = pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")

N, INF = math.nan, math.inf


def T(L, values, d="cpu", dtype=None):
    return L.tensor(values, device=d, dtype=getattr(L, dtype) if dtype else None)


def _first_line(e):
    # Kernel names carry the device ("geometric_cuda"): PyTorch, the oracle, runs on the CPU.
    line = (str(e).splitlines() or [""])[0].replace("tandem.", "torch.").replace("_cuda\"", "_cpu\"")
    return re.sub(r", device='cuda:\d'", "", line)  # tensors printed in a message name their device


def _outcome(case, lib, device):
    try:
        return "value", case(lib, device)
    except Exception as e:  # noqa: BLE001 - the type is what the test compares
        return "error", e


def _grad(fn, x):
    fn(x).sum().backward()
    return x.grad


CASES = {
    # ---- order statistics: empty dims, 0-dim inputs, k and q out of range, NaN, bool, int64 extremes
    "median/empty": lambda L, d: L.empty(0, device=d).median(),
    "median/empty_dim": lambda L, d: L.empty(2, 0, device=d).median(1),
    "median/empty_other_dim": lambda L, d: L.empty(0, 3, device=d).median(1),
    "median/0dim": lambda L, d: T(L, 3.0, d).median(0),
    "median/0dim_dim1": lambda L, d: T(L, 3.0, d).median(1),
    "median/dim_oob": lambda L, d: T(L, [1., 2.], d).median(-3),
    "median/nan": lambda L, d: T(L, [[1., N, 2.]], d).median(1),
    "median/bool": lambda L, d: T(L, [True, False, True], d).median(),
    "median/int64_extremes": lambda L, d: T(L, [2**63 - 1, -2**63, 0], d).median(),
    "median/float16": lambda L, d: T(L, [1., 3., 2.], d, "float16").median(),
    "median/bfloat16": lambda L, d: T(L, [1., 3., 2.], d, "bfloat16").median(0),
    "nanmedian/all_nan": lambda L, d: T(L, [[1., N], [N, N]], d).nanmedian(1),
    "nanmedian/empty": lambda L, d: L.empty(0, device=d).nanmedian(),
    "kthvalue/k0": lambda L, d: T(L, [1., 2.], d).kthvalue(0),
    "kthvalue/k_past_end": lambda L, d: T(L, [1., 2.], d).kthvalue(3),
    "kthvalue/k_huge": lambda L, d: T(L, [1., 2.], d).kthvalue(2**62),
    "kthvalue/k_negative": lambda L, d: T(L, [1., 2.], d).kthvalue(-1),
    "kthvalue/empty": lambda L, d: L.empty(0, device=d).kthvalue(1),
    "kthvalue/0dim": lambda L, d: T(L, 5.0, d).kthvalue(1),
    "kthvalue/0dim_k2": lambda L, d: T(L, 5.0, d).kthvalue(2),
    "kthvalue/nan": lambda L, d: T(L, [3., N, 1.], d).kthvalue(3),
    "kthvalue/bool": lambda L, d: T(L, [True, False], d).kthvalue(1),
    "mode/empty": lambda L, d: L.empty(0, 3, device=d).mode(0),
    "mode/0dim": lambda L, d: T(L, 5.0, d).mode(),
    "mode/bool": lambda L, d: T(L, [True, False, True], d).mode(),
    "quantile/empty": lambda L, d: L.empty(0, device=d).quantile(0.5),
    "quantile/q_above_1": lambda L, d: T(L, [1., 2.], d).quantile(1.5),
    "quantile/q_nan": lambda L, d: T(L, [1., 2.], d).quantile(N),
    "quantile/q_tensor_out_of_range": lambda L, d: T(L, [1., 2.], d).quantile(T(L, [0.5, 2.0], d)),
    "quantile/q_tensor_nan": lambda L, d: T(L, [1., 2.], d).quantile(T(L, [N], d)),
    "quantile/q_2d": lambda L, d: T(L, [1., 2.], d).quantile(T(L, [[0.5]], d)),
    "quantile/q_int": lambda L, d: T(L, [1., 2.], d).quantile(T(L, [0, 1], d)),
    "quantile/q_float64": lambda L, d: T(L, [1., 2.], d).quantile(T(L, [0.5], d, "float64")),
    "quantile/int_input": lambda L, d: T(L, [1, 2], d).quantile(0.5),
    "quantile/bad_interpolation": lambda L, d: T(L, [1., 2.], d).quantile(0.5, interpolation="bogus"),
    "quantile/0dim_keepdim": lambda L, d: T(L, 2.0, d).quantile(0.3, dim=0, keepdim=True),
    "quantile/dim_oob": lambda L, d: T(L, [1., 2.], d).quantile(0.3, dim=1),
    "quantile/infinities": lambda L, d: T(L, [-INF, INF, 1.], d).quantile(T(L, [0.25, 0.5], d)),
    "quantile/q_empty": lambda L, d: T(L, [1., 2.], d).quantile(L.empty(0, device=d)),
    "nanquantile/all_nan_row": lambda L, d: T(L, [[N, N], [1., 2.]], d).nanquantile(0.5, dim=1),
    "msort/0dim": lambda L, d: L.msort(T(L, 3.0, d)),
    "msort/nan": lambda L, d: L.msort(T(L, [N, 1.], d)),
    # ---- searchsorted / bucketize / unique / isin
    "searchsorted/leading_dims_differ": lambda L, d: L.searchsorted(L.zeros(2, 3, device=d), L.zeros(3, 1, device=d)),
    "searchsorted/ndim_differs": lambda L, d: L.searchsorted(L.zeros(2, 3, device=d), L.zeros(2, 2, 1, device=d)),
    "searchsorted/0dim_sequence": lambda L, d: L.searchsorted(T(L, 1.0, d), T(L, [1.0], d)),
    "searchsorted/0dim_value_2d_sequence": lambda L, d: L.searchsorted(L.zeros(2, 3, device=d), T(L, 1.5, d)),
    "searchsorted/empty_sequence": lambda L, d: L.searchsorted(L.empty(0, device=d), T(L, [1.0], d)),
    "searchsorted/bad_side": lambda L, d: L.searchsorted(T(L, [1.0], d), T(L, [1.0], d), side="middle"),
    "searchsorted/side_conflict": lambda L, d: L.searchsorted(T(L, [1.0], d), T(L, [1.0], d), side="left",
                                                              right=True),
    "searchsorted/sorter_out_of_range": lambda L, d: L.searchsorted(T(L, [1., 2.], d), T(L, [1.5], d),
                                                                    sorter=T(L, [0, 5], d)),
    "searchsorted/sorter_negative": lambda L, d: L.searchsorted(T(L, [1., 2.], d), T(L, [1.5], d),
                                                                sorter=T(L, [-1, 0], d)),
    "searchsorted/sorter_float": lambda L, d: L.searchsorted(T(L, [2., 1.], d), T(L, [1.5], d),
                                                             sorter=T(L, [1., 0.], d)),
    "searchsorted/sorter_short": lambda L, d: L.searchsorted(T(L, [2., 1.], d), T(L, [1.5], d), sorter=T(L, [1], d)),
    "searchsorted/dtypes_differ": lambda L, d: L.searchsorted(T(L, [1, 2], d), T(L, [1.5], d)),
    "searchsorted/nan": lambda L, d: L.searchsorted(T(L, [1.0, N], d), T(L, [N, 2.0], d)),
    "searchsorted/int64_extremes": lambda L, d: L.searchsorted(T(L, [-2**63, 0, 2**63 - 1], d),
                                                               T(L, [2**63 - 1, -2**63], d), right=True),
    "bucketize/2d_boundaries": lambda L, d: L.bucketize(T(L, [1.0], d), L.zeros(2, 2, device=d)),
    "bucketize/0dim_boundaries": lambda L, d: L.bucketize(T(L, [1.0], d), T(L, 1.0, d)),
    "unique/empty": lambda L, d: L.unique(L.empty(0, device=d), return_inverse=True, return_counts=True),
    "unique/0dim": lambda L, d: L.unique(T(L, 3.0, d), return_inverse=True, return_counts=True),
    "unique/dim_of_0dim": lambda L, d: L.unique(T(L, 3.0, d), dim=0),
    "unique/dim_oob": lambda L, d: L.unique(T(L, [3.0], d), dim=1),
    "unique/dim_empty": lambda L, d: L.unique(L.empty(0, 2, device=d), dim=0, return_inverse=True,
                                              return_counts=True),
    "unique/dim_empty_slices": lambda L, d: L.unique(L.empty(2, 0, device=d), dim=0, return_counts=True),
    "unique/nan": lambda L, d: L.unique(T(L, [N, 1., N], d), return_counts=True),
    "unique_consecutive/0dim_dim": lambda L, d: L.unique_consecutive(T(L, 3.0, d), dim=0),
    "unique_consecutive/nan": lambda L, d: L.unique_consecutive(T(L, [N, N], d), return_counts=True),
    "isin/empty_test": lambda L, d: L.isin(T(L, [1.], d), L.empty(0, device=d)),
    "isin/nan": lambda L, d: L.isin(T(L, [N], d), T(L, [N], d)),
    "isin/int64_extremes": lambda L, d: L.isin(T(L, [2**63 - 1], d), T(L, [2**63 - 2], d)),
    # ---- bincount / histc / histogram: sizes from values, bins and ranges
    "bincount/value_int64_max": lambda L, d: L.bincount(T(L, [2**63 - 1], d)),
    "bincount/negative": lambda L, d: L.bincount(T(L, [-1, 2], d)),
    "bincount/float": lambda L, d: L.bincount(T(L, [1., 2.], d)),
    "bincount/bool": lambda L, d: L.bincount(T(L, [True, False], d)),
    "bincount/2d": lambda L, d: L.bincount(L.zeros(2, 2, dtype=L.long, device=d)),
    "bincount/0dim": lambda L, d: L.bincount(T(L, 2, d)),
    "bincount/empty_minlength": lambda L, d: L.bincount(L.empty(0, dtype=L.long, device=d), minlength=3),
    "bincount/negative_minlength": lambda L, d: L.bincount(T(L, [1], d), minlength=-1),
    "bincount/weights_short": lambda L, d: L.bincount(T(L, [1, 2], d), weights=T(L, [1.], d)),
    "bincount/weights_int": lambda L, d: L.bincount(T(L, [1, 2], d), weights=T(L, [1, 2], d)),
    "bincount/weights_float16": lambda L, d: L.bincount(T(L, [1, 2], d), weights=T(L, [1.5, 2.], d, "float16")),
    "histc/zero_bins": lambda L, d: L.histc(T(L, [1.], d), bins=0),
    "histc/negative_bins": lambda L, d: L.histc(T(L, [1.], d), bins=-1),
    "histc/min_above_max": lambda L, d: L.histc(T(L, [1.], d), bins=3, min=2, max=1),
    "histc/int": lambda L, d: L.histc(T(L, [1, 2], d), bins=3),
    "histc/empty": lambda L, d: L.histc(L.empty(0, device=d), bins=3),
    "histc/inf_range": lambda L, d: L.histc(T(L, [1.], d), bins=3, min=0, max=INF),
    "histc/inf_data": lambda L, d: L.histc(T(L, [1., INF], d), bins=3),
    "histc/huge_values": lambda L, d: L.histc(T(L, [-3e38, 3e38], d), bins=4),
    "histogram/zero_bins": lambda L, d: L.histogram(T(L, [1., 2.], d), bins=0),
    "histogram/reversed_range": lambda L, d: L.histogram(T(L, [1., 2.], d), bins=3, range=(2., 1.)),
    "histogram/nan_range": lambda L, d: L.histogram(T(L, [1., 2.], d), bins=3, range=(N, 1.)),
    "histogram/int": lambda L, d: L.histogram(T(L, [1, 2], d), bins=3),
    "histogram/one_edge": lambda L, d: L.histogram(T(L, [1., 2.], d), bins=T(L, [1.], d)),
    "histogram/no_edges": lambda L, d: L.histogram(T(L, [1., 2.], d), bins=L.empty(0, device=d)),
    "histogram/2d_edges": lambda L, d: L.histogram(T(L, [1., 2.], d), bins=L.zeros(2, 2, device=d)),
    "histogram/weight_short": lambda L, d: L.histogram(T(L, [1., 2.], d), bins=2, weight=T(L, [1.], d)),
    "histogram/density_nothing_in_range": lambda L, d: L.histogram(T(L, [5., 6.], d), bins=2, range=(0., 1.),
                                                                   density=True),
    # ---- scans and their in-place forms
    "cumsum_/expanded": lambda L, d: L.zeros(3, device=d).expand(2, 3).cumsum_(1),
    "cumprod_/expanded": lambda L, d: L.ones(3, device=d).expand(2, 3).cumprod_(1),
    "cumprod_/expanded_with_grad": lambda L, d: L.zeros(3, device=d, requires_grad=True).clone().expand(2, 3)
    .cumprod_(1),
    "cumsum_/leaf_requires_grad": lambda L, d: T(L, [1., 2.], d).requires_grad_().cumsum_(0),
    "cumsum_/transposed": lambda L, d: (lambda a: (a.t().cumsum_(1), a)[1])(L.arange(6., device=d).reshape(2, 3)),
    "cumprod/zeros_grad": lambda L, d: _grad(lambda x: L.cumprod(x, 0), T(L, [2., 0., 3., 0., 5.], d, "float64")
                                             .requires_grad_()),
    "logcumsumexp/neg_inf_grad": lambda L, d: _grad(lambda x: L.logcumsumexp(x, 0),
                                                    T(L, [-INF, 1., -INF], d, "float64").requires_grad_()),
    "scatter_reduce/index_out_of_range": lambda L, d: L.zeros(3, device=d).scatter_reduce(
        0, T(L, [5], d), T(L, [1.], d), "amax"),
    "scatter_reduce/index_negative": lambda L, d: L.zeros(3, device=d).scatter_reduce(
        0, T(L, [-1], d), T(L, [1.], d), "prod"),
    "scatter_reduce/bad_reduce": lambda L, d: L.zeros(3, device=d).scatter_reduce(0, T(L, [0], d), T(L, [1.], d),
                                                                                  "median"),
    "scatter_reduce/index_int32": lambda L, d: L.zeros(3, device=d).scatter_reduce(
        0, T(L, [0], d, "int32"), T(L, [1.], d), "sum"),
    "scatter_reduce/index_float": lambda L, d: L.zeros(3, device=d).scatter_reduce(
        0, T(L, [0.], d), T(L, [1.], d), "sum"),
    "scatter_reduce/src_smaller_than_index": lambda L, d: L.zeros(3, device=d).scatter_reduce(
        0, T(L, [0, 1, 2], d), T(L, [1.], d), "sum"),
    "scatter_reduce/index_larger_than_self": lambda L, d: L.zeros(2, 2, device=d).scatter_reduce(
        0, L.zeros(2, 3, dtype=L.long, device=d), L.ones(2, 3, device=d), "sum"),
    "scatter_reduce/dtypes_differ": lambda L, d: L.zeros(3, device=d).scatter_reduce(
        0, T(L, [0], d), T(L, [1.], d, "float64"), "sum"),
    "scatter_reduce/0dim_index_out_of_range": lambda L, d: T(L, 1.0, d).scatter_reduce(0, T(L, 1, d), T(L, 5.0, d),
                                                                                       "sum"),
    "scatter_reduce/empty_self": lambda L, d: L.zeros(0, device=d).scatter_reduce(0, T(L, [0], d), T(L, [1.], d),
                                                                                  "sum"),
    "scatter_reduce/bool_mean": lambda L, d: T(L, [True, False], d).scatter_reduce(0, T(L, [0, 1], d),
                                                                                   T(L, [False, True], d), "mean"),
    "scatter_reduce/int64_extremes": lambda L, d: T(L, [0, 0], d).scatter_reduce(
        0, T(L, [0, 1], d), T(L, [2**63 - 1, -2**63], d), "amin", include_self=False),
    "scatter_reduce_/expanded": lambda L, d: L.zeros(3, device=d).expand(2, 3).scatter_reduce_(
        1, L.zeros(2, 1, dtype=L.long, device=d), L.ones(2, 1, device=d), "sum"),
    "scatter_reduce_/expanded_with_grad": lambda L, d: L.zeros(3, device=d, requires_grad=True).clone()
    .expand(2, 3).scatter_reduce_(1, L.zeros(2, 1, dtype=L.long, device=d), L.ones(2, 1, device=d), "sum"),
    "scatter_reduce_/src_is_self": lambda L, d: (lambda a: a.scatter_reduce_(0, T(L, [1, 2, 0], d), a, "sum"))(
        L.arange(3., device=d)),
    "scatter_reduce_/src_overlaps_self": lambda L, d: (lambda a: a.scatter_reduce_(0, T(L, [1, 2], d), a[:2],
                                                                                   "sum"))(L.arange(3., device=d)),
    "scatter_reduce_/transposed": lambda L, d: (lambda a: (a.t().scatter_reduce_(
        0, T(L, [[0, 1]], d), T(L, [[5., 6.]], d), "amax"), a)[1])(L.arange(6., device=d).reshape(2, 3)),
    "scatter_reduce_/leaf_requires_grad": lambda L, d: L.zeros(3, device=d, requires_grad=True).scatter_reduce_(
        0, T(L, [0], d), T(L, [1.], d), "sum"),
    "scatter_reduce/prod_grad_with_zeros": lambda L, d: (lambda x, s: (x.scatter_reduce(
        0, T(L, [0, 0, 1], d), s, "prod").sum().backward(), x.grad, s.grad)[1:])(
        T(L, [2., 0.], d, "float64").requires_grad_(), T(L, [0., 3., 4.], d, "float64").requires_grad_()),
    "index_reduce/index_out_of_range": lambda L, d: L.ones(3, device=d).index_reduce(0, T(L, [5], d), T(L, [1.], d),
                                                                                     "prod"),
    "index_reduce/index_negative": lambda L, d: L.ones(3, device=d).index_reduce(0, T(L, [-1], d), T(L, [2.], d),
                                                                                 "amax"),
    "index_reduce/index_2d": lambda L, d: L.ones(3, device=d).index_reduce(0, T(L, [[0]], d), T(L, [[1.]], d),
                                                                           "prod"),
    "index_reduce/index_float": lambda L, d: L.ones(3, device=d).index_reduce(0, T(L, [0.], d), T(L, [2.], d),
                                                                              "prod"),
    "index_reduce/source_short": lambda L, d: L.ones(3, device=d).index_reduce(0, T(L, [0, 1], d), T(L, [2.], d),
                                                                               "prod"),
    "index_reduce/source_shape": lambda L, d: L.ones(3, 2, device=d).index_reduce(0, T(L, [0], d),
                                                                                  L.ones(1, 3, device=d), "prod"),
    "index_reduce/sum_is_not_a_reduction": lambda L, d: L.ones(3, device=d).index_reduce(0, T(L, [0], d),
                                                                                         T(L, [2.], d), "sum"),
    "index_reduce/bool_prod": lambda L, d: T(L, [True, False], d).index_reduce(0, T(L, [0], d), T(L, [False], d),
                                                                               "prod"),
    "index_reduce/bool_amax": lambda L, d: T(L, [True, False], d).index_reduce(0, T(L, [0], d), T(L, [False], d),
                                                                               "amax"),
    "index_reduce_/expanded": lambda L, d: L.ones(3, device=d).expand(2, 3).index_reduce_(
        1, T(L, [0], d), L.ones(2, 1, device=d), "prod"),
    "index_reduce_/source_is_self": lambda L, d: (lambda a: a.index_reduce_(0, T(L, [1, 2, 0], d), a, "prod"))(
        L.arange(3., device=d)),
    "index_reduce_/source_overlaps_self": lambda L, d: (lambda a: a.index_reduce_(0, T(L, [1, 2], d), a[:2],
                                                                                  "prod"))(L.arange(3., device=d)),
    "masked_scatter/source_short": lambda L, d: L.zeros(3, device=d).masked_scatter(T(L, [True] * 3, d),
                                                                                    T(L, [1.], d)),
    "masked_scatter/mask_float": lambda L, d: L.zeros(3, device=d).masked_scatter(T(L, [1., 0., 1.], d),
                                                                                  T(L, [1., 2.], d)),
    "masked_scatter/mask_not_broadcastable": lambda L, d: L.zeros(2, 3, device=d).masked_scatter(
        T(L, [True, False], d), T(L, [1., 2., 3., 4.], d)),
    "masked_scatter/0dim": lambda L, d: T(L, 0., d).masked_scatter(T(L, True, d), T(L, [5.], d)),
    "masked_scatter/empty_source": lambda L, d: L.zeros(3, device=d).masked_scatter(T(L, [False, True, False], d),
                                                                                    L.empty(0, device=d)),
    "masked_scatter_/expanded": lambda L, d: L.zeros(3, device=d).expand(2, 3).masked_scatter_(
        T(L, [True, False, True], d), L.arange(4., device=d)),
    # ---- Tensor.unfold: sizes and steps
    "unfold/size_0": lambda L, d: L.arange(5., device=d).unfold(0, 0, 1),
    "unfold/step_0": lambda L, d: L.arange(5., device=d).unfold(0, 2, 0),
    "unfold/step_negative": lambda L, d: L.arange(5., device=d).unfold(0, 2, -1),
    "unfold/size_negative": lambda L, d: L.arange(5., device=d).unfold(0, -1, 1),
    "unfold/size_past_end": lambda L, d: L.arange(5., device=d).unfold(0, 6, 1),
    "unfold/size_huge": lambda L, d: L.arange(5., device=d).unfold(0, 2**62, 1),
    "unfold/step_int64_max": lambda L, d: L.arange(5., device=d).unfold(0, 2, 2**63 - 1),
    "unfold/dim_oob": lambda L, d: L.arange(5., device=d).unfold(1, 2, 1),
    "unfold/0dim": lambda L, d: T(L, 3., d).unfold(0, 1, 1),
    "unfold/0dim_size_2": lambda L, d: T(L, 3., d).unfold(0, 2, 1),
    "unfold/0dim_dim_1": lambda L, d: T(L, 3., d).unfold(1, 1, 1),
    "unfold/empty": lambda L, d: L.empty(0, device=d).unfold(0, 1, 1),
    "unfold/step_past_size_grad": lambda L, d: _grad(lambda x: x.unfold(0, 1, 3),
                                                     L.arange(5., device=d, dtype=L.float64).requires_grad_()),
    # ---- wrong Python types: PyTorch's parser wording, positions counted without self in the method form
    "median/dim_none": lambda L, d: L.median(T(L, [1., 2.], d), None),
    "median/dim_str_method": lambda L, d: T(L, [1., 2.], d).median("a"),
    "kthvalue/k_float": lambda L, d: L.kthvalue(T(L, [1., 2.], d), 1.0),
    "kthvalue/k_none_method": lambda L, d: T(L, [1., 2.], d).kthvalue(None),
    "kthvalue/dim_none": lambda L, d: T(L, [1., 2.], d).kthvalue(1, None),
    "mode/dim_float": lambda L, d: L.mode(T(L, [1., 2.], d), 0.5),
    "cummax/dim_str": lambda L, d: L.cummax(T(L, [1., 2.], d), "a"),
    "cummin/dim_bool_method": lambda L, d: T(L, [1., 2.], d).cummin(True),
    "cummax/dim_0dim_tensor": lambda L, d: T(L, [1., 2.], d).cummax(T(L, 0, d)),
    "cumprod/dim_none": lambda L, d: L.cumprod(T(L, [1., 2.], d), None),
    "logcumsumexp/dim_float_method": lambda L, d: T(L, [1., 2.], d).logcumsumexp(0.0),
    "cumsum_/dim_float": lambda L, d: T(L, [1., 2.], d).cumsum_(1.0),
    "scatter_reduce/reduce_none": lambda L, d: L.scatter_reduce(L.zeros(3, device=d), 0, T(L, [0], d), T(L, [1.], d),
                                                                None),
    "scatter_reduce_/reduce_int": lambda L, d: L.zeros(3, device=d).scatter_reduce_(0, T(L, [0], d), T(L, [1.], d), 3),
    "index_reduce/dim_float": lambda L, d: L.ones(3, device=d).index_reduce(0.0, T(L, [0], d), T(L, [2.], d), "prod"),
    "unfold/step_float": lambda L, d: L.zeros(3, device=d).unfold(0, 2, 1.0),
    "unfold/dimension_none": lambda L, d: L.zeros(3, device=d).unfold(None, 2, 1),
    "unfold/size_bool": lambda L, d: L.zeros(3, device=d).unfold(0, True, 1),
    # ---- Python compositions
    "nan_to_num/float16_posinf_past_max": lambda L, d: L.nan_to_num(T(L, [INF, -INF, N], d, "float16"),
                                                                   nan=1e6, posinf=1e10, neginf=-70000.0),
    "nan_to_num/none": lambda L, d: L.nan_to_num(None),
    "nan_to_num/nan_str": lambda L, d: L.nan_to_num(T(L, [N], d), nan="a"),
    "is_nonzero/list": lambda L, d: L.is_nonzero([1]),
    "div/rounding_mode_int": lambda L, d: L.div(T(L, [1.], d), 2, rounding_mode=1),
    "div/trunc_by_zero": lambda L, d: L.div(T(L, [1, 2], d), T(L, [0, 1], d), rounding_mode="trunc"),
    "dist/int": lambda L, d: L.dist(T(L, [1, 2], d), T(L, [1, 3], d)),
    "renorm/int": lambda L, d: L.renorm(L.ones(2, 2, dtype=L.long, device=d), 2, 0, 1.0),
    "renorm/p_negative": lambda L, d: L.renorm(L.ones(2, 2, device=d), -1, 0, 1.0),
    "renorm/1d": lambda L, d: L.renorm(L.ones(2, device=d), 2, 0, 1.0),
    "matrix_power/float_n": lambda L, d: L.matrix_power(L.eye(2, device=d), 2.0),
    "lu_unpack/pivots_short": lambda L, d: L.lu_unpack(L.eye(3, device=d), T(L, [1, 2], d, "int32")),
    "lu_unpack/pivot_past_rows": lambda L, d: L.lu_unpack(L.eye(2, device=d), T(L, [5, 1], d, "int32")),
    "lu_unpack/pivot_zero": lambda L, d: L.lu_unpack(L.eye(2, device=d), T(L, [0, 2], d, "int32")),
    "lu_unpack/pivots_int64": lambda L, d: L.lu_unpack(L.eye(2, device=d), T(L, [1, 2], d)),
    "put/empty_self": lambda L, d: L.put(L.zeros(0, device=d), T(L, [0], d), T(L, [1.], d)),
    "put/index_out_of_range": lambda L, d: L.put(L.zeros(3, device=d), T(L, [-4], d), T(L, [1.], d)),
    "put/source_short": lambda L, d: L.put(L.zeros(3, device=d), T(L, [0, 1], d), T(L, [1.], d)),
    "put_/expanded": lambda L, d: L.zeros(3, device=d).expand(2, 3).put_(T(L, [0], d), T(L, [1.], d)),
    "fill_diagonal_/str": lambda L, d: L.zeros(2, 2, device=d).fill_diagonal_("a"),
    "fill_diagonal_/1d": lambda L, d: L.zeros(3, device=d).fill_diagonal_(1),
    "fill_diagonal_/int8_overflow": lambda L, d: L.zeros(2, 2, dtype=L.int8, device=d).fill_diagonal_(300),
    "index_put/indices_not_a_tuple": lambda L, d: L.index_put(L.zeros(3, device=d), T(L, [1], d), T(L, [1.], d)),
    "index_put_/indices_none": lambda L, d: L.index_put_(L.zeros(3, device=d), None, T(L, [1.], d)),
    "new/none": lambda L, d: L.ones(2, device=d).new(None),
    "new/str": lambda L, d: L.ones(2, device=d).new("a"),
    "new/float": lambda L, d: L.ones(2, device=d).new(1.5),
    # ---- creation over existing memory
    "asarray/none": lambda L, d: L.asarray(None),
    "asarray/dict": lambda L, d: L.asarray({1: 2}),
    "asarray/set": lambda L, d: L.asarray({1, 2}),
    "asarray/ragged": lambda L, d: L.asarray([[1], [1, 2]]),
    "frombuffer/count_0": lambda L, d: L.frombuffer(bytearray(b"abcd"), dtype=L.uint8, count=0),
    "frombuffer/empty": lambda L, d: L.frombuffer(bytearray(), dtype=L.uint8),
    "frombuffer/offset_past_end": lambda L, d: L.frombuffer(bytearray(b"abcd"), dtype=L.uint8, offset=4),
    "frombuffer/offset_negative": lambda L, d: L.frombuffer(bytearray(b"abcd"), dtype=L.uint8, offset=-1),
    "frombuffer/offset_float": lambda L, d: L.frombuffer(bytearray(b"abcd"), dtype=L.uint8, offset=1.0),
    "frombuffer/count_huge": lambda L, d: L.frombuffer(bytearray(b"abcd"), dtype=L.uint8, count=2**62),
    "frombuffer/length_not_multiple": lambda L, d: L.frombuffer(bytearray(b"abc"), dtype=L.float32),
    "empty_strided/int_size": lambda L, d: L.empty_strided(2, 1),
    "empty_strided/negative_size": lambda L, d: L.empty_strided((-1,), (1,)),
    "empty_strided/negative_stride": lambda L, d: L.empty_strided((2, 3), (-1, 1)),
    "empty_strided/stride_overflow": lambda L, d: L.empty_strided((2,), (2**62,)),
    "empty_strided/size_overflow": lambda L, d: L.empty_strided((2**62, 4), (4, 1)),
    "empty_strided/zero_stride": lambda L, d: L.empty_strided((3, 2), (0, 1), device=d).stride(),
    "empty_strided/all_zero_strides": lambda L, d: L.empty_strided((3, 2), (0, 0), device=d).stride(),
    # ---- random fills: arguments out of range for the dtype
    "geometric_/bool": lambda L, d: L.zeros(3, dtype=L.bool, device=d).geometric_(0.5),
    "geometric_/p_0": lambda L, d: L.zeros(3, device=d).geometric_(0),
    "exponential_/negative": lambda L, d: L.zeros(3, device=d).exponential_(-1.0),
    "exponential_/int": lambda L, d: L.zeros(3, dtype=L.long, device=d).exponential_(),
    "cauchy_/sigma_0": lambda L, d: L.zeros(3, device=d).cauchy_(0, 0),
    "log_normal_/int": lambda L, d: L.zeros(3, dtype=L.long, device=d).log_normal_(),
    "random_/float16_to_past_max": lambda L, d: L.zeros(3, dtype=L.float16, device=d).random_(0, 2**20),
    "random_/bfloat16_to_past_max": lambda L, d: L.zeros(3, dtype=L.bfloat16, device=d).random_(0, 2**200),
    "random_/int8_to_past_max": lambda L, d: L.zeros(3, dtype=L.int8, device=d).random_(0, 1000),
    "random_/from_not_below_to": lambda L, d: L.zeros(3, device=d).random_(5, 2),
    "random_/float_argument": lambda L, d: L.zeros(3, device=d).random_(1.5),
    "random_/three_arguments": lambda L, d: L.zeros(3, device=d).random_(0, 1, 2),
    "random_/expanded": lambda L, d: L.zeros(3, device=d).expand(2, 3).random_(0, 5),
    "exponential_/leaf_requires_grad": lambda L, d: L.zeros(3, device=d, requires_grad=True).exponential_(),
    # ---- distributions
    "Normal/negative_scale": lambda L, d: L.distributions.Normal(T(L, [0.], d), T(L, [-1.], d)),
    "Normal/shapes_differ": lambda L, d: L.distributions.Normal(L.zeros(2, device=d), L.ones(3, device=d)),
    "Normal/str": lambda L, d: L.distributions.Normal("a", 1),
    "Normal/negative_sample_shape": lambda L, d: L.distributions.Normal(T(L, [0.], d), T(L, [1.], d)).sample((-1,)),
    "Bernoulli/probs_and_logits": lambda L, d: L.distributions.Bernoulli(probs=T(L, [0.5], d), logits=T(L, [0.], d)),
    "Categorical/empty": lambda L, d: L.distributions.Categorical(probs=L.ones(0, device=d)),
    "Categorical/log_prob_without_validation": lambda L, d: L.distributions.Categorical(
        probs=T(L, [0.5, 0.5], d), validate_args=False).log_prob(T(L, [5], d)),
    "Uniform/log_prob_outside_without_validation": lambda L, d: L.distributions.Uniform(
        T(L, [0.], d), T(L, [1.], d), validate_args=False).log_prob(T(L, [2., 0.5], d)),
    "Independent/too_many_dims": lambda L, d: L.distributions.Independent(
        L.distributions.Normal(L.zeros(2, device=d), L.ones(2, device=d)), 2),
    "kl/mvn_event_shapes_differ": lambda L, d: L.distributions.kl_divergence(
        L.distributions.MultivariateNormal(L.zeros(2, device=d), L.eye(2, device=d)),
        L.distributions.MultivariateNormal(L.zeros(3, device=d), L.eye(3, device=d))),
    "kl/different_families": lambda L, d: L.distributions.kl_divergence(
        L.distributions.Normal(T(L, [0.], d), T(L, [1.], d)), L.distributions.Bernoulli(probs=T(L, [0.5], d))),
    "kl/uniform_disjoint": lambda L, d: L.distributions.kl_divergence(
        L.distributions.Uniform(T(L, [0.], d), T(L, [1.], d)), L.distributions.Uniform(T(L, [2.], d), T(L, [3.], d))),
}

# Where tandem's first line intentionally differs from PyTorch's (same exception type): the case and why.
DIFFERENT_WORDING = {
    "masked_scatter/mask_not_broadcastable": "tandem's expand message prints the shape without PyTorch's type name",
}

# Integer division by zero raises on the CPU only (a device reports it at the next synchronisation).
CPU_ONLY = {"div/trunc_by_zero"}

# Errors that must not depend on the device: every operand on another device than self is refused.
MIXED_DEVICES = {
    "searchsorted": lambda L, a, b: L.searchsorted(T(L, [1., 2.], a), T(L, [1.5], b)),
    "bucketize": lambda L, a, b: L.bucketize(T(L, [1.5], a), T(L, [1., 2.], b)),
    "isin": lambda L, a, b: L.isin(T(L, [1., 2.], a), T(L, [1.], b)),
    "bincount": lambda L, a, b: L.bincount(T(L, [0, 1], a), weights=T(L, [1., 2.], b)),
    "histogram_bins": lambda L, a, b: L.histogram(T(L, [1., 2.], a), bins=T(L, [0., 3.], b)),
    "histogram_weight": lambda L, a, b: L.histogram(T(L, [1., 2.], a), bins=2, weight=T(L, [1., 2.], b)),
    "quantile": lambda L, a, b: L.quantile(T(L, [1., 2.], a), T(L, [0.5], b)),
    "scatter_reduce_index": lambda L, a, b: T(L, [1., 2.], a).scatter_reduce(0, T(L, [0], b), T(L, [1.], a), "sum"),
    "scatter_reduce__src": lambda L, a, b: T(L, [1., 2.], a).scatter_reduce_(0, T(L, [0], a), T(L, [1.], b), "amax"),
    "index_reduce_source": lambda L, a, b: T(L, [1., 2.], a).index_reduce(0, T(L, [0], a), T(L, [1.], b), "prod"),
    "masked_scatter_mask": lambda L, a, b: T(L, [1., 2.], a).masked_scatter(T(L, [True, False], b), T(L, [5.], a)),
    "put_index": lambda L, a, b: L.put(L.zeros(3, device=a), T(L, [1], b), T(L, [1.], a)),
    "put__source": lambda L, a, b: L.zeros(3, device=a).put_(T(L, [1], a), T(L, [1.], b)),
    "lu_unpack_pivots": lambda L, a, b: L.lu_unpack(L.eye(2, device=a), T(L, [1, 2], b, "int32")),
    "Normal_sample": lambda L, a, b: L.distributions.Normal(T(L, [0.], a), T(L, [1.], b)).sample(),
    "masked_scatter__source": lambda L, a, b: T(L, [1., 2.], a).masked_scatter_(T(L, [True, False], a),
                                                                                T(L, [5.], b)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input_matches_pytorch(name, device):
    if name in CPU_ONLY and device != "cpu":
        pytest.skip("CPU behaviour")
    case = CASES[name]
    kind, expected = _outcome(case, torch, "cpu")
    got_kind, got = _outcome(case, tandem, device)
    if kind == "error":
        assert got_kind == "error", f"PyTorch raises {type(expected).__name__}: {expected}; tandem returned {got!r}"
        assert isinstance(got, type(expected)) or type(got).__name__.strip("_") == type(expected).__name__.strip(
            "_"), (got, expected)
        if name not in DIFFERENT_WORDING:
            assert _first_line(got) == _first_line(expected)
    else:
        assert got_kind == "value", f"PyTorch returns {expected!r}; tandem raised {got!r}"
        assert_same_result(got, expected, exact=True)


@pytest.mark.parametrize("name", sorted(MIXED_DEVICES))
def test_operands_on_another_device_are_refused(name, device):
    others = [d for d in ("cpu", "cuda:0", "cuda:1") if d != device and
              (d == "cpu" or (tandem.cuda.is_available() and int(d[-1]) < tandem.cuda.device_count()))]
    if not others:
        pytest.skip("one device only")
    for other in others:
        with pytest.raises(RuntimeError, match="device"):
            MIXED_DEVICES[name](tandem, device, other)


def test_huge_sizes_from_small_inputs_raise_instead_of_allocating():
    """A value or bin count of 2**40 asks for terabytes: refused as PyTorch's allocator does (a RuntimeError)."""
    for make in (lambda: tandem.bincount(tandem.tensor([2**40])),
                 lambda: tandem.bincount(tandem.tensor([1]), minlength=2**62),
                 lambda: tandem.histc(tandem.tensor([1.]), bins=2**40),
                 lambda: tandem.histogram(tandem.tensor([1., 2.]), bins=2**40)):
        with pytest.raises(RuntimeError):
            make()
