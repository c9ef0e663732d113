"""The training-side packages: nn, optim, utils.data, and safetensors save/load."""
from . import nn, optim, utils  # noqa: F401
from .serialization import save, load  # noqa: F401
