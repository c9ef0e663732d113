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


def max(x, /, *, axis=None, keepdims=False):
    return x if _reduce_nothing(axis) else _C.amax(x, dim=_axes(axis), keepdim=keepdims)


def min(x, /, *, axis=None, keepdims=False):
    return x if _reduce_nothing(axis) else _C.amin(x, dim=_axes(axis), keepdim=keepdims)


def mean(x, /, *, axis=None, keepdims=False):
    return x if _reduce_nothing(axis) else _C.mean(x, dim=_axes(axis), keepdim=keepdims)


def sum(x, /, *, axis=None, dtype=None, keepdims=False):
    if _reduce_nothing(axis):
        return x.to(_sum_dtype(x, dtype), copy=True)
    return _C.sum(x, dim=_axes(axis), keepdim=keepdims, dtype=_unsigned_sum_dtype(x, dtype))


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    """tandem.prod, as PyTorch's, reduces one dim or all of them: a tuple of axes is reduced one axis at a time
    (keeping dims so the others keep their positions), then squeezed unless keepdims."""
    if _reduce_nothing(axis):
        return x.to(_sum_dtype(x, dtype), copy=True)
    if axis is None and keepdims:  # tandem's prod over all dims drops keepdim, as PyTorch's
        axis = tuple(range(x.ndim))
    if not isinstance(axis, (tuple, list)):
        return _C.prod(x, dim=axis, keepdim=keepdims, dtype=_unsigned_sum_dtype(x, dtype))
    axes = sorted({a % x.ndim for a in axis}) if x.ndim else []
    out = x.to(_sum_dtype(x, dtype))
    for a in axes:
        out = _C.prod(out, a, keepdim=True, dtype=out.dtype)
    return out if keepdims else _C.squeeze(out, tuple(axes))


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    if _reduce_nothing(axis):  # each element its own sample: over a new size-1 dim, keeping x's shape
        return _C.std(x.unsqueeze(-1), dim=-1, correction=correction)
    return _C.std(x, dim=_axes(axis), correction=correction, keepdim=keepdims)


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    if _reduce_nothing(axis):
        return _C.var(x.unsqueeze(-1), dim=-1, correction=correction)
    return _C.var(x, dim=_axes(axis), correction=correction, keepdim=keepdims)


def _cumulative_axis(name, x, axis):
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{name}(): axis is required for arrays of more than one dimension")
        return 0
    return axis


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    axis = _cumulative_axis("cumulative_sum", x, axis)
    out = _C.cumsum(x, dim=axis, dtype=_unsigned_sum_dtype(x, dtype))
    if include_initial:
        shape = list(out.shape)
        shape[axis] = 1
        out = _C.cat([_C.zeros(shape, dtype=out.dtype, device=out.device), out], axis)
    return out


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    axis = _cumulative_axis("cumulative_prod", x, axis)
    out = _C.cumprod(x, dim=axis, dtype=_unsigned_sum_dtype(x, dtype))
    if include_initial:
        shape = list(out.shape)
        shape[axis] = 1
        out = _C.cat([_C.ones(shape, dtype=out.dtype, device=out.device), out], axis)
    return out


def all(x, /, *, axis=None, keepdims=False):
    return x.to(_C.bool) if _reduce_nothing(axis) else _C.all(x, dim=_axes(axis), keepdim=keepdims)


def any(x, /, *, axis=None, keepdims=False):
    return x.to(_C.bool) if _reduce_nothing(axis) else _C.any(x, dim=_axes(axis), keepdim=keepdims)


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    return _compositions.diff(x, n, axis, prepend, append)
