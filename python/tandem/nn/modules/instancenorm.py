"""PyTorch's module path for the instance-norm layers (torch.nn.modules.instancenorm.InstanceNorm2d); they are
defined in normalization_more.py."""
from .normalization_more import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]
