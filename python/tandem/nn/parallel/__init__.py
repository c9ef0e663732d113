"""tandem.nn.parallel: DistributedDataParallel (one process per device, gradients averaged during backward)."""
from tandem.nn.parallel.distributed import DistributedDataParallel
from tandem.nn.parallel.data_parallel import DataParallel, data_parallel

__all__ = ["DistributedDataParallel", "DataParallel", "data_parallel"]
