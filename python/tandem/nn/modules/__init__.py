from .module import Module
from .container import Sequential, ModuleList, ModuleDict
from .linear import Identity, Linear, Flatten, Embedding
from .conv import Conv2d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from .activation import (ReLU, GELU, SiLU, LeakyReLU, ELU, SELU, CELU, Softplus, Hardtanh, ReLU6, Hardsigmoid,
                         Hardswish, Mish, Softsign, LogSigmoid, Tanhshrink, Threshold, Hardshrink, Softshrink, Sigmoid,
                         Tanh, Softmax, LogSoftmax, PReLU, GLU, Softmin, Softmax2d)
from .loss import CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, BCELoss, BCEWithLogitsLoss

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "Identity", "Linear", "Flatten", "Embedding", "Conv2d",
    "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "ReLU", "GELU",
    "SiLU", "LeakyReLU", "ELU", "SELU", "CELU", "Softplus", "Hardtanh", "ReLU6", "Hardsigmoid", "Hardswish", "Mish",
    "Softsign", "LogSigmoid", "Tanhshrink", "Threshold", "Hardshrink", "Softshrink", "Sigmoid", "Tanh", "Softmax",
    "LogSoftmax", "PReLU", "GLU", "Softmin", "Softmax2d", "CrossEntropyLoss", "NLLLoss", "MSELoss",
    "L1Loss", "BCELoss", "BCEWithLogitsLoss",
]

# Layers added module by module; each file lists its public names in its own __all__.
from . import (dropout, padding, pixelshuffle, loss_more, normalization_more, rnn,  # noqa: E402
               activation_attention, transformer, embedding_bag, conv_more, pooling, upsampling, lazy,
               # PyTorch's module paths for classes defined elsewhere (re-exports only)
               sparse, distance, batchnorm, instancenorm, flatten, fold, channelshuffle,
               utils)  # torch.nn.modules.utils (consume_prefix_in_state_dict_if_present, _pair) is an attribute
from .dropout import *  # noqa: F401,F403,E402
from .padding import *  # noqa: F401,F403,E402
from .pixelshuffle import *  # noqa: F401,F403,E402
from .loss_more import *  # noqa: F401,F403,E402
from .normalization_more import *  # noqa: F401,F403,E402
from .rnn import *  # noqa: F401,F403,E402
from .activation_attention import *  # noqa: F401,F403,E402
from .transformer import *  # noqa: F401,F403,E402
from .embedding_bag import *  # noqa: F401,F403,E402
from .conv_more import *  # noqa: F401,F403,E402
from .pooling import *  # noqa: F401,F403,E402
from .upsampling import *  # noqa: F401,F403,E402
from .lazy import *  # noqa: F401,F403,E402

for _family in (dropout, padding, pixelshuffle, loss_more, normalization_more, rnn, activation_attention, transformer,
                embedding_bag, conv_more, pooling, upsampling, lazy):
    __all__ += _family.__all__
del _family

from . import containers_more, unpool, breadth, adaptive, sync_batchnorm, fractional_pool  # noqa: E402
from .containers_more import *  # noqa: F401,F403,E402
from .fractional_pool import *  # noqa: F401,F403,E402
from .unpool import *  # noqa: F401,F403,E402
from .breadth import *  # noqa: F401,F403,E402
from .adaptive import *  # noqa: F401,F403,E402
from .sync_batchnorm import *  # noqa: F401,F403,E402

for _family in (containers_more, unpool, breadth, adaptive, sync_batchnorm, fractional_pool):
    __all__ += _family.__all__
del _family

from . import linear_cross_entropy  # noqa: E402
from .linear_cross_entropy import *  # noqa: F401,F403,E402

__all__ += linear_cross_entropy.__all__
