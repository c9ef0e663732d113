"""PyTorch's module path for Flatten (torch.nn.modules.flatten.Flatten); it is defined in linear.py."""
from .linear import Flatten

__all__ = ["Flatten"]
