"""tandem.distributed.nn, as torch.distributed.nn: collectives that autograd differentiates (lightly's Barlow
Twins and LeJEPA losses all-reduce through it). No RemoteModule: tandem has no RPC (docs/distributed.md)."""
from .functional import *  # noqa: F401,F403
from . import functional  # noqa: F401
