"""The index-taking ops as a matrix, beyond indexing.py and index_ops.py: gather, scatter (src and value forms),
scatter_add, scatter_reduce (sum, prod, mean, amax, amin; include_self both ways), index_add, index_copy,
index_fill, index_select and take_along_dim, each crossed with one list of hostile index arguments (past the end,
negative, int32/int16/uint8/float/bool dtypes, 0-d, empty, more dims than self, a larger size than self or src in
a non-indexed dim, another device, non-contiguous, duplicates) and of hostile dims (negative, past the rank) and
sources (another dtype, too small, 0-d). Values are compared; duplicates are only used where the op's result does
not depend on the order of writes."""
from . import R


def ix(L, d, v, dtype="int64"):
    return L.tensor(v, device=d, dtype=getattr(L, dtype))


def X(L, d, dtype="float32"):
    return R(L, (3, 4), d, dtype)


INDEX = {
    "ok": lambda L, d: ix(L, d, [[0, 1, 2, 0], [2, 0, 1, 1]]),
    "past": lambda L, d: ix(L, d, [[0, 1, 3, 0], [2, 0, 1, 1]]),
    "negative": lambda L, d: ix(L, d, [[0, -1, 2, 0], [2, 0, 1, 1]]),
    "int32": lambda L, d: ix(L, d, [[0, 1, 2, 0], [2, 0, 1, 1]], "int32"),
    "int16": lambda L, d: ix(L, d, [[0, 1, 2, 0], [2, 0, 1, 1]], "int16"),
    "uint8": lambda L, d: ix(L, d, [[0, 1, 2, 0], [2, 0, 1, 1]], "uint8"),
    "float": lambda L, d: ix(L, d, [[0, 1, 2, 0], [2, 0, 1, 1]], "float32"),
    "bool": lambda L, d: ix(L, d, [[0, 1, 1, 0], [1, 0, 1, 1]], "bool"),
    "0d": lambda L, d: ix(L, d, 1),
    "empty": lambda L, d: L.zeros(0, 4, dtype=L.int64, device=d),
    "empty_1d": lambda L, d: L.zeros(0, dtype=L.int64, device=d),
    "1d": lambda L, d: ix(L, d, [0, 2]),
    "3d": lambda L, d: ix(L, d, [[[0]]]),
    "wider_than_self": lambda L, d: ix(L, d, [[0, 1, 2, 0, 1]]),
    "taller_than_self": lambda L, d: L.zeros(5, 4, dtype=L.int64, device=d),
    "cpu": lambda L, d: ix(L, "cpu", [[0, 1, 2, 0], [2, 0, 1, 1]]),
    "transposed": lambda L, d: ix(L, d, [[0, 2], [1, 0], [2, 1], [0, 1]]).t(),
    "int64_max": lambda L, d: ix(L, d, [[2 ** 63 - 1]]),
    "int64_min": lambda L, d: ix(L, d, [[-2 ** 63]]),
    "duplicates_dim0": lambda L, d: ix(L, d, [[0, 0, 0, 0], [0, 0, 0, 0]]),
}
DIMS = {"dim0": 0, "dim1": 1, "dim_neg": -2, "dim_past": 2, "dim_neg_past": -3}


def _src(L, d, idx, dtype="float32"):
    shape = tuple(idx.shape) if idx.dim() else ()
    return R(L, shape, d, dtype, 2.0) if dtype.startswith("float") else L.ones(shape, dtype=getattr(L, dtype),
                                                                                  device=d)


OPS = {
    "gather": lambda L, d, i, dim: X(L, d).gather(dim, i),
    "gather_sparse_grad": lambda L, d, i, dim: L.gather(X(L, d), dim, i, sparse_grad=True),
    "take_along_dim": lambda L, d, i, dim: L.take_along_dim(X(L, d), i, dim),
    "scatter_src": lambda L, d, i, dim: X(L, d).scatter(dim, i, _src(L, d, i) if i.dtype != L.bool else
                                                        L.ones(i.shape, device=d)),
    "scatter_value": lambda L, d, i, dim: X(L, d).scatter(dim, i, 2.5),
    "scatter_add": lambda L, d, i, dim: X(L, d).scatter_add(dim, i, L.ones(i.shape, device=d)),
    "scatter_reduce_sum": lambda L, d, i, dim: X(L, d).scatter_reduce(dim, i, L.ones(i.shape, device=d), "sum"),
    "scatter_reduce_prod": lambda L, d, i, dim: X(L, d).scatter_reduce(dim, i, L.full(i.shape, 2.0, device=d),
                                                                       "prod"),
    "scatter_reduce_mean": lambda L, d, i, dim: X(L, d).scatter_reduce(dim, i, L.ones(i.shape, device=d), "mean"),
    "scatter_reduce_amax": lambda L, d, i, dim: X(L, d).scatter_reduce(dim, i, L.ones(i.shape, device=d), "amax",
                                                                       include_self=False),
    "scatter_reduce_amin": lambda L, d, i, dim: X(L, d).scatter_reduce(dim, i, L.ones(i.shape, device=d), "amin"),
    "scatter_reduce_mean_no_self": lambda L, d, i, dim: X(L, d).scatter_reduce(dim, i, L.ones(i.shape, device=d),
                                                                               "mean", include_self=False),
}

