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
