"""Sweep 15 programs, sorting and searching as NumPy ports write it: searchsorted with sorter/side/right and
out_int32, bucketize binning, unique / unique_consecutive in every return form and along a dim, sort/argsort/topk
with ties and stable=True, kthvalue, msort, and a merge of sorted runs."""
import numpy as np

from sweep15_common import array, cases


def searchsorted_forms(torch, device):
    seq = array(torch, [1.0, 3.0, 3.0, 5.0, 7.0], device)
    unsorted = array(torch, [7.0, 1.0, 5.0, 3.0, 3.0], device)
    sorter = torch.argsort(unsorted, stable=True)
    vals = array(torch, [[0.0, 3.0, 6.0], [7.0, 8.0, 3.0]], device)
    rows = array(torch, [[1, 2, 3, 4], [2, 4, 6, 8]], device)
    return cases(torch, {
        "left": lambda: torch.searchsorted(seq, vals),
        "right": lambda: torch.searchsorted(seq, vals, right=True),
        "side": lambda: torch.searchsorted(seq, vals, side="right"),
        "sorter": lambda: torch.searchsorted(unsorted, vals, sorter=sorter),
        "sorter_right": lambda: torch.searchsorted(unsorted, vals, side="right", sorter=sorter),
        "int32": lambda: torch.searchsorted(seq, vals, out_int32=True),
        "scalar": lambda: torch.searchsorted(seq, 3.0),
        "scalar_right": lambda: torch.searchsorted(seq, 3, right=True),
        "batched": lambda: torch.searchsorted(rows, array(torch, [[3, 5], [5, 9]], device)),
        "int_seq_float_vals": lambda: torch.searchsorted(rows[0], array(torch, [2.5, 0.1], device)),
        "conflict": lambda: torch.searchsorted(seq, vals, right=False, side="right"),
        "bad_side": lambda: torch.searchsorted(seq, vals, side="middle"),
        "batch_mismatch": lambda: torch.searchsorted(rows, array(torch, [[3, 5]], device)),
        "method": lambda: seq.searchsorted(vals) if hasattr(seq, "searchsorted") else "missing",
        "out": lambda: torch.searchsorted(seq, vals, out=torch.empty(2, 3, dtype=torch.int64, device=device)),
    })


def bucketize_binning(torch, device):
    edges = array(torch, [0.0, 0.25, 0.5, 0.75, 1.0], device)
    x = array(torch, np.linspace(-0.1, 1.1, 13), device, torch.float32)
    idx = torch.bucketize(x, edges)
    idx_r = torch.bucketize(x, edges, right=True)
    clipped = idx.clamp(1, len(edges) - 1) - 1
    counts = torch.bincount(clipped, minlength=len(edges) - 1)
    centers = (edges[1:] + edges[:-1]) / 2
    return cases(torch, {
        "idx": lambda: idx, "idx_r": lambda: idx_r, "counts": lambda: counts,
        "digitized_centers": lambda: centers[clipped],
        "int32": lambda: torch.bucketize(x, edges, out_int32=True),
        "scalar": lambda: torch.bucketize(0.5, edges),
        "scalar_right": lambda: torch.bucketize(0.5, edges, right=True),
        "int_input": lambda: torch.bucketize(array(torch, [0, 1, 2], device), edges),
        "2d_boundaries": lambda: torch.bucketize(x, edges.reshape(1, -1)),
        "out": lambda: torch.bucketize(x, edges, out=torch.empty(13, dtype=torch.int64, device=device)),
    })


def unique_variants(torch, device):
    x = array(torch, [3, 1, 2, 3, 3, 1, 5, 2, 2, 0], device)
    m = array(torch, [[1, 2], [3, 4], [1, 2], [0, 9], [3, 4]], device)
    f = array(torch, [1.5, float("nan"), 1.5, float("nan"), -0.0, 0.0], device)
    return cases(torch, {
        "plain": lambda: torch.unique(x),
        "unsorted": lambda: torch.unique(x, sorted=False).sort().values,
        "inverse": lambda: torch.unique(x, return_inverse=True),
        "counts": lambda: torch.unique(x, return_counts=True),
        "both": lambda: torch.unique(x, return_inverse=True, return_counts=True),
        "dim0": lambda: torch.unique(m, dim=0, return_inverse=True, return_counts=True),
        "dim1": lambda: torch.unique(m, dim=1),
        "method": lambda: m.unique(return_counts=True),
        "float_nan": lambda: torch.unique(f).tolist().__len__(),
        "consecutive": lambda: torch.unique_consecutive(x, return_inverse=True, return_counts=True),
        "consecutive_dim": lambda: torch.unique_consecutive(m, dim=0, return_counts=True),
        "consecutive_plain": lambda: torch.unique_consecutive(array(torch, [1, 1, 2, 2, 3, 1, 1], device)),
        "bool": lambda: torch.unique(array(torch, [True, False, True], device), return_counts=True),
        "empty": lambda: torch.unique(torch.empty(0, device=device), return_inverse=True, return_counts=True),
        "first_occurrence": lambda: _first_occurrence(torch, x),
        "value_counts_topk": lambda: torch.unique(x, return_counts=True)[1].topk(2).values,
        "dim_bad": lambda: torch.unique(m, dim=2),
    })


def _first_occurrence(torch, x):
    uniq, inv = torch.unique(x, return_inverse=True)
    first = torch.full((len(uniq),), len(x), dtype=torch.long, device=x.device)
    first.scatter_reduce_(0, inv, torch.arange(len(x), device=x.device), reduce="amin")
    return first


