"""PyTorch's module path for Fold and Unfold (torch.nn.modules.fold); they are defined in conv_more.py."""
from .conv_more import Fold, Unfold

__all__ = ["Fold", "Unfold"]
