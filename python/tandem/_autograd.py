"""The autograd names exported at tandem's top level (tandem.no_grad, ...)."""
from . import autograd  # noqa: F401
from .autograd.grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode,  # noqa: F401
                                 is_grad_enabled, is_inference_mode_enabled)
