"""tandem.can_cast (PyTorch's casting-by-kind rule), tandem.isdtype (the Array API's kind test) and the dtype methods
to_complex()/to_real()."""
from . import _C
from .array_api._dtypes import isdtype  # noqa: F401  (PyTorch has none; the standard's, shared with array_api)


def _kind(dtype):
    """bool < integer < floating < complex: PyTorch allows a cast that does not lower the kind."""
    return 3 if dtype.is_complex else 2 if dtype.is_floating_point else 0 if dtype == _C.bool else 1


def can_cast(from_, to):
    """True when PyTorch's type promotion allows from_ -> to (same or higher kind; sizes do not matter)."""
    for position, (name, value) in enumerate((("from_", from_), ("to", to)), 1):
        if not isinstance(value, _C.dtype):
            raise TypeError(f"can_cast(): argument '{name}' (position {position}) must be torch.dtype, not "
                            f"{type(value).__name__}")
    return _kind(from_) <= _kind(to)


# dtype.to_complex() / dtype.to_real(): the complex dtype with this precision and back (PyTorch's methods on
# torch.dtype; generic code reaches the complex twin of a float dtype through them before building an FFT filter).
_COMPLEX_OF = {"float32": "complex64", "float64": "complex128", "complex64": "complex64",
               "complex128": "complex128"}
_REAL_OF = {"complex64": "float32", "complex128": "float64"}
_NO_COMPLEX_TWIN_HERE = ("float16", "bfloat16")  # PyTorch answers complex32/bcomplex32, dtypes tandem lacks


def _to_complex(self):
    name = str(self).split(".")[-1]
    if name in _COMPLEX_OF:
        return getattr(_C, _COMPLEX_OF[name])
    if name in _NO_COMPLEX_TWIN_HERE:
        raise TypeError(f"{self} has no complex counterpart in tandem (PyTorch's complex32/bcomplex32 are "
                        "not supported)")
    raise RuntimeError(f"Unknown Complex ScalarType for {self._scalar_type_name}")


def _to_real(self):
    name = str(self).split(".")[-1]
    return getattr(_C, _REAL_OF[name]) if name in _REAL_OF else self


def install_dtype_methods():
    _C.dtype.to_complex = _to_complex
    _C.dtype.to_real = _to_real
