"""tandem.nn.utils: gradient clipping, parameter/vector conversion and variable-length sequences (rnn), as
torch.nn.utils."""
from . import rnn  # noqa: F401
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,  # noqa: F401
                        get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401

__all__ = [
    "clip_grad_norm", "clip_grad_norm_", "clip_grads_with_norm_", "clip_grad_value_", "get_total_norm",
    "parameters_to_vector", "vector_to_parameters", "rnn",
]

from . import parametrize, parametrizations, stateless, fusion  # noqa: F401,E402
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights  # noqa
from .init import skip_init  # noqa: F401,E402
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401,E402
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401,E402
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format  # noqa: E402

__all__ += ["parametrize", "parametrizations", "stateless", "fusion", "fuse_conv_bn_eval", "fuse_conv_bn_weights",
            "fuse_linear_bn_eval", "fuse_linear_bn_weights", "skip_init", "spectral_norm", "remove_spectral_norm",
            "weight_norm", "remove_weight_norm", "convert_conv2d_weight_memory_format",
            "convert_conv3d_weight_memory_format"]
