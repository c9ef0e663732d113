"""PyTorch's module path for Flatten and Unflatten (torch.nn.modules.flatten); they are defined in linear.py and
breadth.py."""
from .breadth import Unflatten
from .linear import Flatten

__all__ = ["Flatten", "Unflatten"]
