"""tandem.can_cast (PyTorch's casting-by-kind rule) and tandem.isdtype (the Array API's kind test)."""
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
