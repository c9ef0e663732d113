"""tandem.nn.parallel: DistributedDataParallel (one process per device, gradients averaged during backward)."""
from tandem.nn.parallel.distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
