"""tandem.utils: data loading and activation checkpointing (utils.benchmark and utils.tensorboard load when
imported)."""
from . import data  # noqa: F401
from . import checkpoint  # noqa: F401
from . import dlpack  # noqa: F401  (to_dlpack / from_dlpack, as torch.utils.dlpack)
from ._swap import swap_tensors  # noqa: F401
from . import hooks  # noqa: F401  (RemovableHandle, as torch.utils.hooks)
from . import flop_counter  # noqa: F401  (FlopCounterMode)
from . import weak  # noqa: F401  (WeakIdKeyDictionary, TensorWeakRef)
