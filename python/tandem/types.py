"""tandem.types: the type aliases scripts import from torch.types for annotations (Number, Device, _dtype, ...),
spelled over tandem's classes."""
import os
from builtins import bool as _bool, bytes as _bytes, complex as _complex, float as _float, int as _int  # noqa: F401
from builtins import str as _str  # noqa: F401
from collections.abc import Sequence
from typing import IO, Union

from ._C import Tensor, device as _device, dtype as _dtype  # noqa: F401
from ._size import Size
from ._sym import SymBool, SymFloat, SymInt

__all__ = ["Number", "Device", "FileLike"]

IntLikeType = Union[int, SymInt]
FloatLikeType = Union[float, SymFloat]
BoolLikeType = Union[bool, SymBool]
PySymType = Union[SymInt, SymFloat, SymBool]
py_sym_types = (SymInt, SymFloat, SymBool)

_TensorOrTensors = Union[Tensor, Sequence[Tensor]]
_TensorOrOptionalTensors = Union[Tensor, Sequence[Union[Tensor, None]]]
_size = Union[Size, list[int], tuple[int, ...]]
Number = Union[int, float, bool]
_Number = (int, float, bool)
FileLike = Union[str, os.PathLike, IO[bytes]]
Device = Union[_device, str, int, None]
