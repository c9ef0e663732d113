"""Constant (and zero), reflection, replication and circular padding layers over 1, 2 or 3 trailing dims."""
from .. import functional as F
from .module import Module
from .utils import own_init

__all__ = [
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
]


def _ntuple(padding, n):
    """A sequence as given (PyTorch does not check its length here), an int repeated n times."""
    return tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * n


class _PadNd(Module):
    """padding: an int for every side, or (left, right[, top, bottom[, front, back]]); _dims trailing dims."""

    _dims = 1
    _mode = None

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._dims)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        d = self._dims
        if input.dim() not in (d + 1, d + 2):
            raise ValueError(f"expected {d + 1}D or {d + 2}D input (got {input.dim()}D input)")
        return super().forward(input)


@own_init
class CircularPad1d(_CircularPadNd):
    _dims = 1


@own_init
class CircularPad2d(_CircularPadNd):
    _dims = 2


@own_init
class CircularPad3d(_CircularPadNd):
    _dims = 3


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


@own_init
class ReflectionPad1d(_ReflectionPadNd):
    _dims = 1


@own_init
class ReflectionPad2d(_ReflectionPadNd):
    _dims = 2


@own_init
class ReflectionPad3d(_ReflectionPadNd):
    _dims = 3


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


@own_init
class ReplicationPad1d(_ReplicationPadNd):
    _dims = 1


@own_init
class ReplicationPad2d(_ReplicationPadNd):
    _dims = 2


@own_init
class ReplicationPad3d(_ReplicationPadNd):
    _dims = 3


class _ConstantPadNd(_PadNd):
    _mode = "constant"

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


@own_init
class ConstantPad1d(_ConstantPadNd):
    _dims = 1


@own_init
class ConstantPad2d(_ConstantPadNd):
    _dims = 2


@own_init
class ConstantPad3d(_ConstantPadNd):
    _dims = 3


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"