CASES = {}
for _o, _fn in OPS.items():
    for _i, _idx in INDEX.items():
        for _dn, _dim in DIMS.items():
            if _dn in ("dim0", "dim1") or _i == "ok":
                CASES[f"{_o}/{_i}/{_dn}"] = lambda L, d, fn=_fn, idx=_idx, dim=_dim: fn(L, d, idx(L, d), dim)

ARGS_1D = {
    "ok": lambda L, d: ix(L, d, [0, 2]),
    "past": lambda L, d: ix(L, d, [0, 3]),
    "negative": lambda L, d: ix(L, d, [-1, 0]),
    "int32": lambda L, d: ix(L, d, [0, 2], "int32"),
    "int16": lambda L, d: ix(L, d, [0, 2], "int16"),
    "uint8": lambda L, d: ix(L, d, [0, 2], "uint8"),
    "float": lambda L, d: ix(L, d, [0.0, 2.0], "float32"),
    "bool": lambda L, d: ix(L, d, [True, False], "bool"),
    "0d": lambda L, d: ix(L, d, 1),
    "empty": lambda L, d: L.zeros(0, dtype=L.int64, device=d),
    "2d": lambda L, d: ix(L, d, [[0, 2]]),
    "duplicates": lambda L, d: ix(L, d, [1, 1]),
    "cpu": lambda L, d: ix(L, "cpu", [0, 2]),
}
SOURCES = {
    "ok": lambda L, d, n, dim: L.ones((n, 4) if dim == 0 else (3, n), device=d),
    "float64": lambda L, d, n, dim: L.ones((n, 4) if dim == 0 else (3, n), device=d, dtype=L.float64),
    "int64": lambda L, d, n, dim: L.ones((n, 4) if dim == 0 else (3, n), device=d, dtype=L.int64),
    "too_small": lambda L, d, n, dim: L.ones((n, 2) if dim == 0 else (1, n), device=d),
    "wrong_count": lambda L, d, n, dim: L.ones((n + 1, 4) if dim == 0 else (3, n + 1), device=d),
    "0d": lambda L, d, n, dim: L.tensor(1.0, device=d),
    "1d": lambda L, d, n, dim: L.ones(4, device=d),
    "cpu": lambda L, d, n, dim: L.ones((n, 4) if dim == 0 else (3, n)),
}


def _n(i):
    return i.numel() if i.dim() else 1


OPS_1D = {
    "index_add": lambda L, d, i, dim, s: X(L, d).index_add(dim, i, s(L, d, _n(i), dim)),
    "index_add_alpha": lambda L, d, i, dim, s: X(L, d).index_add(dim, i, s(L, d, _n(i), dim), alpha=2),
    "index_copy": lambda L, d, i, dim, s: X(L, d).index_copy(dim, i, s(L, d, _n(i), dim)),
    "index_fill": lambda L, d, i, dim, s: X(L, d).index_fill(dim, i, -1.0),
    "index_select": lambda L, d, i, dim, s: X(L, d).index_select(dim, i),
    "index_reduce_prod": lambda L, d, i, dim, s: X(L, d).index_reduce(dim, i, s(L, d, _n(i), dim), "prod"),
}
for _o, _fn in OPS_1D.items():
    for _i, _idx in ARGS_1D.items():
        for _dn, _dim in DIMS.items():
            if _dn in ("dim0", "dim1") or _i == "ok":
                for _s, _src_fn in SOURCES.items():
                    if _s == "ok" or (_i == "ok" and _dn in ("dim0", "dim1") and _o not in ("index_fill",
                                                                                            "index_select")):
                        if _o == "index_copy" and _i == "duplicates":
                            continue  # which duplicate wins is unspecified (PyTorch's docs)
                        CASES[f"{_o}/{_i}/{_dn}/src_{_s}"] = lambda L, d, fn=_fn, idx=_idx, dim=_dim, s=_src_fn: fn(
                            L, d, idx(L, d), dim, s)

