"""tandem.can_cast (PyTorch's casting-by-kind rule), result_type/promote_types with PyTorch's argument names,
tandem.isdtype (the Array API's kind test) and the dtype methods to_complex()/to_real()."""
import numbers

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


_RESULT_TYPE_FORMS = (("tensor", "other"), ("scalar", "tensor"), ("scalar1", "scalar2"))


def result_type(*args, **kwargs):
    """The dtype an arithmetic op on the two operands returns; PyTorch's overloads name them (tensor, other),
    (scalar, tensor) or (scalar1, scalar2), and any of those may be passed by keyword."""
    operands = None
    for names in _RESULT_TYPE_FORMS:
        rest = names[len(args):]
        if len(args) <= 2 and sorted(kwargs) == sorted(rest):
            operands = list(args) + [kwargs[name] for name in rest]
            break
    if operands is None or not all(isinstance(v, (_C.Tensor, numbers.Number)) for v in operands):
        got = ", ".join([_type_name(v) for v in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
        raise TypeError(f"result_type() received an invalid combination of arguments - got ({got}), but expected "
                        "one of:\n * (Tensor tensor, Tensor other)\n * (Tensor tensor, Number other)\n"
                        " * (Number scalar, Tensor tensor)\n * (Number scalar1, Number scalar2)")
    return _C.result_type(*operands)


def _type_name(value):
    return "Tensor" if isinstance(value, _C.Tensor) else type(value).__name__


def promote_types(type1, type2):
    """The smallest dtype both can be converted to without losing their kind (PyTorch's table)."""
    for position, (name, value) in enumerate((("type1", type1), ("type2", type2)), 1):
        if not isinstance(value, _C.dtype):
            raise TypeError(f"promote_types(): argument '{name}' (position {position}) must be torch.dtype, not "
                            f"{type(value).__name__}")
    return _C.promote_types(type1, type2)


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
