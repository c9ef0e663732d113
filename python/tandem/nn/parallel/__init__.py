"""tandem.nn.parallel: DistributedDataParallel (one process per device, gradients averaged during backward)."""
from tandem.nn.parallel.distributed import DistributedDataParallel
from tandem.nn.parallel.data_parallel import DataParallel, data_parallel
from tandem.nn.parallel import scatter_gather  # noqa: F401

__all__ = ["DistributedDataParallel", "DataParallel", "data_parallel"]