CASES["scatter/reduce_kwarg_add"] = lambda L, d: X(L, d).scatter(0, INDEX["ok"](L, d), 1.0, reduce="add")
CASES["scatter/reduce_kwarg_multiply"] = lambda L, d: X(L, d).scatter(0, INDEX["ok"](L, d), 2.0, reduce="multiply")
CASES["scatter/reduce_kwarg_bad"] = lambda L, d: X(L, d).scatter(0, INDEX["ok"](L, d), 2.0, reduce="max")
CASES["scatter_reduce/bad_reduce"] = lambda L, d: X(L, d).scatter_reduce(0, INDEX["ok"](L, d), X(L, d)[:2], "max")
CASES["scatter_reduce/src_dtype"] = lambda L, d: X(L, d).scatter_reduce(0, INDEX["ok"](L, d), X(L, d, "float64")[:2],
                                                                        "sum")
CASES["scatter/src_dtype"] = lambda L, d: X(L, d).scatter(0, INDEX["ok"](L, d), X(L, d, "float64")[:2])
CASES["scatter/int_self_float_value"] = lambda L, d: X(L, d, "int64").scatter(0, INDEX["ok"](L, d), 2.5)
CASES["scatter_add/src_smaller"] = lambda L, d: X(L, d).scatter_add(0, INDEX["ok"](L, d), L.ones(1, 1, device=d))
CASES["scatter_/inplace_int_self"] = lambda L, d: X(L, d, "int64").scatter_(1, INDEX["ok"](L, d)[:, :3] % 4,
                                                                            L.ones(2, 3, device=d))
CASES["gather/out_of_place_int_self"] = lambda L, d: X(L, d, "int64").gather(1, INDEX["ok"](L, d))
CASES["take_along_dim/none_dim"] = lambda L, d: L.take_along_dim(X(L, d), ix(L, d, [0, 11]))
CASES["take_along_dim/none_dim_past"] = lambda L, d: L.take_along_dim(X(L, d), ix(L, d, [0, 12]))
CASES["take_along_dim/broadcast"] = lambda L, d: L.take_along_dim(X(L, d), ix(L, d, [[0], [1], [2]]), 1)
CASES["take_along_dim/broadcast_fail"] = lambda L, d: L.take_along_dim(X(L, d), ix(L, d, [[0], [1]]), 1)
CASES["take_along_dim/rank_mismatch"] = lambda L, d: L.take_along_dim(X(L, d), ix(L, d, [0, 1]), 1)
CASES["take/past"] = lambda L, d: L.take(X(L, d), ix(L, d, [12]))
CASES["take/negative"] = lambda L, d: L.take(X(L, d), ix(L, d, [-12]))
CASES["take/int32"] = lambda L, d: L.take(X(L, d), ix(L, d, [1], "int32"))

_CUDA_ONLY = ("cuda-only: a CPU index or source with a GPU tensor is refused (device mismatch), as PyTorch's CUDA "
              "kernels refuse it; the oracle runs on the CPU, where nothing mismatches (not checked against a real "
              "GPU this round: none was lent)")
# An empty 1-d index whatever self's rank (gather's empty result, scatter's self as is) matches since session 45
# (src/ops/gather.cpp, scatter_reduce.cpp).
# take_along_dim with a dim reads indices modulo the dim's size, as PyTorch 2.15, since session 45 (src/ops/gather.cpp).
# index_add/index_copy/index_reduce check the source in PyTorch's order (dim against the source's rank, a 0-dim
# source's index count, then the slice shapes and counts) since session 46 (src/ops/index_select.cpp,
# check_index_func_source).
# index_add with alpha != 1 words its range error as PyTorch's (IndexError 'index out of range in self') since
# session 45 (src/ops/index_select.cpp).
KNOWN = {}
for _name in CASES:
    parts = _name.split("/")
    if (parts[1] == "cpu" or parts[-1] == "src_cpu") and _name != "take_along_dim/cpu/dim1":
        KNOWN[_name] = _CUDA_ONLY  # (take_along_dim broadcasts a (2, 4) index along dim 1 of a (3, 4) self first)

