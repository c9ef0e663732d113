"""PyTorch's module path for the batch-norm layers (torch.nn.modules.batchnorm.BatchNorm2d, ._BatchNorm), which
pickled models, safe_globals lists and isinstance checks name (Torch-Pruning, swa_utils); they are defined in
normalization.py, breadth.py, lazy.py and sync_batchnorm.py."""
from .breadth import BatchNorm3d, LazyBatchNorm3d
from .lazy import LazyBatchNorm1d, LazyBatchNorm2d, _LazyNormBase
from .normalization import BatchNorm1d, BatchNorm2d, _BatchNorm, _NormBase
from .sync_batchnorm import SyncBatchNorm

__all__ = ["BatchNorm1d", "LazyBatchNorm1d", "BatchNorm2d", "LazyBatchNorm2d", "BatchNorm3d", "LazyBatchNorm3d",
           "SyncBatchNorm"]
