"""tandem.nn.parallel: DistributedDataParallel (one process per device, gradients averaged during backward),
DataParallel, and the pieces PyTorch builds DataParallel from (scatter, replicate, parallel_apply, gather)."""
from tandem.nn.parallel.distributed import DistributedDataParallel
from tandem.nn.parallel.data_parallel import DataParallel, data_parallel
from tandem.nn.parallel.parallel_apply import parallel_apply
from tandem.nn.parallel.replicate import replicate
from tandem.nn.parallel.scatter_gather import gather, scatter

__all__ = ["replicate", "scatter", "parallel_apply", "gather", "data_parallel", "DataParallel",
           "DistributedDataParallel"]
