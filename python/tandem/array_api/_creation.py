"""The standard's creation functions over tandem's: asarray with the standard's copy semantics, arange/linspace/
eye with its argument conventions, the *_like family with device=, meshgrid as a list."""
import math

from .. import _C
from .. import _compositions
from .. import _numpy
from .._creation import as_tensor, tensor

Tensor = _C.Tensor


def _shape(shape):
    return (shape,) if isinstance(shape, int) else tuple(shape)


def _no_copy_error(what):
    return ValueError(f"Unable to avoid copy while creating an array as requested.\nhint: {what}; pass copy=None "
                      f"to allow the copy")


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """obj as a tensor. copy=None shares memory when it can (tensors, NumPy arrays, buffers, DLPack producers),
    copy=True always copies, copy=False never does (ValueError when it would have to)."""
    if isinstance(obj, Tensor):
        target_dtype = obj.dtype if dtype is None else dtype
        target_device = obj.device if device is None else _C.device(device)
        if copy:
            return obj.to(device=target_device, dtype=target_dtype, copy=True)
        if copy is False and (target_dtype != obj.dtype or target_device != obj.device):
            raise _no_copy_error(f"the array is {obj.dtype} on {obj.device}")
        return obj.to(device=target_device, dtype=target_dtype)
    if hasattr(obj, "__dlpack__") or _is_buffer(obj):
        shared = as_tensor(obj)  # shares the producer's memory where its dtype exists in tandem
        return asarray(shared, dtype=dtype, device=device, copy=copy)
    if copy is False:
        raise _no_copy_error(f"a {type(obj).__name__} is not an array")
    return tensor(obj, dtype=dtype, device=device)


def _is_buffer(obj):
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("arange(): step must be nonzero")
    if math.ceil((stop - start) / step) <= 0:  # the standard's empty range, which tandem's arange refuses
        kind = float if any(isinstance(v, float) for v in (start, stop, step)) else int
        if dtype is None:
            dtype = _C.get_default_dtype() if kind is float else _C.int64
        return _C.empty((0,), dtype=dtype, device=device)
    return _C.arange(start, stop, step, dtype=dtype, device=device)


def empty(shape, *, dtype=None, device=None):
    return _C.empty(_shape(shape), dtype=dtype, device=device)


def zeros(shape, *, dtype=None, device=None):
    return _C.zeros(_shape(shape), dtype=dtype, device=device)


def ones(shape, *, dtype=None, device=None):
    return _C.ones(_shape(shape), dtype=dtype, device=device)


def full(shape, fill_value, *, dtype=None, device=None):
    return _C.full(_shape(shape), fill_value, dtype=dtype, device=device)


def _like(fn, x, dtype, device, *args):
    return fn(tuple(x.shape), *args, dtype=x.dtype if dtype is None else dtype,
              device=x.device if device is None else device)


def empty_like(x, /, *, dtype=None, device=None):
    return _like(_C.empty, x, dtype, device)


def zeros_like(x, /, *, dtype=None, device=None):
    return _like(_C.zeros, x, dtype, device)


def ones_like(x, /, *, dtype=None, device=None):
    return _like(_C.ones, x, dtype, device)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    return _like(_C.full, x, dtype, device, fill_value)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    n_cols = n_rows if n_cols is None else n_cols
    if k == 0:
        return _C.eye(n_rows, n_cols, dtype=dtype, device=device)
    dtype = _C.get_default_dtype() if dtype is None else dtype
    rows = _C.arange(n_rows, device=device).unsqueeze(-1)
    return (_C.arange(n_cols, device=device) - rows == k).to(dtype)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    if endpoint:
        return _C.linspace(start, stop, num, dtype=dtype, device=device)
    return _C.linspace(start, stop, num + 1, dtype=dtype, device=device)[:-1]


def meshgrid(*arrays, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid(): indexing must be 'xy' or 'ij', got {indexing!r}")
    return list(_compositions.meshgrid(*arrays, indexing=indexing))


def tril(x, /, *, k=0):
    return _compositions.tril(x, k)


def triu(x, /, *, k=0):
    return _compositions.triu(x, k)


def from_dlpack(x, /, *, device=None, copy=None):
    """A tensor sharing x's memory (DLPack); device= or copy=True make a copy, copy=False refuses one."""
    # A tandem tensor is shared as itself: the same memory DLPack would give, and emulated cuda tensors (whose
    # host memory tandem refuses to export as CUDA memory) work too.
    shared = x if isinstance(x, Tensor) else _numpy.from_dlpack(x)
    return asarray(shared, device=device, copy=copy)
