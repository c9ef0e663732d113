"""tandem._tensor: the module PyTorch defines Tensor in (``from torch._tensor import Tensor``)."""
from ._C import Tensor

__all__ = ["Tensor"]
