"""PyTorch's module path for the instance-norm layers (torch.nn.modules.instancenorm.InstanceNorm2d,
._InstanceNorm); they are defined in normalization_more.py and breadth.py."""
from .breadth import LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d
from .normalization_more import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, _InstanceNorm

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]
