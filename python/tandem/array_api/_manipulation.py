"""The standard's manipulation, indexing and linear-algebra functions over tandem's ops and compositions."""
from .. import _C
from .. import _compositions


def broadcast_arrays(*arrays):
    return list(_compositions.broadcast_tensors(*arrays))


def broadcast_to(x, /, shape):
    return _C.broadcast_to(x, tuple(shape))


def concat(arrays, /, *, axis=0):
    if axis is None:
        return _C.cat([a.reshape(-1) for a in arrays], 0)
    return _C.cat(list(arrays), axis)


def expand_dims(x, /, axis=0):
    """axis: an int, or a tuple of ints (the draft standard's form after 2024.12, as NumPy's): each new axis's
    position in the result, so they are placed in increasing order."""
    axes = axis if isinstance(axis, tuple) else (axis,)
    ndim = x.ndim + len(axes)
    for a in axes:
        if not -ndim <= a < ndim:
            raise IndexError(f"expand_dims(): axis {a} is out of range for an array of {x.ndim} dimensions")
    positions = sorted(a % ndim for a in axes)
    if len(set(positions)) != len(positions):
        raise ValueError(f"expand_dims(): repeated axis in {axis}")
    for a in positions:
        x = x.unsqueeze(a)
    return x


def flip(x, /, *, axis=None):
    dims = range(x.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    return _C.flip(x, list(dims))


def moveaxis(x, source, destination, /):
    return _compositions.movedim(x, source, destination)


def permute_dims(x, /, axes):
    return _C.permute(x, list(axes))


def repeat(x, repeats, /, *, axis=None):
    """tandem.repeat_interleave; an array of repeats of any integer dtype (PyTorch's takes int64 only)."""
    if isinstance(repeats, _C.Tensor) and repeats.dtype != _C.int64:
        repeats = repeats.to(_C.int64)
    return _compositions.repeat_interleave(x, repeats, dim=axis)


def reshape(x, /, shape, *, copy=None):
    shape = tuple(shape)
    if copy:
        return _C.reshape(x, shape).clone()
    if copy is False:
        try:
            return x.view(shape)
        except RuntimeError as e:
            raise ValueError(f"reshape(copy=False): the array cannot be reshaped without a copy\n{e}") from None
    return _C.reshape(x, shape)


def roll(x, /, shift, *, axis=None):
    shifts = list(shift) if isinstance(shift, tuple) else shift
    dims = list(axis) if isinstance(axis, tuple) else axis
    return _compositions.roll(x, shifts, dims)


def squeeze(x, /, axis):
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    for a in axes:
        if x.shape[a] != 1:  # the standard refuses; PyTorch's squeeze would skip the dim silently
            raise ValueError(f"squeeze(): axis {a} has size {x.shape[a]}, not 1")
    return _C.squeeze(x, axes)


def stack(arrays, /, *, axis=0):
    return _C.stack(list(arrays), axis)


def tile(x, repetitions, /):
    return _compositions.tile(x, tuple(repetitions))


def unstack(x, /, *, axis=0):
    return tuple(_C.unbind(x, axis))


def take(x, indices, /, *, axis=None):
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take(): axis is required for arrays of more than one dimension")
        axis = 0
    size = x.shape[axis]
    indices = _C.where(indices < 0, indices + size, indices)  # the standard allows indices from the end
    return _C.index_select(x, axis, indices)


def take_along_axis(x, indices, /, *, axis=-1):
    """tandem.take_along_dim after the standard's adaptations: indices from the end wrap, and x and indices
    broadcast against each other in every dim but axis (take_along_dim wants equal sizes there)."""
    if x.ndim != indices.ndim:
        raise ValueError(f"take_along_axis(): x has {x.ndim} dimensions but indices has {indices.ndim}")
    axis = axis % x.ndim if x.ndim else axis
    indices = _C.where(indices < 0, indices + x.shape[axis], indices)
    shape = list(_compositions.broadcast_shapes(
        tuple(x.shape[:axis]) + (1,) + tuple(x.shape[axis + 1:]),
        tuple(indices.shape[:axis]) + (1,) + tuple(indices.shape[axis + 1:])))
    x = x.expand(tuple(shape[:axis] + [x.shape[axis]] + shape[axis + 1:]))
    indices = indices.expand(tuple(shape[:axis] + [indices.shape[axis]] + shape[axis + 1:]))
    return _C.take_along_dim(x, indices, dim=axis)


# ---- linear algebra in the main namespace ----
# tandem's matrix products, as PyTorch's, want equal dtypes; the standard promotes, so operands of different
# dtypes are cast to their common dtype first.

def _same_dtype(x1, x2):
    if x1.dtype != x2.dtype:
        dtype = _C.promote_types(x1.dtype, x2.dtype)
        return x1.to(dtype), x2.to(dtype)
    return x1, x2


def _unsigned_in_int64(fn, x1, x2):
    """fn(x1, x2) of same-dtype operands; uint16/32/64 ones go through int64 (tandem's matrix products, as
    PyTorch's, have no unsigned kernels): the same bits modulo 2**64, cast back."""
    if x1.dtype in (_C.uint16, _C.uint32, _C.uint64):
        return fn(x1.to(_C.int64), x2.to(_C.int64)).to(x1.dtype)
    return fn(x1, x2)


def matmul(x1, x2, /):
    return _unsigned_in_int64(_C.matmul, *_same_dtype(x1, x2))


def matrix_transpose(x, /):
    if x.ndim < 2:
        raise ValueError("matrix_transpose(): the array needs at least 2 dimensions")
    return x.mT


def tensordot(x1, x2, /, *, axes=2):
    return _unsigned_in_int64(lambda a, b: _compositions.tensordot(a, b, dims=axes), *_same_dtype(x1, x2))


def vecdot(x1, x2, /, *, axis=-1):
    """Sum of conj(x1) * x2 along axis after broadcasting, in the operands' promoted dtype (tandem's sum, as
    PyTorch's, would widen integers to int64)."""
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"vecdot(): axis {axis} has sizes {x1.shape[axis]} and {x2.shape[axis]}")
    x1, x2 = _same_dtype(x1, x2)
    return _C.sum(_C.mul(_C.conj(x1), x2), dim=axis, dtype=x1.dtype)