def sort_ties_stable(torch, device):
    keys = array(torch, [2, 1, 2, 0, 1, 2, 0], device)
    f = array(torch, [0.5, float("nan"), -1.0, 0.5, float("inf"), -float("inf"), float("nan")], device)
    grid = array(torch, [[3, 1, 3], [1, 1, 0], [2, 2, 2]], device)
    # lexsort by (secondary, primary) with two stable sorts, as a NumPy port writes np.lexsort
    primary = array(torch, [1, 0, 1, 0, 1, 0], device)
    secondary = array(torch, [5, 3, 4, 3, 5, 1], device)
    o = torch.argsort(secondary, stable=True)
    o = o[torch.argsort(primary[o], stable=True)]
    return cases(torch, {
        "stable": lambda: torch.sort(keys, stable=True),
        "stable_desc": lambda: torch.sort(keys, stable=True, descending=True),
        "argsort_stable": lambda: torch.argsort(keys, stable=True),
        "argsort_desc_stable": lambda: torch.argsort(keys, descending=True, stable=True),
        "nan_sort": lambda: torch.sort(f, stable=True),
        "nan_desc": lambda: torch.sort(f, descending=True, stable=True),
        "grid_dim0": lambda: torch.sort(grid, dim=0, stable=True),
        "lexsort": lambda: o,
        "bool_sort": lambda: torch.sort(array(torch, [True, False, True, False], device), stable=True),
        "int8": lambda: torch.sort(array(torch, [5, -3, 127, -128, 0], device, torch.int8)),
        "half": lambda: torch.sort(array(torch, [0.5, -2.0, 1.0], device, torch.float16), descending=True),
        "method_kw": lambda: keys.sort(stable=True, dim=0),
        "argsort_kw_only": lambda: torch.argsort(keys, 0, True),
        "rank": lambda: torch.argsort(torch.argsort(keys, stable=True), stable=True),
    })


def kth_topk_msort(torch, device):
    x = array(torch, [[4.0, 1.0, 4.0, 2.0, 2.0], [0.0, 0.0, -1.0, 3.0, 3.0]], device)
    return cases(torch, {
        "kth": lambda: torch.kthvalue(x, 2, dim=1),
        "kth_keepdim": lambda: torch.kthvalue(x, 3, 1, True),
        "kth_dim0": lambda: x.kthvalue(1, dim=0),
        "kth_bad": lambda: torch.kthvalue(x, 6, dim=1),
        "msort": lambda: torch.msort(x),
        "msort_t": lambda: torch.msort(x.t()),
        "topk_largest": lambda: torch.topk(x, 2, dim=1).values,
        "topk_smallest": lambda: torch.topk(x, 3, largest=False).values,
        "topk_int": lambda: torch.topk(array(torch, [3, 9, 1, 9, 4], device), 2),
        "topk_too_big": lambda: torch.topk(x, 6),
        "topk_zero": lambda: torch.topk(x, 0),
        "median_ties": lambda: torch.median(x, dim=1),
        "median_all": lambda: torch.median(x),
        "nanmedian": lambda: torch.nanmedian(array(torch, [1.0, float("nan"), 3.0, 2.0], device)),
        "mode": lambda: torch.mode(array(torch, [2, 2, 1, 1, 3], device)),
        "argmax_ties": lambda: torch.argmax(array(torch, [1, 3, 3, 2], device)),
        "argmin_keepdim": lambda: torch.argmin(x, dim=1, keepdim=True),
        "sort_values_of_topk": lambda: torch.topk(x.flatten(), 4, sorted=True).values,
    })


def merge_sorted_runs(torch, device):
    rng = np.random.default_rng(1501)
    a = torch.tensor(np.sort(rng.integers(0, 50, 9)), device=device)
    b = torch.tensor(np.sort(rng.integers(0, 50, 7)), device=device)
    # merge two sorted arrays by searchsorted ranks (a stable merge, a's equal keys first)
    pos_a = torch.arange(len(a), device=device) + torch.searchsorted(b, a, side="left")
    pos_b = torch.arange(len(b), device=device) + torch.searchsorted(a, b, side="right")
    merged = torch.empty(len(a) + len(b), dtype=a.dtype, device=device)
    merged[pos_a] = a
    merged[pos_b] = b
    # intersection / set difference / isin
    inter = a[torch.isin(a, b)]
    diff = a[torch.isin(a, b, invert=True)]
    # counting ranges: how many of a fall in each [lo, hi)
    lo = array(torch, [0, 10, 20, 40], device)
    hi = array(torch, [10, 20, 40, 50], device)
    in_range = torch.searchsorted(a, hi) - torch.searchsorted(a, lo)
    return cases(torch, {
        "merged": lambda: merged, "check": lambda: bool(torch.equal(merged, torch.sort(torch.cat([a, b])).values)),
        "inter": lambda: inter, "diff": lambda: diff, "in_range": lambda: in_range,
        "isin_scalar": lambda: torch.isin(a, 7), "isin_assume": lambda: torch.isin(a, b, assume_unique=False),
        "isin_scalar_elements": lambda: torch.isin(5, a),
    })


PROGRAMS = [searchsorted_forms, bucketize_binning, unique_variants, sort_ties_stable, kth_topk_msort,
            merge_sorted_runs]
NEEDS_CPP = {}
