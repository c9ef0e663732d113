"""DDP communication hooks (``tandem.distributed.algorithms.ddp_comm_hooks``)."""
from tandem.distributed.algorithms import ddp_comm_hooks  # noqa: F401
