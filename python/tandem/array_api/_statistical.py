"""The standard's statistical and utility reductions over tandem's: axis/keepdims spelled the standard's way,
axis=() meaning "reduce nothing" (tandem, as PyTorch, reads an empty dim list as "every dim")."""
from .. import _C
from .. import _compositions


def _reduce_nothing(axis):
    return isinstance(axis, tuple) and len(axis) == 0


def _sum_dtype(x, dtype):
    """The standard's accumulation dtype: the given one, else uint64 for unsigned integers (an unsigned type as
    wide as the default integer) and the default integer for signed integers and bool."""
    if dtype is not None:
        return dtype
    if x.dtype.is_floating_point or x.dtype.is_complex:
        return x.dtype
    return _C.uint64 if x.dtype != _C.bool and not x.dtype.is_signed else _C.int64


def _unsigned_sum_dtype(x, dtype):
    """The dtype= to pass tandem's sum/prod/cumsum/cumprod: uint64 for unsigned inputs (tandem's, as PyTorch's,
    accumulate them in int64), the caller's otherwise."""
    return _C.uint64 if dtype is None and x.dtype in (_C.uint8, _C.uint16, _C.uint32, _C.uint64) else dtype


def _axes(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def _check_axes(name, x, axis):
    """The standard's valid axes are [-N, N): a 0-d array has none (tandem's ops, as PyTorch's, take 0 and -1
    there), and 'if provided an invalid axis, the function must raise an exception'."""
    if x.ndim == 0 and axis is not None and not _reduce_nothing(axis):
        bad = axis[0] if isinstance(axis, (tuple, list)) else axis
        raise IndexError(f"{name}(): axis {bad} is out of range for an array of 0 dimensions")


def max(x, /, *, axis=None, keepdims=False):
    _check_axes("max", x, axis)
    return x if _reduce_nothing(axis) else _C.amax(x, dim=_axes(axis), keepdim=keepdims)


def min(x, /, *, axis=None, keepdims=False):
    _check_axes("min", x, axis)
    return x if _reduce_nothing(axis) else _C.amin(x, dim=_axes(axis), keepdim=keepdims)


def mean(x, /, *, axis=None, keepdims=False):
    _check_axes("mean", x, axis)
    return x if _reduce_nothing(axis) else _C.mean(x, dim=_axes(axis), keepdim=keepdims)


def sum(x, /, *, axis=None, dtype=None, keepdims=False):
    _check_axes("sum", x, axis)
    if _reduce_nothing(axis):
        return x.to(_sum_dtype(x, dtype), copy=True)
    return _C.sum(x, dim=_axes(axis), keepdim=keepdims, dtype=_unsigned_sum_dtype(x, dtype))


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    """tandem.prod, as PyTorch's, reduces one dim or all of them: a tuple of axes is reduced one axis at a time
    (keeping dims so the others keep their positions), then squeezed unless keepdims."""
    _check_axes("prod", x, axis)
    if _reduce_nothing(axis):
        return x.to(_sum_dtype(x, dtype), copy=True)
    if axis is None and keepdims:  # tandem's prod over all dims drops keepdim, as PyTorch's
        axis = tuple(range(x.ndim))
    if not isinstance(axis, (tuple, list)):
        return _C.prod(x, axis=axis, keepdim=keepdims, dtype=_unsigned_sum_dtype(x, dtype))  # (dim=None is refused)
    axes = sorted({a % x.ndim for a in axis}) if x.ndim else []
    out = x.to(_sum_dtype(x, dtype))
    for a in axes:
        out = _C.prod(out, a, keepdim=True, dtype=out.dtype)
    return out if keepdims else _C.squeeze(out, tuple(axes))


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    _check_axes("std", x, axis)
    if _reduce_nothing(axis):  # each element its own sample: over a new size-1 dim, keeping x's shape
        return _C.std(x.unsqueeze(-1), dim=-1, correction=correction)
    return _C.std(x, dim=_axes(axis), correction=correction, keepdim=keepdims)


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    _check_axes("var", x, axis)
    if _reduce_nothing(axis):
        return _C.var(x.unsqueeze(-1), dim=-1, correction=correction)
    return _C.var(x, dim=_axes(axis), correction=correction, keepdim=keepdims)


def _cumulative_axis(name, x, axis):
    """(x, axis): a 0-d x is read as one element along one axis, as NumPy's (the standard asks for one or more
    dimensions; tandem's cumsum of a 0-d tensor is 0-d, and include_initial had no axis to extend)."""
    if axis is None and x.ndim > 1:
        raise ValueError(f"{name}(): axis is required for arrays of more than one dimension")
    return (x.reshape(1) if x.ndim == 0 else x), (0 if axis is None else axis)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    x, axis = _cumulative_axis("cumulative_sum", x, axis)
    out = _C.cumsum(x, dim=axis, dtype=_unsigned_sum_dtype(x, dtype))
    if include_initial:
        shape = list(out.shape)
        shape[axis] = 1
        out = _C.cat([_C.zeros(shape, dtype=out.dtype, device=out.device), out], axis)
    return out


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    x, axis = _cumulative_axis("cumulative_prod", x, axis)
    out = _C.cumprod(x, dim=axis, dtype=_unsigned_sum_dtype(x, dtype))
    if include_initial:
        shape = list(out.shape)
        shape[axis] = 1
        out = _C.cat([_C.ones(shape, dtype=out.dtype, device=out.device), out], axis)
    return out


def _truth(x):
    """x as bool: the standard's all/any return bool whatever x's dtype (tandem's, as PyTorch's, keep uint8)."""
    return x if x.dtype == _C.bool else x != 0


def all(x, /, *, axis=None, keepdims=False):
    _check_axes("all", x, axis)
    return _truth(x) if _reduce_nothing(axis) else _C.all(_truth(x), dim=_axes(axis), keepdim=keepdims)


def any(x, /, *, axis=None, keepdims=False):
    _check_axes("any", x, axis)
    return _truth(x) if _reduce_nothing(axis) else _C.any(_truth(x), dim=_axes(axis), keepdim=keepdims)


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    return _compositions.diff(x, n, axis, prepend, append)
