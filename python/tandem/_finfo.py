"""tandem.finfo and tandem.iinfo: the numeric limits of a dtype, with PyTorch's attributes and errors."""
import math

from . import _C

# Explicit mantissa and exponent bits: every finfo value follows from these two numbers.
_FLOAT_BITS = {"float16": (10, 5), "bfloat16": (7, 8), "float32": (23, 8), "float64": (52, 11)}


def _name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


# PyTorch reads Python's number types as dtypes here too (torch.finfo(float) is float64's limits).
_PYTHON_TYPES = {float: _C.float64, int: _C.int64, bool: _C.bool, complex: _C.complex128}


def _dtype_arg(fn, value):
    if value in _PYTHON_TYPES:
        return _PYTHON_TYPES[value]
    if not isinstance(value, _C.dtype):
        raise TypeError(f"{fn}(): argument 'type' (position 1) must be torch.dtype, not {type(value).__name__}")
    return value


class finfo:
    """Limits of a floating dtype (the default dtype when none is given)."""

    def __init__(self, type=None):
        dtype = _C.get_default_dtype() if type is None else _dtype_arg("finfo", type)
        if dtype.is_complex:  # the limits of its parts, as PyTorch reports them (dtype=float32 for complex64)
            dtype = _C.float32 if dtype == _C.complex64 else _C.float64
        if not dtype.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        mantissa, exponent = _FLOAT_BITS[_name(dtype)]
        max_exponent = 2 ** (exponent - 1) - 1
        self.bits = dtype.itemsize * 8
        self.eps = 2.0 ** -mantissa
        self.max = (2.0 - self.eps) * 2.0 ** max_exponent
        self.min = -self.max
        self.tiny = self.smallest_normal = 2.0 ** (1 - max_exponent)
        self.resolution = 10.0 ** -math.floor(mantissa * math.log10(2))
        self.dtype = _name(dtype)

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype."""

    def __init__(self, type):
        dtype = _dtype_arg("iinfo", type)
        if dtype == _C.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if dtype.is_floating_point or dtype.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        self.bits = dtype.itemsize * 8
        self.min = -(2 ** (self.bits - 1)) if dtype.is_signed else 0
        self.max = 2 ** (self.bits - 1) - 1 if dtype.is_signed else 2 ** self.bits - 1
        self.dtype = _name(dtype)

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
