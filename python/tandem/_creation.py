"""Python-side entry points for creating tensors from Python data."""
from . import _C


def tensor(data, *, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of ``data`` (numbers, nested lists/tuples, NumPy arrays, tensors).

    The dtype is inferred as PyTorch does: bools -> bool, ints -> int64, any float -> the default dtype.
    """
    return _C._tensor_from_data(data, dtype, device, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """``data`` itself when it already is a tensor of that dtype and device, otherwise ``tensor(data)``."""
    if isinstance(data, _C.Tensor) and (dtype is None or data.dtype is dtype) and device is None:
        return data
    return tensor(data, dtype=dtype, device=device)
