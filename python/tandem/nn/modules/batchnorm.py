"""PyTorch's module path for the batch-norm layers (torch.nn.modules.batchnorm.BatchNorm2d), which pickled models
and safe_globals lists name; they are defined in normalization.py."""
from .normalization import BatchNorm1d, BatchNorm2d

__all__ = ["BatchNorm1d", "BatchNorm2d"]
