"""torch.export's shape vocabulary: Dim (a named dynamic dimension with a range), its hints Dim.AUTO / STATIC /
DYNAMIC, and the value ranges an ExportedProgram reports for its dynamic dimensions."""
import enum
import sys


_NO_BOUND = sys.maxsize - 1  # an upper bound left open (PyTorch's int_oo)


class _DimHint(enum.Enum):
    AUTO = "AUTO"
    STATIC = "STATIC"
    DYNAMIC = "DYNAMIC"

    def __repr__(self):
        return f"DimHint({self.value})"

    __str__ = __repr__

    def __call__(self, min=None, max=None):  # Dim.AUTO(min=2) in PyTorch: the same hint with a range
        return _RangedHint(self, min, max)


class _RangedHint:
    def __init__(self, hint, min, max):
        self.hint, self.min, self.max = hint, min, max

    def __repr__(self):
        return f"DimHint({self.hint.value}, min={self.min}, max={self.max})"


class _DimMeta(type):
    AUTO = _DimHint.AUTO
    STATIC = _DimHint.STATIC
    DYNAMIC = _DimHint.DYNAMIC


class Dim(metaclass=_DimMeta):
    """A named dynamic dimension, `Dim("batch", min=1, max=64)`: every input dimension given this Dim takes any
    size in [min, max] and all of them the same size."""

    def __init__(self, name, *, min=None, max=None):
        low = 0 if min is None else min
        high = _NO_BOUND if max is None else max
        if not high > low:
            raise AssertionError(f"Cannot create Dim with inconsistent min={min}, max={max}")
        if not name.isidentifier():  # (a non-string name fails here with PyTorch's AttributeError)
            raise AssertionError(f"Dim name must be a valid identifier, got {name}")
        self.__name__ = name
        self.min, self.max = low, high

    def __repr__(self):
        # PyTorch leaves out a lower bound of 2 (its default for dynamic sizes) and a missing upper bound
        parts = [f"'{self.__name__}'"]
        if self.min != 2:
            parts.append(f"min={self.min}")
        if self.max != _NO_BOUND:
            parts.append(f"max={self.max}")
        return f"Dim({', '.join(parts)})"


def dims(*names, min=None, max=None):
    """Several Dims with the same range at once: `batch, seq = dims("batch", "seq", max=512)`."""
    return tuple(Dim(name, min=min, max=max) for name in names)


class ValueRanges:
    """The range a dynamic dimension may take, printed as PyTorch's `VR[lower, upper]` (int_oo for no bound)."""

    def __init__(self, lower, upper):
        self.lower, self.upper = lower, upper

    def __eq__(self, other):
        return isinstance(other, ValueRanges) and (self.lower, self.upper) == (other.lower, other.upper)

    def __hash__(self):
        return hash((self.lower, self.upper))

    def __repr__(self):
        upper = "int_oo" if self.upper >= _NO_BOUND else self.upper
        return f"VR[{self.lower}, {upper}]"
