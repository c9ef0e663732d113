"""__array_namespace_info__(): what this namespace supports, on which devices, with which default dtypes."""
from .. import _C
from .. import cuda
from ._dtypes import DTYPES, isdtype


class Info:
    """The standard's inspection object; every device has the same dtypes and defaults."""

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": None}

    def default_device(self):
        return _C.get_default_device()

    def devices(self):
        return [_C.device("cpu")] + [_C.device("cuda", i) for i in range(cuda.device_count())]

    def default_dtypes(self, *, device=None):
        real = _C.get_default_dtype()
        return {"real floating": real, "complex floating": _C.complex128 if real == _C.float64 else _C.complex64,
                "integral": _C.int64, "indexing": _C.int64}

    def dtypes(self, *, device=None, kind=None):
        """The standard's dtypes, of the given kind(s)."""
        if kind is None:
            return dict(DTYPES)
        return {name: d for name, d in DTYPES.items() if isdtype(d, kind)}


def __array_namespace_info__():
    return Info()
