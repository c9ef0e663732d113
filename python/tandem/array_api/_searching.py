"""The standard's searching, sorting and set functions. argmax/argsort/sort/where are tandem's ops; searchsorted
and the unique_* family are composed from tandem ops (no kernel yet): unique from a stable sort, searchsorted from
a broadcast comparison (O(len(x1) * len(x2)) memory, fine for the sizes the standard's users pass)."""
import collections

from .. import _C
from .._creation import tensor

UniqueAllResult = collections.namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = collections.namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = collections.namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _keep_all_dims(out, x, axis, keepdims):
    """argmax/argmin over every dim with keepdims: the standard keeps x.ndim size-1 dims."""
    return out.reshape((1,) * x.ndim) if keepdims and axis is None else out


def argmax(x, /, *, axis=None, keepdims=False):
    return _keep_all_dims(_C.argmax(x, dim=axis, keepdim=keepdims), x, axis, keepdims)


def argmin(x, /, *, axis=None, keepdims=False):
    return _keep_all_dims(_C.argmin(x, dim=axis, keepdim=keepdims), x, axis, keepdims)


def count_nonzero(x, /, *, axis=None, keepdims=False):
    axis = list(axis) if isinstance(axis, tuple) else axis
    if axis == []:
        return (x != 0).to(_C.int64)
    return _C.sum(x != 0, dim=axis, keepdim=keepdims)


def nonzero(x, /):
    if x.ndim == 0:
        raise ValueError("nonzero(): zero-dimensional arrays are not allowed")
    return tuple(_C.nonzero(x, as_tuple=True))


def where(condition, x1, x2, /):
    if isinstance(x1, _C.Tensor) and isinstance(x2, _C.Tensor) and x1.dtype != x2.dtype:  # 0-d arrays promote fully
        dtype = _C.promote_types(x1.dtype, x2.dtype)
        x1, x2 = x1.to(dtype), x2.to(dtype)
    return _C.where(condition, x1, x2)


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Insertion points of x2 in sorted 1-d x1: how many x1 sort before each value (NaN sorts last)."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted(): side must be 'left' or 'right', got {side!r}")
    if sorter is not None:
        x1 = _C.take(x1, sorter)
    if not isinstance(x2, _C.Tensor):
        x2 = tensor(x2, dtype=x1.dtype, device=x1.device)
    values = x2.unsqueeze(-1)
    before = (x1 < values) if side == "left" else (x1 <= values)
    if x1.dtype.is_floating_point:  # NaN sorts after every number, and (for side="right") after other NaNs
        nan_value = _C.isnan(values)
        tail = _C.isnan(x1) if side == "right" else _C.zeros((), dtype=_C.bool, device=x1.device)
        before = before | (nan_value & (_C.isnan(x1).logical_not() | tail))
    return _C.sum(before, dim=-1)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    return _C.argsort(x, axis, descending, stable=stable)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    return _C.sort(x, axis, descending, stable=stable)[0]


def _unique_parts(x):
    """Sorted values, the permutation that sorted them, where each run of equal values starts, and each element's
    run number. NaNs compare unequal, so each is its own run, as the standard asks."""
    flat = x.reshape(-1)
    order = _C.argsort(flat, stable=True)
    ordered = flat[order]
    starts = _C.ones(ordered.shape, dtype=_C.bool, device=x.device)
    if ordered.shape[0] > 1:
        starts[1:] = ordered[1:] != ordered[:-1]
    run = _C.cumsum(starts, dim=0) - 1
    return ordered, order, starts, run


def _inverse(x, order, run):
    inverse = _C.empty(order.shape, dtype=_C.int64, device=x.device)
    inverse[order] = run
    return inverse.reshape(tuple(x.shape))


def _counts(starts):
    first = _C.nonzero(starts).reshape(-1)
    ends = _C.cat([first[1:], tensor([starts.shape[0]], device=starts.device)])
    return ends - first, first


def unique_values(x, /):
    ordered, _, starts, _ = _unique_parts(x)
    return ordered[starts]


def unique_counts(x, /):
    ordered, _, starts, _ = _unique_parts(x)
    counts, _ = _counts(starts)
    return UniqueCountsResult(ordered[starts], counts)


def unique_inverse(x, /):
    ordered, order, starts, run = _unique_parts(x)
    return UniqueInverseResult(ordered[starts], _inverse(x, order, run))


def unique_all(x, /):
    ordered, order, starts, run = _unique_parts(x)
    counts, first = _counts(starts)
    return UniqueAllResult(ordered[starts], order[first], _inverse(x, order, run), counts)
