"""tandem.distributed.optim: optimizers for data-parallel training (PyTorch's torch.distributed.optim)."""
from .zero_redundancy_optimizer import ZeroRedundancyOptimizer

__all__ = ["ZeroRedundancyOptimizer"]
