"""The standard's searching, sorting and set functions over tandem's argmax/argsort/sort/where/searchsorted/unique.
tandem.unique, as PyTorch's, counts each NaN as its own value, as the standard asks; complex arrays (which
tandem.unique refuses, as PyTorch does) go through a lexicographic sort here, NumPy's order."""
import collections
import math

from .. import _C
from .._creation import tensor
from ._statistical import _check_axes

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
    _check_axes("count_nonzero", x, axis)
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
    """tandem.searchsorted with the standard's keywords; a Python scalar x2 takes x1's dtype and device.

    tandem's sort puts NaNs last, but its binary search (PyTorch's) reads a NaN in x1 as smaller than every value,
    so searching a sorted x1 that ends in NaNs can misplace ordinary values (3.0 in [1, 2, 2, 3, nan] lands at 5).
    Searching x1 with its NaNs read as +inf keeps every finite value's insertion point NumPy's; a NaN value
    lands at the end, as in PyTorch (the standard leaves NaNs' order to the implementation)."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted(): side must be 'left' or 'right', got {side!r}")
    if not isinstance(x2, _C.Tensor):
        x2 = tensor(x2, dtype=x1.dtype, device=x1.device)
    if x1.dtype.is_floating_point:
        x1 = _C.where(_C.isnan(x1), math.inf, x1)
    return _C.searchsorted(x1, x2, side=side, sorter=sorter)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    return _C.argsort(x, axis, descending, stable=stable)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    return _C.sort(x, dim=axis, descending=descending, stable=stable)[0]


def _first_indices(inverse, counts):
    """Where each unique value first occurs in the flattened x: a stable sort of the inverse indices lists each
    value's positions in order, so every run starts at that value's first position."""
    order = _C.argsort(inverse.reshape(-1), stable=True)
    return order[_C.cumsum(counts, dim=0) - counts]


def _is_complex(x):
    return x.dtype in (_C.complex64, _C.complex128)


def _unique_complex(x):
    """(values, inverse, counts) of a complex x, sorted as NumPy sorts complex: by real part, then by imaginary
    part, NaN parts last. tandem.unique keeps PyTorch's refusal of complex; this is the standard's unique for it,
    built from two stable sorts (imaginary, then real part) and the runs of equal neighbours. Each value with a
    NaN part is its own run (NaN != NaN), as the standard asks."""
    flat = x.reshape(-1)
    n = flat.shape[0]
    if n == 0:
        empty = _C.zeros((0,), dtype=_C.int64, device=x.device)
        return flat, empty.reshape(x.shape), empty
    order = _C.argsort(flat.imag, stable=True)
    order = order[_C.argsort(flat.real[order], stable=True)]
    s = flat[order]
    starts = _C.ones((n,), dtype=_C.bool, device=x.device)
    starts[1:] = (s.real[1:] != s.real[:-1]) | (s.imag[1:] != s.imag[:-1])
    group = _C.cumsum(starts.to(_C.int64), dim=0) - 1
    inverse = _C.empty((n,), dtype=_C.int64, device=x.device)
    inverse[order] = group
    first = _C.nonzero(starts).reshape(-1)
    ends = _C.cat([first[1:], _C.full((1,), n, dtype=_C.int64, device=x.device)])
    counts = ends - first
    return s[first], inverse.reshape(x.shape), counts


def _unique(x, inverse=False, counts=False):
    if _is_complex(x):
        values, inv, cnt = _unique_complex(x)
        return (values,) + ((inv,) if inverse else ()) + ((cnt,) if counts else ())
    return _C.unique(x, return_inverse=inverse, return_counts=counts)


def unique_values(x, /):
    return _unique(x)[0] if _is_complex(x) else _C.unique(x)


def unique_counts(x, /):
    values, counts = _unique(x, counts=True)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /):
    values, inverse = _unique(x, inverse=True)
    return UniqueInverseResult(values, inverse)


def unique_all(x, /):
    values, inverse, counts = _unique(x, inverse=True, counts=True)
    return UniqueAllResult(values, _first_indices(inverse, counts), inverse, counts)
