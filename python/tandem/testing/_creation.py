"""make_tensor: PyTorch's torch.testing.make_tensor (random test inputs in [low, high) per dtype) over tandem."""
import collections.abc
import math
import warnings

from .. import _C
from .._finfo import finfo, iinfo

__all__ = ["make_tensor"]

_INTEGRAL_TYPES = (_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64, _C.uint16, _C.uint32, _C.uint64)
_FLOATING_TYPES = (_C.float16, _C.bfloat16, _C.float32, _C.float64)


def _modify_low_high(low, high, *, dtype, lowest_inclusive, highest_exclusive, default_low, default_high):
    """PyTorch's checks and clamping of the requested interval to what ``dtype`` holds."""
    low = low if low is not None else default_low
    high = high if high is not None else default_high
    if any(isinstance(value, float) and math.isnan(value) for value in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low!r} and high={high!r}")
    elif low == high and dtype in _FLOATING_TYPES:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                      "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                      FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest_inclusive or low >= highest_exclusive:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest_inclusive}, {highest_exclusive})")
    low = min(max(low, lowest_inclusive), highest_exclusive)
    high = min(max(high, lowest_inclusive), highest_exclusive)
    if dtype not in _FLOATING_TYPES:
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` filled with random values: floats uniform in [low, high) (default [-9, 9)),
    integers uniform in [low, high) (default [-9, 10), clamped to the dtype), bools 0/1."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous!r} and memory_format={memory_format!r}")
    if requires_grad and dtype in (_C.bool, *_INTEGRAL_TYPES):
        raise ValueError("`requires_grad=True` is not supported for boolean and integral dtypes, but got "
                         f"dtype={dtype!r}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])  # then every other column: a strided view
    if dtype == _C.bool:
        low, high = _modify_low_high(low, high, dtype=dtype, lowest_inclusive=0, highest_exclusive=2,
                                     default_low=0, default_high=2)
        result = _C.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL_TYPES:
        info = iinfo(dtype)
        low, high = _modify_low_high(low, high, dtype=dtype, lowest_inclusive=info.min,
                                     # randint's bounds are int64s: uint64 draws stay below 2**63
                                     highest_exclusive=min(info.max + (1 if dtype != _C.int64 else 0), 2**63 - 1),
                                     default_low=-9, default_high=10)
        result = _C.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING_TYPES:
        info = finfo(dtype)
        low, high = _modify_low_high(low, high, dtype=dtype, lowest_inclusive=info.min,
                                     highest_exclusive=info.max, default_low=-9, default_high=9)
        result = _C.empty(shape, device=device, dtype=dtype)
        if high - low >= info.max:  # the width itself would overflow: draw half as wide, then double
            result.uniform_(low / 2, high / 2).mul_(2)
        else:
            result.uniform_(low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor(). "
                        "To request support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype not in _FLOATING_TYPES else finfo(dtype).tiny
    if dtype in _FLOATING_TYPES:
        result.requires_grad = requires_grad
    return result
