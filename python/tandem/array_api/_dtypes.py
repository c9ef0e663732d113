"""The standard's data type functions (astype, can_cast, finfo, iinfo, isdtype, result_type) over tandem's dtypes.

This is bookkeeping over dtype objects: which kind a dtype is, and the standard's promotion rules, which are
tandem.promote_types inside a kind (int8 + uint8 -> int16, uint32 + int32 -> int64, float32 + float64 ->
float64; uint64 with a signed integer has no result and raises). Mixed kinds are implementation-defined in the
standard; tandem follows PyTorch there (int + float -> the float).
"""
import builtins

from .. import _C
from .. import _finfo

Tensor = _C.Tensor

bool = _C.bool
int8, int16, int32, int64 = _C.int8, _C.int16, _C.int32, _C.int64
uint8, uint16, uint32, uint64 = _C.uint8, _C.uint16, _C.uint32, _C.uint64
float32, float64 = _C.float32, _C.float64
complex64, complex128 = _C.complex64, _C.complex128

# The standard's dtypes (float16/bfloat16 exist in tandem but are not standard dtypes).
DTYPES = {"bool": bool, "int8": int8, "int16": int16, "int32": int32, "int64": int64, "uint8": uint8,
          "uint16": uint16, "uint32": uint32, "uint64": uint64, "float32": float32, "float64": float64,
          "complex64": complex64, "complex128": complex128}

_KINDS = ("bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating", "numeric")


def _dtype_of(x):
    return x.dtype if isinstance(x, Tensor) else x


def _is_kind(dtype, kind):
    if kind == "bool":
        return dtype == _C.bool
    if kind == "signed integer":
        return dtype != _C.bool and not dtype.is_floating_point and not dtype.is_complex and dtype.is_signed
    if kind == "unsigned integer":
        return dtype != _C.bool and not dtype.is_floating_point and not dtype.is_complex and not dtype.is_signed
    if kind == "integral":
        return _is_kind(dtype, "signed integer") or _is_kind(dtype, "unsigned integer")
    if kind == "real floating":
        return dtype.is_floating_point
    if kind == "complex floating":
        return dtype.is_complex
    return dtype != _C.bool  # numeric


def isdtype(dtype, kind):
    """True when dtype is kind: a dtype, one of the standard's kind names, or a tuple of either."""
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"isdtype(): argument 'dtype' must be a dtype, not {type(dtype).__name__}")
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, _C.dtype):
        return dtype == kind
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"isdtype(): unknown kind {kind!r}\nhint: use one of {', '.join(_KINDS)}")
        return _is_kind(dtype, kind)
    raise TypeError(f"isdtype(): argument 'kind' must be a dtype, a str or a tuple, not {type(kind).__name__}")


def _real_dtype(dtype):
    """The dtype of a complex dtype's parts (float32 for complex64)."""
    return {_C.complex64: _C.float32, _C.complex128: _C.float64}.get(dtype, dtype)


def _mantissa_bits(dtype):
    return {_C.float16: 11, _C.bfloat16: 8, _C.float32: 24, _C.float64: 53}[dtype]


def can_cast(from_, to, /):
    """True when the standard's promotion rules allow from_ -> to; across kinds, casts that keep every value
    (bool to anything, integers into a float whose mantissa holds them, as NumPy's "safe" casting)."""
    src = _dtype_of(from_)
    if not isinstance(src, _C.dtype) or not isinstance(to, _C.dtype):
        raise TypeError("can_cast(): from_ must be a dtype or an array and to a dtype")
    if src == to or src == _C.bool:
        return True
    if to == _C.bool:
        return False
    if src.is_complex:
        return to.is_complex and _C.promote_types(src, to) == to
    if src.is_floating_point:
        return (to.is_floating_point or to.is_complex) and _C.promote_types(src, to) == to
    if to.is_complex:
        return src.itemsize * 8 - (1 if src.is_signed else 0) <= _mantissa_bits(_real_dtype(to))
    if to.is_floating_point:
        return src.itemsize * 8 - (1 if src.is_signed else 0) <= _mantissa_bits(to)
    try:
        return _C.promote_types(src, to) == to
    except RuntimeError:  # uint64 with a signed integer: no promotion, so no cast either way
        return False


def _scalar_result(dtype, value):
    """The standard's rule for a Python scalar beside an array: the array's dtype when the scalar's kind fits
    it; otherwise tandem's (PyTorch's) choice, the default int or float dtype."""
    if isinstance(value, builtins.bool):
        return dtype
    if isinstance(value, int):
        return _C.int64 if dtype == _C.bool else dtype
    if isinstance(value, float):
        return dtype if dtype.is_floating_point or dtype.is_complex else _C.get_default_dtype()
    if isinstance(value, complex):
        if dtype.is_complex:
            return dtype
        if dtype.is_floating_point:
            return _C.complex128 if dtype == _C.float64 else _C.complex64
        return _C.complex128 if _C.get_default_dtype() == _C.float64 else _C.complex64
    raise TypeError(f"result_type(): expected arrays, dtypes or Python scalars, got {type(value).__name__}")


def result_type(*arrays_and_dtypes):
    """The dtype of an operation on these arrays, dtypes and Python scalars (at least one array or dtype)."""
    dtypes = [_dtype_of(a) for a in arrays_and_dtypes if isinstance(a, (Tensor, _C.dtype))]
    scalars = [a for a in arrays_and_dtypes if not isinstance(a, (Tensor, _C.dtype))]
    if not dtypes:
        raise ValueError("result_type(): at least one array or dtype is required")
    result = dtypes[0]
    for d in dtypes[1:]:
        result = _C.promote_types(result, d)
    for s in scalars:
        result = _scalar_result(result, s)
    return result


class finfo_object:
    """The standard's finfo: tandem.finfo's numbers, with dtype the dtype object (tandem.finfo, as PyTorch's,
    gives its name); a complex dtype's are those of its real parts, dtype included."""

    def __init__(self, dtype):
        limits = _finfo.finfo(_real_dtype(dtype))  # a complex dtype's are those of its parts
        self.bits, self.eps, self.max, self.min = limits.bits, limits.eps, limits.max, limits.min
        self.smallest_normal = limits.smallest_normal
        self.dtype = _real_dtype(dtype)

    def __repr__(self):
        return (f"finfo(bits={self.bits}, eps={self.eps!r}, max={self.max!r}, min={self.min!r}, "
                f"smallest_normal={self.smallest_normal!r}, dtype={self.dtype})")


class iinfo_object:
    """The standard's iinfo: bits, max, min and the dtype object."""

    def __init__(self, dtype):
        limits = _finfo.iinfo(dtype)
        self.bits, self.max, self.min, self.dtype = limits.bits, limits.max, limits.min, dtype

    def __repr__(self):
        return f"iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={self.dtype})"


def finfo(type, /):
    return finfo_object(_dtype_of(type))


def iinfo(type, /):
    return iinfo_object(_dtype_of(type))


def astype(x, dtype, /, *, copy=True, device=None):
    """x as dtype (and on device): a new array unless copy=False and nothing changes."""
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"astype(): dtype must be a dtype, not {type(dtype).__name__}")
    device = x.device if device is None else device
    if not copy and x.dtype == dtype and x.device == _C.device(device):
        return x
    return x.to(device=device, dtype=dtype, copy=True)
