"""tandem.optim.lr_scheduler: PyTorch's learning-rate schedulers, with its update rules, warnings, errors and
state dicts. The classes live in four modules by family; this one is the public namespace."""
from ._scheduler_base import EPOCH_DEPRECATION_WARNING, LRScheduler, _LRScheduler  # noqa: F401
from ._decay_schedulers import (ConstantLR, CosineAnnealingLR, ExponentialLR, LambdaLR, LinearLR,  # noqa: F401
                                MultiplicativeLR, MultiStepLR, PolynomialLR, StepLR)
from ._cyclic_schedulers import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR  # noqa: F401
from ._combined_schedulers import ChainedScheduler, ReduceLROnPlateau, SequentialLR  # noqa: F401

__all__ = [
    "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
    "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
    "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR", "LRScheduler",
]

# Classes report (and pickle under) the public module name, as torch.optim.lr_scheduler.X does.
for _name in __all__ + ["_LRScheduler"]:
    globals()[_name].__module__ = __name__
del _name
