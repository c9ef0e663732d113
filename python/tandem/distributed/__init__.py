"""tandem.distributed: PyTorch's torch.distributed over MPI (host and emulated CUDA tensors) and NCCL (CUDA).

Start one process per device with ``mpirun -np N python train.py`` or torchrun's launcher,
``python -m tandem.distributed.run --nproc-per-node=N train.py``; see docs/distributed.md.
"""
from tandem.distributed import (debugging, device_mesh, distributed_c10d, environment, file_store, grad_bucket,
                                group_split, list_collectives, object_p2p, store, subgroups, tcp_store)
from tandem.distributed import rendezvous as _rendezvous_module  # the name becomes the function below, as in PyTorch
from tandem.distributed.distributed_c10d import *  # noqa: F401,F403
from tandem.distributed.environment import *  # noqa: F401,F403
from tandem.distributed.list_collectives import *  # noqa: F401,F403
from tandem.distributed.object_p2p import *  # noqa: F401,F403
from tandem.distributed.store import *  # noqa: F401,F403
from tandem.distributed.tcp_store import *  # noqa: F401,F403
from tandem.distributed.file_store import *  # noqa: F401,F403
from tandem.distributed.subgroups import *  # noqa: F401,F403
from tandem.distributed.debugging import *  # noqa: F401,F403
from tandem.distributed.grad_bucket import *  # noqa: F401,F403
from tandem.distributed.rendezvous import *  # noqa: F401,F403
from tandem.distributed.group_split import *  # noqa: F401,F403
from tandem.distributed.device_mesh import *  # noqa: F401,F403

__all__ = [*distributed_c10d.__all__, *environment.__all__, *list_collectives.__all__, *object_p2p.__all__,
           *store.__all__, *subgroups.__all__, *tcp_store.__all__, *file_store.__all__,
           *debugging.__all__, *grad_bucket.__all__, *_rendezvous_module.__all__, *group_split.__all__,
           *device_mesh.__all__]

from tandem.distributed import algorithms  # noqa: E402,F401 (its hooks use the names above)

set_debug_level_from_env()  # as PyTorch does at import: a bad TORCH_DISTRIBUTED_DEBUG fails here
