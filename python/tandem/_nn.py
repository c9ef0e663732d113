"""The training-side packages: nn, optim, utils.data, and safetensors save/load."""
from . import nn, optim, utils  # noqa: F401
from .serialization import save, load  # noqa: F401

from ._C import Tensor as _Tensor  # noqa: E402
from .nn.parameter import tensor_deepcopy as _tensor_deepcopy  # noqa: E402

if not hasattr(_Tensor, "__deepcopy__"):  # the core Tensor has no deepcopy of its own yet; modules need one
    _Tensor.__deepcopy__ = _tensor_deepcopy
