"""PyTorch's module path for the pre-0.4 Variable (``from torch.autograd.variable import Variable`` in old code);
it is defined in tandem/_legacy.py."""
from .._legacy import Variable  # noqa: F401

__all__ = ["Variable"]
