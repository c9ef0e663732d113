"""tandem._tensor: the module PyTorch defines Tensor in (``from torch._tensor import Tensor``), with `_convert`,
which subclasses that reimplement __torch_function__ import from here."""
from ._C import Tensor
from .overrides import _convert  # noqa: F401

__all__ = ["Tensor"]
