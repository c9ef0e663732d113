"""tandem.distributed: PyTorch's torch.distributed over MPI (host and emulated CUDA tensors) and NCCL (CUDA).

Start one process per device with ``mpirun -np N python train.py``; see docs/distributed.md.
"""
from tandem.distributed.distributed_c10d import *  # noqa: F401,F403
from tandem.distributed.distributed_c10d import __all__  # noqa: F401
