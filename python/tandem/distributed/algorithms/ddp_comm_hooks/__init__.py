"""PyTorch's built-in DDP communication hooks: ``default_hooks`` (allreduce, fp16/bf16 compression)."""
from tandem.distributed.algorithms.ddp_comm_hooks import default_hooks  # noqa: F401
